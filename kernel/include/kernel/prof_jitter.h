/*
 * Random sampling points (kernel/prof/jitter.c) for a source that can
 * place its interrupts (the timer). The gaps between deadlines are drawn
 * independently and uniformly from the nominal period +-PROF_JITTER_NUM/
 * (2 * PROF_JITTER_DEN) of it (a renewal process: each deadline follows
 * the previous deadline, not the handler, so the mean rate stays exact and
 * a handler's latency is not added). Wide, independent gaps spread the
 * sampling points' phase against any other periodic thing within a few
 * hundred samples: a loop (Mytkowicz et al., PLDI 2010: profilers that do
 * not sample at random points disagree), but also the scheduler's tick
 * and the work it wakes, which a grid of deadlines (however jittered)
 * keeps meeting at the same phase. With the phase uniform, a sample's
 * weight (the cycles since the previous one) is an unbiased estimate of
 * the time its place stands for (docs/ARCHITECTURE.md "Random sampling
 * points"). Gaps stay below 1.5 periods, so an on-time one never counts as
 * missed ticks. Per-CPU state, written only by its CPU; pure code, so host
 * unit tests run it.
 */
#ifndef KERNEL_PROF_JITTER_H
#define KERNEL_PROF_JITTER_H

#include <stdint.h>

/* One CPU's generator (xorshift64*) and deadline, in cycles. */
typedef struct prof_jitter {
	uint64_t state;
	uint64_t deadline;      /* the next sampling point */
	uint64_t period;        /* the nominal (mean) gap */
	uint64_t spread;        /* gaps lie in [period - spread/2, period + spread/2) */
} prof_jitter_t;

/* The spread is PROF_JITTER_NUM / PROF_JITTER_DEN of the period: gaps of
 * 9/16 to 23/16 of it. */
#define PROF_JITTER_NUM 7
#define PROF_JITTER_DEN 8

/* Seed j (any seed; 0 is replaced) and start gaps of period cycles at now. */
void prof_jitter_start(prof_jitter_t *j, uint64_t seed, uint64_t period, uint64_t now);
/* A new nominal period from now on (the throttle): the next gap starts at now. */
void prof_jitter_period(prof_jitter_t *j, uint64_t period, uint64_t now);
/* The next 64 random bits. */
uint64_t prof_jitter_rand(prof_jitter_t *j);
/*
 * Draw the next gap after the current deadline and return the cycles from
 * now to the new deadline; at least min: a deadline already past (the
 * interrupt came late: interrupts were off) is not caught up, the next
 * one is min cycles from now.
 */
uint64_t prof_jitter_next(prof_jitter_t *j, uint64_t now, uint64_t min);

#endif
