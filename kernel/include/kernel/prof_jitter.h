/*
 * Random sampling points (kernel/prof/jitter.c): each sampling period of a
 * source that can place its interrupts (the timer) is the nominal one plus
 * a jitter drawn uniformly from a spread around zero, so no loop can phase
 * lock with the sampler (Mytkowicz et al., PLDI 2010). Each deadline is a
 * point of the nominal grid (start + k periods) moved by its own jitter:
 * the jitter never accumulates, and a period lies within +-spread. The sample
 * weight (the cycles since the previous sample) keeps time exact. Per-CPU
 * state, written only by its CPU; pure code, so host unit tests run it.
 */
#ifndef KERNEL_PROF_JITTER_H
#define KERNEL_PROF_JITTER_H

#include <stdint.h>

/* One CPU's generator (xorshift64*) and deadline, in cycles. */
typedef struct prof_jitter {
	uint64_t state;
	uint64_t grid;          /* the current period's nominal end */
	uint64_t deadline;      /* grid + its jitter, in [-spread/2, spread/2) */
	uint64_t period;        /* the nominal period */
	uint64_t spread;
} prof_jitter_t;

/* The jitter's spread is period / PROF_JITTER_DIV (deadlines +-6.25% of a
 * period off the grid, periods +-12.5%). */
#define PROF_JITTER_DIV 8

/* Seed j (any seed; 0 is replaced) and start periods of period cycles at now. */
void prof_jitter_start(prof_jitter_t *j, uint64_t seed, uint64_t period, uint64_t now);
/* A new nominal period from now on (the throttle); the phase restarts at now. */
void prof_jitter_period(prof_jitter_t *j, uint64_t period, uint64_t now);
/* The next 64 random bits. */
uint64_t prof_jitter_rand(prof_jitter_t *j);
/*
 * Move the grid one period on, draw the deadline's jitter and return the
 * cycles from now to the deadline; at least min: a deadline already past
 * (interrupts were off) is not caught up, the grid restarts at now + min.
 */
uint64_t prof_jitter_next(prof_jitter_t *j, uint64_t now, uint64_t min);

#endif
