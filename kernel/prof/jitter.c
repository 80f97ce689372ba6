/*
 * Random sampling points: the timer source's deadlines, uniform
 * independent gaps around the nominal period (see kernel/prof_jitter.h).
 * Called from the timer interrupt with interrupts off, on the CPU that
 * owns j; no locks, no allocation, multiplications and shifts only.
 */
#include <kernel/prof_jitter.h>
#include <lib/xorshift.h>

void prof_jitter_start(prof_jitter_t *j, uint64_t seed, uint64_t period, uint64_t now)
{
	j->state = seed ? seed : 0x9e3779b97f4a7c15ull;
	prof_jitter_period(j, period, now);
}

void prof_jitter_period(prof_jitter_t *j, uint64_t period, uint64_t now)
{
	j->period = period;
	j->spread = period / PROF_JITTER_DEN * PROF_JITTER_NUM;
	if (j->spread > 0xffffffffu)            /* jitter_below draws below 2^32 */
		j->spread = 0xffffffffu;
	j->deadline = now;
}

uint64_t prof_jitter_rand(prof_jitter_t *j)
{
	return xorshift64s_next(&j->state);
}

/* A draw in [0, n) (n < 2^32): the high half of a 32x32-bit product. */
static uint64_t jitter_below(prof_jitter_t *j, uint64_t n)
{
	return ((prof_jitter_rand(j) >> 32) * (n & 0xffffffffu)) >> 32;
}

uint64_t prof_jitter_next(prof_jitter_t *j, uint64_t now, uint64_t min)
{
	j->deadline += j->period - j->spread / 2 + jitter_below(j, j->spread);
	if ((int64_t)(j->deadline - now) < (int64_t)min)
		j->deadline = now + min;
	return j->deadline - now;
}
