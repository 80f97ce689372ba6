/*
 * The unit tests' reproducible pseudo-random numbers: xorshift64 over a
 * state each test file seeds itself (so every file keeps its own sequence).
 */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <stdint.h>

/* Advance *state (never 0) and return the new value. */
static inline uint64_t rng_next(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
