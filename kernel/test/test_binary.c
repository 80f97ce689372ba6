/*
 * ktest: the binary cache's key. Two images with the same path and size
 * whose FNV-1a hashes collide (simulated: the first entry's hash is set to
 * the second image's) must still be two entries: the key is the content's
 * SHA-256, not FNV-1a.
 */
#include <abi/limits.h>
#include <kernel/binary.h>
#include <kernel/binquota.h>
#include <kernel/ktest.h>
#include <kernel/vm.h>
#include <lib/string.h>
#include "../prof/internal.h"

/* FNV-1a 64 as the cache computes it for LOAD records (never 0). */
static uint64_t ktest_fnv(const uint8_t *p, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/* a, then b: /bin/hello with one byte of its symbol names changed. */
static bool ktest_two_images(uint8_t **a, uint8_t **b, size_t *size)
{
	const void *data;
	const elf64_shdr_t *sym, *str;

	if (initrd_find("/bin/hello", &data, size) != EOK ||
	    elf_find_symtab(data, *size, &sym, &str) != EOK || str->sh_size < 2)
		return false;
	*a = kmalloc(*size);
	*b = kmalloc(*size);
	if (!*a || !*b)
		return false;
	memcpy(*a, data, *size);
	memcpy(*b, data, *size);
	(*b)[str->sh_offset + 1] ^= 0x20;      /* a name's first letter's case */
	return true;
}

KTEST(binary_fnv_collision, "binary: same path, size and FNV-1a hash, other content: two entries")
{
	uint8_t *a = NULL, *b = NULL;
	size_t size = 0;
	binary_t *ba = NULL, *bb = NULL;
	bool ok = ktest_two_images(&a, &b, &size) &&
		  binary_get_image("/ktest/collide", a, size, NULL, &ba) == EOK;

	if (ok) {
		uint64_t real = ba->hash;
		ba->hash = ktest_fnv(b, size);     /* as if the two collided */
		ok = binary_get_image("/ktest/collide", b, size, NULL, &bb) == EOK;
		ba->hash = real;
	}
	bool distinct = ok && bb != ba;
	binary_put(ba);
	binary_put(bb);
	kfree(a);
	kfree(b);
	KT_CHECK(ok, "could not build or cache the two images");
	KT_CHECK(distinct, "the second image got the first one's cache entry");
	return true;
}

/*
 * A live profiling session pins the binaries it named. The cache is
 * shrunk (test hook) to 4 entries above what it holds; a session opens
 * (prof_nsessions raised, as prof_begin does first), an image is cached
 * and named to it (binary_mark_named, as its LOAD record does), its last
 * reference dropped; 16 other images then pass through the cache and it
 * must still be there. Once the session ends, 16 more evict it.
 */
#define BIN_PIN_ROUNDS 16

/* /bin/hello with an 8-byte counter after it: a distinct image per i. */
static uint8_t *bin_pin_image(size_t *size)
{
	const void *data;
	uint8_t *p;

	if (initrd_find("/bin/hello", &data, size) != EOK || !(p = kmalloc(*size + 8)))
		return NULL;
	memcpy(p, data, *size);
	return p;
}

/* Cache image number i under path and drop the reference at once. */
static bool bin_pin_pass(const char *path, uint8_t *image, size_t size, uint64_t i)
{
	binary_t *b = NULL;

	memcpy(image + size, &i, sizeof(i));
	if (binary_get_image(path, image, size + 8, NULL, &b) != EOK)
		return false;
	binary_put(b);
	return true;
}

/* BIN_PIN_ROUNDS fillers numbered from base; false if one failed. */
static bool bin_pin_fill(uint8_t *image, size_t size, uint64_t base)
{
	for (uint64_t i = 0; i < BIN_PIN_ROUNDS; i++)
		if (!bin_pin_pass("/ktest/fill", image, size, base + i))
			return false;
	return true;
}

KTEST(binary_session_pins, "binary: a binary named by a live profiling session is not evicted")
{
	size_t size = 0;
	uint8_t *image = bin_pin_image(&size);
	binary_t *b = NULL;

	KT_CHECK(image, "no /bin/hello in the initrd");
	size_t old = binary_cache_set_max(binary_cached_count() + 4);
	__atomic_add_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);     /* a session opens */
	memcpy(image + size, &(uint64_t){ 0 }, 8);
	bool got = binary_get_image("/ktest/pinned", image, size + 8, NULL, &b) == EOK;
	if (got) {
		binary_mark_named(b);         /* the session's LOAD record names it */
		binary_put(b);
	}
	bool filled = got && bin_pin_fill(image, size, 1);
	bool kept = binary_path_cached("/ktest/pinned");
	__atomic_sub_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);     /* and ends */
	bool refilled = filled && bin_pin_fill(image, size, 1 + BIN_PIN_ROUNDS);
	bool evicted = !binary_path_cached("/ktest/pinned");
	binary_cache_set_max(old);
	kfree(image);
	KT_CHECK(got && filled && refilled, "caching failed: %d %d %d", got, filled, refilled);
	KT_CHECK(kept, "the named binary was evicted while its session was open");
	KT_CHECK(evicted, "the named binary stayed after the session ended");
	return true;
}

/*
 * The cache's byte budget. One hello image is pinned here; the budget is
 * shrunk (test hook) to 0, which evicts every unused entry, then to what
 * is left plus half an image's entry. 16 distinct images with their
 * references dropped leave the cache within it; one more image, while the
 * first is pinned, does not fit: it is cached without its symbols, the
 * pinned one keeps them, and once unused the cache is within budget.
 */
static bool bin_budget_symbols(const binary_t *b)
{
	uint64_t off;

	return binary_symbol(b, b->plan.entry, &off) != NULL;
}

KTEST(binary_byte_budget, "binary: the cache stays within its byte budget; what does not fit drops its symbols")
{
	size_t size = 0;
	uint8_t *image = bin_pin_image(&size);
	binary_t *pin = NULL, *b = NULL;

	KT_CHECK(image, "no /bin/hello in the initrd");
	memcpy(image + size, &(uint64_t){ 1u << 20 }, 8);
	bool got = binary_get_image("/ktest/budget", image, size + 8, NULL, &pin) == EOK;
	size_t one = got ? pin->bytes : 0;
	size_t old = binary_cache_set_budget(0);
	got = got && bin_pin_pass("/ktest/fill", image, size, 1 << 20);   /* evicts every unused one */
	binary_cache_set_budget(binary_cache_bytes() + one / 2);
	bool filled = got && bin_pin_fill(image, size, 1 << 21);
	size_t after_fill = binary_cache_bytes();
	memcpy(image + size, &(uint64_t){ 3u << 20 }, 8);
	bool got2 = got && binary_get_image("/ktest/budget", image, size + 8, NULL, &b) == EOK;
	bool stripped = got2 && !bin_budget_symbols(b) && bin_budget_symbols(pin);
	binary_put(b);
	binary_put(pin);
	size_t limit = binary_cache_limit(), bytes = binary_cache_bytes();
	binary_cache_set_budget(old);
	kfree(image);
	KT_CHECK(got && filled && got2, "caching failed: %d %d %d", got, filled, got2);
	KT_CHECK(after_fill <= limit + one, "%zu bytes cached after the fill, budget %zu",
		 after_fill, limit);
	KT_CHECK(stripped, "the image that did not fit kept its symbols (or the pinned one lost them)");
	KT_CHECK(bytes <= limit, "%zu bytes cached once unused, budget %zu", bytes, limit);
	return true;
}

/*
 * Binaries that tasks run may exceed the count: with the cache shrunk to
 * 2 entries, 6 distinct images all referenced at once (as 6 live tasks
 * would) are all cached (before: ELIMIT from the 3rd on, for every spawn
 * of an uncached program by anyone); once their references go, the
 * cache is over its count: unused ones go until it is within it (or
 * none of ours is left).
 */
#define BIN_INUSE 6

KTEST(binary_inuse_over_count, "binary: binaries tasks run may exceed the count; unused ones go after")
{
	size_t size = 0;
	uint8_t *image = bin_pin_image(&size);
	binary_t *b[BIN_INUSE] = { NULL };
	unsigned got = 0;

	KT_CHECK(image, "no /bin/hello in the initrd");
	size_t old = binary_cache_set_max(2);
	for (uint64_t i = 0; i < BIN_INUSE; i++) {
		memcpy(image + size, &(uint64_t){ (5u << 20) + i }, 8);
		got += binary_get_image("/ktest/inuse", image, size + 8, NULL, &b[i]) == EOK;
	}
	size_t held = binary_cached_count();
	for (unsigned i = 0; i < BIN_INUSE; i++)
		binary_put(b[i]);
	size_t after = binary_cached_count();
	binary_cache_set_max(old);
	kfree(image);
	KT_CHECK(got == BIN_INUSE, "only %u of %u referenced images were cached", got, BIN_INUSE);
	KT_CHECK(held >= BIN_INUSE, "%zu cached with %u in use", held, BIN_INUSE);
	KT_CHECK(after <= 2 || after <= held - BIN_INUSE,
		 "%zu of %zu stayed once unused, in a cache of 2", after, held);
	return true;
}

/*
 * The charge per quota tree (LIMIT_TREE_BIN_BYTES), with the global
 * budget lifted so only the tree's bound counts: tree A pins distinct
 * images until ELIMIT; tree B still caches one with its symbols; once
 * one of A's is unused, A's next image fits again (its own unused entry
 * goes).
 */
#define BIN_TREE_MAX 1024

/* Pin distinct images charged to q into b[] until one fails; how many, the failure in *rc. */
static unsigned bin_tree_fill(binquota_t *q, uint8_t *image, size_t size, binary_t **b,
			      errno_t *rc)
{
	unsigned n = 0;

	*rc = EOK;
	for (; n < BIN_TREE_MAX && *rc == EOK; n++) {
		memcpy(image + size, &(uint64_t){ (7u << 20) + n }, 8);
		*rc = binary_get_image("/ktest/tree", image, size + 8, q, &b[n]);
	}
	return *rc == EOK ? n : n - 1;
}

KTEST(binary_tree_bound, "binary: one quota tree's images stop at its bound; another tree keeps its symbols")
{
	static binary_t *b[BIN_TREE_MAX];
	size_t size = 0;
	uint8_t *image = bin_pin_image(&size);
	binquota_t *qa = binary_quota_new(), *qb = binary_quota_new();
	binary_t *other = NULL, *again = NULL;
	errno_t rc = EOK;

	KT_CHECK(image && qa && qb, "no /bin/hello or no memory");
	size_t old = binary_cache_set_budget(SIZE_MAX / 2);
	unsigned n = bin_tree_fill(qa, image, size, b, &rc);
	size_t held = qa->bytes;
	memcpy(image + size, &(uint64_t){ 8u << 20 }, 8);
	errno_t rb = binary_get_image("/ktest/tree-b", image, size + 8, qb, &other);
	bool syms = rb == EOK && bin_budget_symbols(other);
	binary_put(n ? b[--n] : NULL);
	memcpy(image + size, &(uint64_t){ 9u << 20 }, 8);
	errno_t ra = binary_get_image("/ktest/tree", image, size + 8, qa, &again);
	binary_put(again);
	binary_put(other);
	while (n)
		binary_put(b[--n]);
	binary_cache_set_budget(old);
	binary_quota_put(qa);
	binary_quota_put(qb);
	kfree(image);
	KT_CHECK(rc == ELIMIT, "tree A's spawns never stopped (last %d)", rc);
	KT_CHECK(held <= LIMIT_TREE_BIN_BYTES, "tree A holds %zu bytes, bound %u", held,
		 LIMIT_TREE_BIN_BYTES);
	KT_CHECK(syms, "tree B's image was not cached with its symbols (%d)", rb);
	KT_CHECK(ra == EOK, "tree A's image after one of its own went unused gave %d", ra);
	return true;
}
