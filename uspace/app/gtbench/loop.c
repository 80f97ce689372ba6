/*
 * The loop of gtbench (gtbench -l): a tight loop of three small calls of
 * different lengths, the ground truth of sampling without aliasing
 * (test/gtloop.t). A sampler with an exact period locks onto such a loop:
 * under -icount every period is the same number of instructions, so the
 * samples keep landing on the same few instructions of it. Like work.c it
 * calls nothing outside itself, so its host build runs the same
 * instructions under callgrind.
 */
#include "gtbench.h"

#define GT_NOINLINE __attribute__((noinline, noclone))

uint32_t gt_tiny(uint32_t x);
uint32_t gt_small(uint32_t x);
uint32_t gt_big(uint32_t x);
uint32_t gt_loop(uint32_t iters, uint32_t seed);

/* A few instructions. */
GT_NOINLINE uint32_t gt_tiny(uint32_t x)
{
	return x * 5u + 3u;
}

/* About twice gt_tiny's. */
GT_NOINLINE uint32_t gt_small(uint32_t x)
{
	x ^= x >> 7;
	x *= 0x2545f491u;
	x ^= x >> 11;
	return x + 0x9e37u;
}

uint32_t gt_turns = 5;          /* gt_big's turns (a variable: not folded) */

/* A short inner loop of gt_turns turns: several times gt_small's. */
GT_NOINLINE uint32_t gt_big(uint32_t x)
{
	uint32_t h = x;

	for (uint32_t i = 0; i < gt_turns; i++)
		h = (h << 3 | h >> 29) ^ (h * 0x01000193u);
	return h;
}

/* iters turns of the three calls, from seed. */
GT_NOINLINE uint32_t gt_loop(uint32_t iters, uint32_t seed)
{
	uint32_t h = seed;

	for (uint32_t i = 0; i < iters; i++) {
		h = gt_tiny(h);
		h = gt_small(h);
		h = gt_big(h);
	}
	return h;
}

uint32_t gt_loop_run(uint32_t rounds)
{
	uint32_t sum = 0;

	for (uint32_t r = 0; r < rounds; r++)
		sum = sum * 31u + gt_loop(100000, r + 1);
	return sum;
}
