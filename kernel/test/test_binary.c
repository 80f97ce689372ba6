/*
 * ktest: the binary cache's key. Two images with the same path and size
 * whose FNV-1a hashes collide (simulated: the first entry's hash is set to
 * the second image's) must still be two entries: the key is the content's
 * SHA-256, not FNV-1a.
 */
#include <kernel/binary.h>
#include <kernel/ktest.h>
#include <kernel/vm.h>
#include <lib/string.h>

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
		  binary_get_image("/ktest/collide", a, size, &ba) == EOK;

	if (ok) {
		uint64_t real = ba->hash;
		ba->hash = ktest_fnv(b, size);     /* as if the two collided */
		ok = binary_get_image("/ktest/collide", b, size, &bb) == EOK;
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
