/*
 * Bit arrays over caller-provided storage (no allocation). Bit i lives in
 * word i / 64, bit i % 64. Not synchronized: callers lock.
 */
#ifndef LIB_BITMAP_H
#define LIB_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bitmap {
	uint64_t *words;
	size_t nbits;
} bitmap_t;

/* Bytes of storage needed for nbits bits (a multiple of 8). */
size_t bitmap_storage_size(size_t nbits);

/* Attach storage (bitmap_storage_size(nbits) bytes) and set every bit to val. */
void bitmap_init(bitmap_t *bm, uint64_t *storage, size_t nbits, bool val);

/*
 * Read, set or clear bit i. An index >= nbits reads as clear and is
 * ignored by set/clear (the same clipping the range functions apply).
 */
bool bitmap_test(const bitmap_t *bm, size_t i);
void bitmap_set(bitmap_t *bm, size_t i);
void bitmap_clear(bitmap_t *bm, size_t i);

/* Set or clear bits [start, start+count); ranges past the end are clipped. */
void bitmap_set_range(bitmap_t *bm, size_t start, size_t count);
void bitmap_clear_range(bitmap_t *bm, size_t start, size_t count);

/* Number of set bits in [start, start+count), clipped to the bitmap. */
size_t bitmap_count_range(const bitmap_t *bm, size_t start, size_t count);

/*
 * Index of the first clear bit at or after start and before limit (limit is
 * clipped to nbits), or SIZE_MAX when there is none.
 */
size_t bitmap_find_clear(const bitmap_t *bm, size_t start, size_t limit);

/*
 * Start of the first run of count clear bits whose start is a multiple of
 * align (a power of two, >= 1), lying within [start, limit) (limit is
 * clipped to nbits); SIZE_MAX when there is none, and also when count is 0
 * or align is not a power of two.
 */
size_t bitmap_find_clear_run(const bitmap_t *bm, size_t start, size_t limit,
			     size_t count, size_t align);

#endif
