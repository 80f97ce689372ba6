/*
 * Unit tests for kernel/prof/jitter.c, the timer source's random sampling
 * points: every period within its spread, deadlines on the nominal grid on
 * average (no drift), the phase spread over a short loop (no aliasing), a
 * late deadline restarting instead of catching up, a new period.
 */
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include <kernel/prof_jitter.h>

#define PERIOD 100000ull        /* cycles: 10 kHz on a 1 GHz clock */
#define DRAWS 100000

/* Each deadline within +-spread/2 of the grid, each period within
 * +-spread; the deadlines never drift off the grid. */
static void test_bounds_and_mean(void)
{
	prof_jitter_t j;
	uint64_t now = 5000, lo = UINT64_MAX, hi = 0;

	prof_jitter_start(&j, 42, PERIOD, now);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t span = prof_jitter_next(&j, now, PERIOD / 4);

		lo = span < lo ? span : lo;
		hi = span > hi ? span : hi;
		now += span;            /* the interrupt comes at the deadline */
	}
	ok(j.spread == PERIOD / PROF_JITTER_DIV, "the spread is 1/%d of the period",
	   PROF_JITTER_DIV);
	ok(lo >= PERIOD - j.spread && hi < PERIOD + j.spread,
	   "every period within +-spread (%llu..%llu)", (unsigned long long)lo,
	   (unsigned long long)hi);
	ok(hi - lo > j.spread * 18 / 10, "and the periods fill that range (%llu of %llu)",
	   (unsigned long long)(hi - lo), (unsigned long long)(2 * j.spread));
	int64_t drift = (int64_t)(now - 5000) - (int64_t)(PERIOD * DRAWS);
	ok(drift < 0 ? -drift <= (int64_t)j.spread / 2 : drift < (int64_t)j.spread / 2,
	   "%d periods end within spread/2 of the nominal grid (drift %lld cycles)",
	   DRAWS, (long long)drift);
}

/* Late interrupts (each 300 cycles after its deadline) do not drift either. */
static void test_late_handler(void)
{
	prof_jitter_t j;
	uint64_t now = 0;

	prof_jitter_start(&j, 7, PERIOD, now);
	for (int i = 0; i < DRAWS; i++)
		now += prof_jitter_next(&j, now + 300, PERIOD / 4) + 300;
	int64_t drift = (int64_t)now - (int64_t)(PERIOD * DRAWS);
	ok(drift < (int64_t)j.spread / 2 && drift >= -(int64_t)j.spread / 2,
	   "a handler's latency is not added to the periods (drift %lld cycles)",
	   (long long)drift);
}

/* A loop of 32 cycles: a fixed period (a multiple of 32) samples one point
 * of it; jittered deadlines reach every point about equally often. */
static void test_phase_spread(void)
{
	prof_jitter_t j;
	unsigned hits[32];
	uint64_t now = 0;
	unsigned min = UINT32_MAX, max = 0;

	memset(hits, 0, sizeof(hits));
	prof_jitter_start(&j, 99, PERIOD, now);
	for (int i = 0; i < 32000; i++) {
		now += prof_jitter_next(&j, now, PERIOD / 4);
		hits[now % 32]++;
	}
	for (int i = 0; i < 32; i++) {
		min = hits[i] < min ? hits[i] : min;
		max = hits[i] > max ? hits[i] : max;
	}
	ok(min > 800 && max < 1200, "the points of a 32-cycle loop each get 1000 +- 200 of "
	   "32000 samples (%u..%u)", min, max);
}

/* Past its deadline (interrupts were off 10 periods) the next interrupt
 * comes min cycles from now, not in a burst of catch-up ones. */
static void test_late_restart(void)
{
	prof_jitter_t j;

	prof_jitter_start(&j, 3, PERIOD, 0);
	uint64_t span = prof_jitter_next(&j, 10 * PERIOD, PERIOD / 4);
	ok(span == PERIOD / 4 && j.deadline == 10 * PERIOD + PERIOD / 4 &&
	   j.grid == j.deadline,
	   "a deadline long past restarts a quarter period from now (%llu)",
	   (unsigned long long)span);
	span = prof_jitter_next(&j, 10 * PERIOD + PERIOD / 4, PERIOD / 4);
	ok(span >= PERIOD - j.spread / 2 && span < PERIOD + j.spread / 2,
	   "and the grid goes on from there (%llu)", (unsigned long long)span);
}

/* A new period (the throttle) restarts the phase at now with its spread. */
static void test_new_period(void)
{
	prof_jitter_t j;

	prof_jitter_start(&j, 0, PERIOD, 0);
	ok(j.state != 0, "seed 0 is replaced (xorshift stays at 0)");
	prof_jitter_period(&j, PERIOD * 4, 12345);
	uint64_t span = prof_jitter_next(&j, 12345, PERIOD);
	ok(j.spread == PERIOD * 4 / PROF_JITTER_DIV && span >= PERIOD * 4 - j.spread / 2 &&
	   span < PERIOD * 4 + j.spread / 2, "a new period: its own spread, from now (%llu)",
	   (unsigned long long)span);
	prof_jitter_period(&j, 1ull << 40, 0);
	ok(j.spread == 0xffffffffu, "the spread stays below 2^32 for long periods");
}

int main(void)
{
	test_bounds_and_mean();
	test_late_handler();
	test_phase_spread();
	test_late_restart();
	test_new_period();
	return done_testing();
}
