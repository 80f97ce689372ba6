/*
 * Bit arrays. Range operations work a 64-bit word at a time; bits past
 * nbits in the last word are kept clear.
 */
#include <lib/bitmap.h>

#define BITMAP_WORD_BITS 64u

static size_t bitmap_nwords(size_t nbits)
{
	return nbits / BITMAP_WORD_BITS + (nbits % BITMAP_WORD_BITS != 0);
}

/* Mask of bits [lo, hi) within one word, 0 <= lo < hi <= 64. */
static uint64_t bitmap_mask(unsigned lo, unsigned hi)
{
	uint64_t upper = hi == BITMAP_WORD_BITS ? ~0ull : (1ull << hi) - 1;

	return upper & ~((1ull << lo) - 1);
}

/* Portable popcount: __builtin_popcountll would need libgcc here. */
static unsigned bitmap_popcount(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* Clip [start, start+count) to the bitmap; returns the end (>= start). */
static size_t bitmap_clip(const bitmap_t *bm, size_t start, size_t count)
{
	if (start >= bm->nbits)
		return start;
	if (count > bm->nbits - start)
		return bm->nbits;
	return start + count;
}

size_t bitmap_storage_size(size_t nbits)
{
	return bitmap_nwords(nbits) * sizeof(uint64_t);
}

void bitmap_init(bitmap_t *bm, uint64_t *storage, size_t nbits, bool val)
{
	size_t n = bitmap_nwords(nbits);

	bm->words = storage;
	bm->nbits = nbits;
	for (size_t w = 0; w < n; w++)
		storage[w] = val ? ~0ull : 0;
	if (val && nbits % BITMAP_WORD_BITS != 0)
		storage[n - 1] = bitmap_mask(0, nbits % BITMAP_WORD_BITS);
}

bool bitmap_test(const bitmap_t *bm, size_t i)
{
	if (i >= bm->nbits)
		return false;
	return (bm->words[i / BITMAP_WORD_BITS] >> (i % BITMAP_WORD_BITS)) & 1;
}

void bitmap_set(bitmap_t *bm, size_t i)
{
	if (i < bm->nbits)
		bm->words[i / BITMAP_WORD_BITS] |= 1ull << (i % BITMAP_WORD_BITS);
}

void bitmap_clear(bitmap_t *bm, size_t i)
{
	if (i < bm->nbits)
		bm->words[i / BITMAP_WORD_BITS] &= ~(1ull << (i % BITMAP_WORD_BITS));
}

/*
 * Apply val to bits [start, end) (already clipped) one word at a time.
 */
static void bitmap_fill(bitmap_t *bm, size_t start, size_t end, bool val)
{
	while (start < end) {
		size_t w = start / BITMAP_WORD_BITS;
		unsigned lo = start % BITMAP_WORD_BITS;
		size_t left = end - start;
		unsigned hi = left >= BITMAP_WORD_BITS - lo ?
			BITMAP_WORD_BITS : lo + (unsigned)left;
		uint64_t m = bitmap_mask(lo, hi);

		if (val)
			bm->words[w] |= m;
		else
			bm->words[w] &= ~m;
		start += hi - lo;
	}
}

void bitmap_set_range(bitmap_t *bm, size_t start, size_t count)
{
	bitmap_fill(bm, start, bitmap_clip(bm, start, count), true);
}

void bitmap_clear_range(bitmap_t *bm, size_t start, size_t count)
{
	bitmap_fill(bm, start, bitmap_clip(bm, start, count), false);
}

size_t bitmap_count_range(const bitmap_t *bm, size_t start, size_t count)
{
	size_t end = bitmap_clip(bm, start, count);
	size_t total = 0;

	while (start < end) {
		unsigned lo = start % BITMAP_WORD_BITS;
		size_t left = end - start;
		unsigned hi = left >= BITMAP_WORD_BITS - lo ?
			BITMAP_WORD_BITS : lo + (unsigned)left;

		total += bitmap_popcount(bm->words[start / BITMAP_WORD_BITS] &
					 bitmap_mask(lo, hi));
		start += hi - lo;
	}
	return total;
}

/*
 * First index in [start, limit) whose bit equals want, or SIZE_MAX.
 * limit must already be clipped to nbits.
 */
static size_t bitmap_scan(const bitmap_t *bm, size_t start, size_t limit,
			  bool want)
{
	while (start < limit) {
		size_t w = start / BITMAP_WORD_BITS;
		unsigned lo = start % BITMAP_WORD_BITS;
		uint64_t word = want ? bm->words[w] : ~bm->words[w];

		word &= bitmap_mask(lo, BITMAP_WORD_BITS);
		if (word != 0) {
			size_t i = w * BITMAP_WORD_BITS +
				(size_t)__builtin_ctzll(word);
			return i < limit ? i : SIZE_MAX;
		}
		start = (w + 1) * BITMAP_WORD_BITS;
	}
	return SIZE_MAX;
}

size_t bitmap_find_clear(const bitmap_t *bm, size_t start, size_t limit)
{
	if (limit > bm->nbits)
		limit = bm->nbits;
	return bitmap_scan(bm, start, limit, false);
}

/* Round x up to a multiple of align (a power of two); SIZE_MAX on overflow. */
static size_t bitmap_align_up(size_t x, size_t align)
{
	if (x > SIZE_MAX - (align - 1))
		return SIZE_MAX;
	return (x + align - 1) & ~(align - 1);
}

size_t bitmap_find_clear_run(const bitmap_t *bm, size_t start, size_t limit,
			     size_t count, size_t align)
{
	if (count == 0 || align == 0 || (align & (align - 1)) != 0)
		return SIZE_MAX;
	if (limit > bm->nbits)
		limit = bm->nbits;

	size_t pos = start;
	while (pos < limit) {
		pos = bitmap_scan(bm, pos, limit, false);
		if (pos == SIZE_MAX)
			return SIZE_MAX;
		pos = bitmap_align_up(pos, align);
		if (pos >= limit || count > limit - pos)
			return SIZE_MAX;
		size_t set = bitmap_scan(bm, pos, pos + count, true);
		if (set == SIZE_MAX)
			return pos;
		pos = set + 1;
	}
	return SIZE_MAX;
}
