/*
 * xorshift64* (Vigna 2016): a small, fast pseudo-random generator for
 * code that needs cheap unpredictable numbers, not secrets (the timer's
 * sampling jitter, the fuzzer's choices). Freestanding, header only.
 */
#ifndef LIB_XORSHIFT_H
#define LIB_XORSHIFT_H

#include <stdint.h>

/* Advance *state (never 0) and return the next 64 random bits. */
static inline uint64_t xorshift64s_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif
