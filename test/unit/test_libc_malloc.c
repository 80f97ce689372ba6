/*
 * Unit tests for libc's allocator: the engine (src/malloc_core.c) over a
 * page source that counts mappings and can run dry, checked against its
 * invariants after random operation sequences, and the public malloc
 * family over the fake kernel's SYS_MAP (with real memory contents
 * checked, and ASan watching every access).
 */
#include "rng.h"
#include "tap.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "libc_host.h"

/* ---------------------------------------------------------------- pages */

typedef struct pages {
	long maps, unmaps;
	size_t live_bytes;
	long fail_after;   /* map fails once maps reaches this (<0: never) */
} pages_t;

static void *pages_map(void *ctx, size_t len)
{
	pages_t *p = ctx;

	if (p->fail_after >= 0 && p->maps >= p->fail_after)
		return NULL;
	void *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return NULL;
	p->maps++;
	p->live_bytes += len;
	return a;
}

static void pages_unmap(void *ctx, void *addr, size_t len)
{
	pages_t *p = ctx;

	p->unmaps++;
	p->live_bytes -= len;
	munmap(addr, len);
}

static void heap_setup(heap_t *h, pages_t *p)
{
	heap_pages_t hp = { .map = pages_map, .unmap = pages_unmap, .ctx = p };

	memset(p, 0, sizeof(*p));
	p->fail_after = -1;
	__libc_heap_init(h, &hp);
}

/* ---------------------------------------------------------------- rng */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

/* Sizes: mostly small, some medium, a few large. */
static size_t random_size(void)
{
	switch (rng() % 10) {
	case 0: return rng() % 300000;
	case 1:
	case 2: return rng() % 20000;
	default: return rng() % 600;
	}
}

static unsigned char pattern(uintptr_t id, size_t i)
{
	return (unsigned char)(id * 31 + i * 7 + 1);
}

static void fill(void *p, size_t n, uintptr_t id)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)p)[i] = pattern(id, i);
}

static bool intact(const void *p, size_t n, uintptr_t id)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != pattern(id, i))
			return false;
	return true;
}

/* ---------------------------------------------------------------- engine */

static void test_engine_basics(void)
{
	heap_t h;
	pages_t p;
	heap_stats_t st;

	heap_setup(&h, &p);
	void *a = __libc_heap_alloc(&h, 10);
	void *b = __libc_heap_alloc(&h, 0);
	void *c = __libc_heap_alloc(&h, 1000);
	ok(a && b && c && a != b && b != c, "small allocations, 0 bytes unique");
	ok(((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16 == 0,
	   "results are 16-byte aligned");
	ok(__libc_heap_usable(&h, a) >= 10 && __libc_heap_usable(&h, c) >= 1000,
	   "usable sizes cover the requests");
	is_int(p.maps, 1, "one arena mapped");
	ok(__libc_heap_check(&h), "heap consistent");
	__libc_heap_free(&h, b);
	__libc_heap_free(&h, a);
	__libc_heap_free(&h, c);
	__libc_heap_stats(&h, &st);
	is_uint(st.used, 0, "nothing in use after freeing all");
	is_uint(st.arenas, 1, "the last arena is kept");
	ok(__libc_heap_check(&h), "heap consistent after frees (coalesced)");
	void *big = __libc_heap_alloc(&h, 200000);
	void *mid = __libc_heap_alloc(&h, 120000);
	__libc_heap_free(&h, NULL);
	is_int(p.maps, 2, "200000 bytes: own mapping; 120000: from the merged arena");
	__libc_heap_free(&h, big);
	__libc_heap_free(&h, mid);
	is_uint(p.live_bytes, 256 * 1024, "only the arena remains mapped");
}

static void test_engine_large(void)
{
	heap_t h;
	pages_t p;
	heap_stats_t st;

	heap_setup(&h, &p);
	char *a = __libc_heap_alloc(&h, 1 << 20);
	ok(a != NULL, "1 MiB allocation");
	memset(a, 0x5a, 1 << 20);
	__libc_heap_stats(&h, &st);
	is_uint(st.large, 1, "it has its own mapping");
	is_uint(st.arenas, 0, "no arena for it");
	char *b = __libc_heap_realloc(&h, a, 2 << 20);
	ok(b && b[0] == 0x5a && b[(1 << 20) - 1] == 0x5a, "realloc to 2 MiB keeps data");
	char *c = __libc_heap_realloc(&h, b, 1800000);
	ok(c == b, "shrinking a little stays in place");
	char *d = __libc_heap_realloc(&h, c, 100);
	ok(d && d[0] == 0x5a && d[99] == 0x5a, "shrinking to 100 bytes moves, keeps data");
	__libc_heap_stats(&h, &st);
	is_uint(st.large, 0, "the large mapping is gone");
	__libc_heap_free(&h, d);
	is_int(p.maps - p.unmaps, 1, "everything unmapped but one arena");
	ok(__libc_heap_check(&h), "heap consistent");
}

static void test_engine_memalign(void)
{
	heap_t h;
	pages_t p;
	bool aligned = true;
	void *ptrs[40];

	heap_setup(&h, &p);
	for (int i = 0; i < 40; i++) {
		size_t align = (size_t)32 << (i % 10);
		ptrs[i] = __libc_heap_memalign(&h, align, (size_t)(i * 37 % 500));
		aligned = aligned && ptrs[i] && (uintptr_t)ptrs[i] % align == 0;
		fill(ptrs[i], (size_t)(i * 37 % 500), (uintptr_t)i);
	}
	ok(aligned, "memalign 32..16384 returns aligned blocks");
	void *big = __libc_heap_memalign(&h, 65536, 200000);
	ok(big && (uintptr_t)big % 65536 == 0, "large aligned block");
	ok(__libc_heap_memalign(&h, 48, 10) == NULL, "non-power-of-two alignment fails");
	ok(__libc_heap_check(&h), "heap consistent with aligned blocks");
	bool good = true;
	for (int i = 0; i < 40; i++) {
		good = good && intact(ptrs[i], (size_t)(i * 37 % 500), (uintptr_t)i);
		__libc_heap_free(&h, ptrs[i]);
	}
	__libc_heap_free(&h, big);
	ok(good, "aligned blocks kept their contents");
	ok(__libc_heap_check(&h), "heap consistent after freeing them");
	is_int(p.maps - p.unmaps, 1, "all memory returned but one arena");
}

static void test_engine_oom(void)
{
	heap_t h;
	pages_t p;

	heap_setup(&h, &p);
	p.fail_after = 1;
	void *a = __libc_heap_alloc(&h, 100);
	ok(a != NULL, "first arena maps");
	ok(__libc_heap_alloc(&h, 1 << 20) == NULL, "large allocation fails cleanly");
	ok(__libc_heap_alloc(&h, 300000) == NULL, "another mapping fails cleanly");
	void *b = __libc_heap_realloc(&h, a, 500000);
	ok(b == NULL, "realloc that cannot map returns NULL");
	ok(a && __libc_heap_usable(&h, a) >= 100, "and leaves the block alone");
	ok(__libc_heap_alloc(&h, SIZE_MAX - 8) == NULL, "absurd size fails");
	ok(__libc_heap_alloc(&h, SIZE_MAX / 2) == NULL, "half the address space fails");
	ok(__libc_heap_check(&h), "heap consistent after failures");
	__libc_heap_free(&h, a);
}

typedef struct slot {
	char *p;
	size_t n;
	uintptr_t id;
} slot_t;

/* Random malloc/realloc/free with content checks and invariant checks. */
static void test_engine_random(void)
{
	enum { SLOTS = 300, OPS = 40000 };
	static slot_t s[SLOTS];
	heap_t h;
	pages_t p;
	int corrupt = 0, inconsistent = 0;

	heap_setup(&h, &p);
	memset(s, 0, sizeof(s));
	for (int op = 0; op < OPS; op++) {
		slot_t *e = &s[rng() % SLOTS];
		if (e->p && !intact(e->p, e->n, e->id))
			corrupt++;
		uint64_t what = rng() % 3;
		if (!e->p || what == 0) {
			__libc_heap_free(&h, e->p);
			e->n = random_size();
			e->p = __libc_heap_alloc(&h, e->n);
		} else if (what == 1) {
			size_t n = random_size();
			e->p = __libc_heap_realloc(&h, e->p, n);
			if (e->p && !intact(e->p, n < e->n ? n : e->n, e->id))
				corrupt++;
			e->n = n;
		} else {
			__libc_heap_free(&h, e->p);
			e->p = NULL;
			continue;
		}
		e->id = (uintptr_t)op;
		fill(e->p, e->n, e->id);
		if (op % 500 == 0 && !__libc_heap_check(&h))
			inconsistent++;
	}
	is_int(corrupt, 0, "%d random operations kept every block's contents", OPS);
	is_int(inconsistent, 0, "heap invariants held throughout");
	for (int i = 0; i < SLOTS; i++)
		__libc_heap_free(&h, s[i].p);
	heap_stats_t st;
	__libc_heap_stats(&h, &st);
	is_uint(st.used, 0, "all freed");
	ok(__libc_heap_check(&h), "consistent at the end");
	is_int(p.maps - p.unmaps, 1, "arenas returned to the page source (%ld maps)",
	       p.maps);
}

/* ---------------------------------------------------------------- corruption */

static jmp_buf corrupt_jmp;
static const char *corrupt_msg;

static void catch_corrupt(const char *msg, void *ptr)
{
	corrupt_msg = msg;
	longjmp(corrupt_jmp, 1);
}

static void test_double_free(void)
{
	heap_t h;
	pages_t p;
	void (*saved)(const char *, void *) = __libc_heap_corrupt;

	heap_setup(&h, &p);
	__libc_heap_corrupt = catch_corrupt;
	char *a = __libc_heap_alloc(&h, 64);
	__libc_heap_alloc(&h, 64);   /* keeps a from merging away */
	__libc_heap_free(&h, a);
	corrupt_msg = NULL;
	if (setjmp(corrupt_jmp) == 0)
		__libc_heap_free(&h, a);
	ok(corrupt_msg && strstr(corrupt_msg, "double free"), "double free detected");
	h.lock.locked = 0;   /* the handler jumped out holding it */
	corrupt_msg = NULL;
	if (setjmp(corrupt_jmp) == 0)
		__libc_heap_free(&h, a + 8);
	ok(corrupt_msg && strstr(corrupt_msg, "misaligned"), "misaligned pointer detected");
	__libc_heap_corrupt = saved;
}

/* ---------------------------------------------------------------- public */

static void test_public(void)
{
	fake_reset();
	size_t live = fake.live_maps;
	char *a = vl_malloc(100);
	ok(a != NULL && fake.calls[SYS_MAP] >= 1, "malloc maps through SYS_MAP");
	strcpy(a, "hello");
	a = vl_realloc(a, 5000);
	is_str(a, "hello", "realloc keeps the data");
	int *z = vl_calloc(1000, sizeof(int));
	bool zero = z != NULL;
	for (int i = 0; zero && i < 1000; i++)
		zero = z[i] == 0;
	ok(zero, "calloc zeroes");
	vl_errno = 0;
	ok(vl_calloc(SIZE_MAX / 2, 4) == NULL && vl_errno == ENOMEM,
	   "calloc overflow: NULL, ENOMEM");
	ok(vl_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL, "reallocarray overflow");
	ok(vl_realloc(a, 0) == NULL, "realloc(p, 0) frees");
	vl_free(z);
	void *al = vl_aligned_alloc(4096, 100);
	ok(al && (uintptr_t)al % 4096 == 0, "aligned_alloc(4096)");
	vl_free(al);
	void *pm = NULL;
	is_int(vl_posix_memalign(&pm, 3, 10), EINVAL, "posix_memalign rejects 3");
	is_int(vl_posix_memalign(&pm, 64, 10), 0, "posix_memalign(64)");
	ok((uintptr_t)pm % 64 == 0, "posix_memalign result aligned");
	ok(vl_malloc_usable_size(pm) >= 10, "malloc_usable_size");
	vl_free(pm);
	char *big = vl_malloc(3 << 20);
	ok(big != NULL && fake.live_bytes >= (3u << 20), "3 MiB malloc maps it");
	size_t before = fake.live_maps;
	vl_free(big);
	is_uint(fake.live_maps, before - 1, "free of a large block unmaps it");
	fake.maps_left = 0;
	vl_errno = 0;
	ok(vl_malloc(1 << 20) == NULL && vl_errno == ENOMEM,
	   "out of memory: NULL and ENOMEM");
	fake.maps_left = -1;
	ok(fake.live_maps >= live, "bookkeeping sane");
}

/* ---------------------------------------------------------------- threads */

static void *thread_worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	int bad = 0;
	void *keep[16] = { 0 };

	for (int i = 0; i < 3000; i++) {
		size_t n = (size_t)(i * 13 + id) % 700 + 1;
		char *p = vl_malloc(n);
		if (!p) {
			bad++;
			continue;
		}
		memset(p, (int)id, n);
		int k = i % 16;
		if (keep[k]) {
			char *q = keep[k];
			if (q[0] != (char)id)
				bad++;
			vl_free(q);
		}
		keep[k] = p;
	}
	for (int k = 0; k < 16; k++)
		vl_free(keep[k]);
	return (void *)(uintptr_t)bad;
}

static void test_threads(void)
{
	pthread_t t[4];
	uintptr_t bad = 0;

	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_worker, (void *)(i + 1));
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (uintptr_t)r;
	}
	is_uint(bad, 0, "4 threads malloc/free concurrently without corruption");
}

int main(void)
{
	test_engine_basics();
	test_engine_large();
	test_engine_memalign();
	test_engine_oom();
	test_engine_random();
	test_double_free();
	test_public();
	test_threads();
	return done_testing();
}
