/*
 * Unit tests for kernel/prof/jitter.c, the timer source's random sampling
 * points: every gap within its spread and below 1.5 periods, the mean rate
 * exact (no drift, a handler's latency not added), the phase spread over a
 * short loop and over the scheduler's tick, the time of work the tick
 * wakes estimated without bias, a late deadline restarting instead of
 * catching up, a new period.
 */
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include <kernel/prof_jitter.h>

#define PERIOD 100000ull        /* cycles: 10 kHz on a 1 GHz clock */
#define DRAWS 100000
#define TICK (10 * PERIOD)      /* a scheduler tick of a tenth of the rate */

typedef unsigned long long ull;

/* Each gap within [period - spread/2, period + spread/2), below 1.5
 * periods; their mean is the period within 0.3%. */
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
	ok(j.spread == PERIOD / PROF_JITTER_DEN * PROF_JITTER_NUM,
	   "the spread is %d/%d of the period", PROF_JITTER_NUM, PROF_JITTER_DEN);
	ok(lo >= PERIOD - j.spread / 2 && hi < PERIOD + j.spread / 2 && hi < PERIOD * 3 / 2,
	   "every gap within +-spread/2, below 1.5 periods (%llu..%llu)", (ull)lo, (ull)hi);
	ok(hi - lo > j.spread * 99 / 100, "and the gaps fill that range (%llu of %llu)",
	   (ull)(hi - lo), (ull)j.spread);
	uint64_t mean = (now - 5000) / DRAWS;
	ok(mean * 1000 >= PERIOD * 997 && mean * 1000 <= PERIOD * 1003,
	   "%d gaps average the period within 0.3%% (%llu)", DRAWS, (ull)mean);
}

/* Late interrupts (each 300 cycles after its deadline) keep the rate. */
static void test_late_handler(void)
{
	prof_jitter_t j;
	uint64_t now = 0;

	prof_jitter_start(&j, 7, PERIOD, now);
	for (int i = 0; i < DRAWS; i++)
		now += prof_jitter_next(&j, now + 300, PERIOD / 4) + 300;
	uint64_t mean = now / DRAWS;
	ok(mean * 1000 >= PERIOD * 997 && mean * 1000 <= PERIOD * 1003,
	   "a handler's latency is not added to the gaps (mean %llu)", (ull)mean);
}

/* A loop of 32 cycles: a fixed period (a multiple of 32) samples one point
 * of it; random gaps reach every point about equally often. */
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

/*
 * The scheduler's tick every 10 periods, from the same start, wakes work
 * that runs the first quarter period after it (2.5% of the time). The
 * samples' phase against the tick is uniform (each tenth of the tick gets
 * a tenth of them), and their weights (the gaps) charge the woken work
 * 2.5% within 0.1 points. A grid of deadlines (the jitter of ea8551b:
 * +-1/16 period around start + k periods) charged it 5.1%, and with the
 * tick on the same interrupt as the sample 0%.
 */
static void test_tick_phase(void)
{
	prof_jitter_t j;
	unsigned bins[10];
	uint64_t now = 0, in_work = 0, min = UINT64_MAX, max = 0;

	memset(bins, 0, sizeof(bins));
	prof_jitter_start(&j, 1234, PERIOD, now);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t gap = prof_jitter_next(&j, now, PERIOD / 4);

		now += gap;
		bins[now % TICK / PERIOD]++;
		if (now % TICK < PERIOD / 4)
			in_work += gap;
	}
	for (int i = 0; i < 10; i++) {
		min = bins[i] < min ? bins[i] : min;
		max = bins[i] > max ? bins[i] : max;
	}
	ok(min * 100 >= DRAWS / 10 * 95 && max * 100 <= DRAWS / 10 * 105,
	   "each tenth of the tick gets a tenth of %d samples +-5%% (%llu..%llu)", DRAWS,
	   (ull)min, (ull)max);
	uint64_t centi = in_work * 10000 / now;        /* hundredths of a percent */
	ok(centi >= 240 && centi <= 260,
	   "the work the tick wakes weighs 2.5%% +-0.1 of the time (%llu.%02llu%%)",
	   (ull)(centi / 100), (ull)(centi % 100));
}

/* Past its deadline (interrupts were off 10 periods) the next interrupt
 * comes min cycles from now, not in a burst of catch-up ones. */
static void test_late_restart(void)
{
	prof_jitter_t j;

	prof_jitter_start(&j, 3, PERIOD, 0);
	uint64_t span = prof_jitter_next(&j, 10 * PERIOD, PERIOD / 4);
	ok(span == PERIOD / 4 && j.deadline == 10 * PERIOD + PERIOD / 4,
	   "a deadline long past restarts a quarter period from now (%llu)", (ull)span);
	span = prof_jitter_next(&j, 10 * PERIOD + PERIOD / 4, PERIOD / 4);
	ok(span >= PERIOD - j.spread / 2 && span < PERIOD + j.spread / 2,
	   "and the gaps go on from there (%llu)", (ull)span);
}

/* A new period (the throttle) starts its gaps at now with its spread. */
static void test_new_period(void)
{
	prof_jitter_t j;

	prof_jitter_start(&j, 0, PERIOD, 0);
	ok(j.state != 0, "seed 0 is replaced (xorshift stays at 0)");
	prof_jitter_period(&j, PERIOD * 4, 12345);
	uint64_t span = prof_jitter_next(&j, 12345, PERIOD);
	ok(j.spread == PERIOD * 4 / PROF_JITTER_DEN * PROF_JITTER_NUM &&
	   span >= PERIOD * 4 - j.spread / 2 && span < PERIOD * 4 + j.spread / 2,
	   "a new period: its own spread, from now (%llu)", (ull)span);
	prof_jitter_period(&j, 1ull << 40, 0);
	ok(j.spread == 0xffffffffu, "the spread stays below 2^32 for long periods");
}

int main(void)
{
	test_bounds_and_mean();
	test_late_handler();
	test_phase_spread();
	test_tick_phase();
	test_late_restart();
	test_new_period();
	return done_testing();
}
