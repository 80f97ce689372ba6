/*
 * Unit tests for lib/bitmap.c: each function at word boundaries, clipping,
 * aligned runs, and a randomized cross-check against a plain bool array.
 */
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include <lib/bitmap.h>

#define MAXBITS 1000
#define NWORDS ((MAXBITS + 63) / 64)

static uint64_t storage[NWORDS + 1];  /* +1: a guard word */
#define GUARD 0x5a5a5a5a5a5a5a5aull

static void setup(bitmap_t *bm, size_t nbits, bool val)
{
	for (size_t i = 0; i <= NWORDS; i++)
		storage[i] = GUARD;
	bitmap_init(bm, storage, nbits, val);
}

/* Word after the last one the bitmap owns must be untouched. */
static bool guard_ok(size_t nbits)
{
	return storage[(nbits + 63) / 64] == GUARD;
}

static void test_storage_size(void)
{
	is_uint(bitmap_storage_size(0), 0, "storage for 0 bits");
	is_uint(bitmap_storage_size(1), 8, "storage for 1 bit");
	is_uint(bitmap_storage_size(63), 8, "storage for 63 bits");
	is_uint(bitmap_storage_size(64), 8, "storage for 64 bits");
	is_uint(bitmap_storage_size(65), 16, "storage for 65 bits");
	is_uint(bitmap_storage_size(128), 16, "storage for 128 bits");
	is_uint(bitmap_storage_size(SIZE_MAX), (SIZE_MAX / 64 + 1) * 8,
		"storage for SIZE_MAX bits does not overflow");
}

static void test_init(void)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 127, 128, 129 };
	bitmap_t bm;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		setup(&bm, n, true);
		is_uint(bitmap_count_range(&bm, 0, SIZE_MAX), n,
			"init(%zu, true): all bits set", n);
		ok(guard_ok(n) && bm.nbits == n && bm.words == storage,
		   "init(%zu, true): fields set, guard intact", n);
		ok(!bitmap_test(&bm, n), "init(%zu, true): bit nbits reads clear", n);
		setup(&bm, n, false);
		is_uint(bitmap_count_range(&bm, 0, SIZE_MAX), 0,
			"init(%zu, false): all bits clear", n);
		ok(guard_ok(n), "init(%zu, false): guard intact", n);
	}
}

static void test_single_bits(void)
{
	bitmap_t bm;

	setup(&bm, 65, false);
	bitmap_set(&bm, 0);
	bitmap_set(&bm, 63);
	bitmap_set(&bm, 64);
	ok(bitmap_test(&bm, 0) && bitmap_test(&bm, 63) && bitmap_test(&bm, 64),
	   "set bits 0, 63, 64 read back");
	ok(!bitmap_test(&bm, 1) && !bitmap_test(&bm, 62),
	   "neighbours stay clear");
	is_uint(storage[0], 0x8000000000000001ull, "word 0 layout (bit i%%64)");
	is_uint(storage[1], 1, "word 1 layout");
	bitmap_clear(&bm, 63);
	ok(!bitmap_test(&bm, 63) && bitmap_test(&bm, 64), "clear bit 63 only");
	bitmap_set(&bm, 65);
	bitmap_set(&bm, 1000);
	is_uint(storage[1], 1, "set past nbits is ignored");
	ok(!bitmap_test(&bm, 65) && !bitmap_test(&bm, SIZE_MAX),
	   "test past nbits reads clear");
	bitmap_clear(&bm, 70);
	ok(guard_ok(65), "clear past nbits is ignored");
}

static void test_ranges(void)
{
	bitmap_t bm;

	setup(&bm, 200, false);
	bitmap_set_range(&bm, 60, 10);
	is_uint(bitmap_count_range(&bm, 0, 200), 10, "set_range across a word boundary");
	ok(!bitmap_test(&bm, 59) && bitmap_test(&bm, 60) &&
	   bitmap_test(&bm, 69) && !bitmap_test(&bm, 70), "set_range ends exact");
	is_uint(bitmap_count_range(&bm, 64, 6), 6, "count_range partial");
	is_uint(bitmap_count_range(&bm, 0, 64), 4, "count_range first word");
	is_uint(bitmap_count_range(&bm, 65, 0), 0, "count_range of 0 bits");

	bitmap_set_range(&bm, 0, 200);
	is_uint(bitmap_count_range(&bm, 0, 200), 200, "set_range whole bitmap");
	bitmap_clear_range(&bm, 64, 64);
	is_uint(bitmap_count_range(&bm, 0, 200), 136, "clear_range one full word");
	is_uint(storage[1], 0, "the cleared word is zero");
	bitmap_clear_range(&bm, 63, 2);
	ok(!bitmap_test(&bm, 63) && bitmap_test(&bm, 62), "clear_range of 2 bits");

	setup(&bm, 130, false);
	bitmap_set_range(&bm, 120, 1000);
	is_uint(bitmap_count_range(&bm, 0, SIZE_MAX), 10, "set_range clipped at nbits");
	ok(guard_ok(130), "clipped set_range leaves the guard");
	is_uint(storage[2] >> 2, 0, "bits past nbits in the last word stay clear");
	bitmap_set_range(&bm, 500, 10);
	bitmap_set_range(&bm, 125, SIZE_MAX);
	ok(guard_ok(130), "set_range starting past nbits / huge count");
	bitmap_clear_range(&bm, 0, SIZE_MAX);
	is_uint(bitmap_count_range(&bm, 0, SIZE_MAX), 0, "clear_range with SIZE_MAX count");
	is_uint(bitmap_count_range(&bm, SIZE_MAX, SIZE_MAX), 0,
		"count_range starting at SIZE_MAX");
}

static void test_find_clear(void)
{
	bitmap_t bm;

	setup(&bm, 130, true);
	is_uint(bitmap_find_clear(&bm, 0, 130), SIZE_MAX, "find_clear in a full bitmap");
	bitmap_clear(&bm, 64);
	is_uint(bitmap_find_clear(&bm, 0, 130), 64, "find_clear at a word start");
	is_uint(bitmap_find_clear(&bm, 64, 130), 64, "find_clear at start itself");
	is_uint(bitmap_find_clear(&bm, 65, 130), SIZE_MAX, "find_clear after the only one");
	is_uint(bitmap_find_clear(&bm, 0, 64), SIZE_MAX, "find_clear: limit is exclusive");
	is_uint(bitmap_find_clear(&bm, 0, 65), 64, "find_clear: limit just past");
	bitmap_clear(&bm, 129);
	is_uint(bitmap_find_clear(&bm, 65, SIZE_MAX), 129, "find_clear: last bit, limit clipped");
	bitmap_set(&bm, 129);
	is_uint(bitmap_find_clear(&bm, 65, SIZE_MAX), SIZE_MAX,
		"find_clear never returns bits past nbits");
	is_uint(bitmap_find_clear(&bm, 200, 300), SIZE_MAX, "find_clear start past nbits");
	is_uint(bitmap_find_clear(&bm, 10, 5), SIZE_MAX, "find_clear start > limit");
}

static void test_find_clear_run(void)
{
	bitmap_t bm;

	setup(&bm, 256, false);
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 256, 1), 0, "run of the whole bitmap");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 257, 1), SIZE_MAX, "run longer than bitmap");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 0, 1), SIZE_MAX, "count 0 is rejected");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 1, 3), SIZE_MAX, "align 3 is rejected");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 1, 0), SIZE_MAX, "align 0 is rejected");

	bitmap_set(&bm, 1);
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 1, 1), 0, "run of 1 at bit 0");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 2, 1), 2, "run of 2 skips set bit 1");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 2, 4), 4, "run of 2 aligned to 4");
	is_uint(bitmap_find_clear_run(&bm, 3, 256, 1, 2), 4, "start rounded up to align");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 64, 64), 64, "aligned word-sized run");

	bitmap_set_range(&bm, 0, 256);
	bitmap_clear_range(&bm, 60, 10);   /* clear [60, 70) */
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 10, 1), 60, "run straddling word boundary");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 11, 1), SIZE_MAX, "run one too long");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 6, 64), 64, "aligned run inside the hole");
	is_uint(bitmap_find_clear_run(&bm, 0, 256, 7, 64), SIZE_MAX, "aligned run too long");
	is_uint(bitmap_find_clear_run(&bm, 0, 69, 9, 1), 60, "run ending at limit");
	is_uint(bitmap_find_clear_run(&bm, 0, 68, 9, 1), SIZE_MAX, "run crossing limit");
	is_uint(bitmap_find_clear_run(&bm, 61, 256, 9, 1), 61, "run from start");
	is_uint(bitmap_find_clear_run(&bm, 62, 256, 9, 1), SIZE_MAX, "run after start too short");

	setup(&bm, 65, true);
	bitmap_clear(&bm, 64);
	is_uint(bitmap_find_clear_run(&bm, 0, SIZE_MAX, 1, 64), 64, "run at the last bit of 65");
	is_uint(bitmap_find_clear_run(&bm, 0, SIZE_MAX, 2, 1), SIZE_MAX,
		"run must not extend past nbits");
	setup(&bm, 65, false);
	is_uint(bitmap_find_clear_run(&bm, 1, SIZE_MAX, 1, (size_t)1 << 63), SIZE_MAX,
		"huge alignment does not overflow");
}

/* ---------------------------------------------------------------- random */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static size_t naive_find_run(const bool *ref, size_t nbits, size_t start,
			     size_t limit, size_t count, size_t align)
{
	if (limit > nbits)
		limit = nbits;
	for (size_t p = (start + align - 1) / align * align;
	     p < limit && count <= limit - p; p += align) {
		size_t k = 0;
		while (k < count && !ref[p + k])
			k++;
		if (k == count)
			return p;
	}
	return SIZE_MAX;
}

static size_t naive_count(const bool *ref, size_t nbits, size_t start,
			  size_t count)
{
	size_t n = 0;

	for (size_t i = start; i < nbits && i - start < count; i++)
		n += ref[i];
	return n;
}

/* One random operation on both bm and ref; false on a mismatch. */
static bool random_step(bitmap_t *bm, bool *ref, size_t nbits)
{
	size_t a = rng() % (nbits + 8), b = rng() % (nbits + 8);
	size_t lim = rng() % (nbits + 8), i;

	switch (rng() % 7) {
	case 0:
		bitmap_set(bm, a);
		if (a < nbits)
			ref[a] = true;
		return true;
	case 1:
		bitmap_clear(bm, a);
		if (a < nbits)
			ref[a] = false;
		return true;
	case 2:
	case 3: {
		bool val = rng() & 1;
		if (val)
			bitmap_set_range(bm, a, b / 4);
		else
			bitmap_clear_range(bm, a, b / 4);
		for (i = a; i < nbits && i - a < b / 4; i++)
			ref[i] = val;
		return true;
	}
	case 4:
		return bitmap_count_range(bm, a, b) == naive_count(ref, nbits, a, b);
	case 5:
		i = naive_find_run(ref, nbits, a, lim, 1, 1);
		return bitmap_find_clear(bm, a, lim) == i;
	default: {
		size_t count = 1 + rng() % 12, align = (size_t)1 << (rng() % 7);
		i = naive_find_run(ref, nbits, a, lim, count, align);
		return bitmap_find_clear_run(bm, a, lim, count, align) == i;
	}
	}
}

static bool random_agree(const bitmap_t *bm, const bool *ref, size_t nbits)
{
	for (size_t i = 0; i < nbits; i++)
		if (bitmap_test(bm, i) != ref[i])
			return false;
	return true;
}

static void test_random(void)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 200, MAXBITS };
	static bool ref[MAXBITS];

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		bitmap_t bm;
		int step, bad = -1;

		setup(&bm, n, false);
		memset(ref, 0, sizeof(ref));
		for (step = 0; step < 20000 && bad < 0; step++) {
			if (!random_step(&bm, ref, n) || !random_agree(&bm, ref, n))
				bad = step;
		}
		ok(bad < 0 && guard_ok(n),
		   "random cross-check against bool array, %zu bits", n);
		if (bad >= 0)
			diag("first mismatch at step %d", bad);
	}
}

int main(void)
{
	test_storage_size();
	test_init();
	test_single_bits();
	test_ranges();
	test_find_clear();
	test_find_clear_run();
	test_random();
	return done_testing();
}
