/*
 * ktest: the profiler's throttle (kernel/prof/sample.c) budgets what the
 * sampled code loses, and the sources it can slow down run slower.
 *
 * The accounting is checked on sample traces shaped like the platforms
 * measured (tools/bench.sh prof): under TCG an interrupt costs the
 * interrupted code ~14 us outside prof_hit, which takes ~3 us, so at
 * 100 kHz the interrupts come back to back and the program gets nothing
 * while prof_hit itself takes under a fifth of the time (the old throttle
 * counted only that, and never throttled). Under a loaded host TCG
 * delivers a few thousand of 100,000 timer interrupts a second and runs
 * the program 60% slower (QEMU pays for the clock outside the guest): the
 * missing interrupts are charged as the periods they stood for, and the
 * rate falls to PROF_LATE_MIN_HZ and no lower. The slow-down is checked on the timer source
 * itself: scaled by 8 on every CPU, it delivers about an eighth of the
 * hits.
 */
#include <arch/cpu.h>
#include <arch/prof.h>
#include <kernel/tick.h>
#include <kernel/ktest.h>
#include <kernel/prof.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include "../prof/internal.h"

#define TRACE_SAMPLES 1000
#define SCALE_MS 200
#define SCALE_MAX_MS 5000
#define SCALE_MIN_TICKS 8
#define SCALE_DIV 8

typedef struct thr_trace {
	uint64_t hit, irq, gap;          /* cycles: in prof_hit, interrupt cost, exit to next entry */
	uint64_t cost, elapsed;          /* what the throttle charged, over how long */
} thr_trace_t;

/* Feed TRACE_SAMPLES samples through prof_throttle_loss; t->cost, t->elapsed. */
static void thr_run(thr_trace_t *t)
{
	uint64_t entry = 1000, exit = entry + t->hit, first = entry;

	t->cost = 0;
	for (unsigned i = 1; i < TRACE_SAMPLES; i++) {
		uint64_t next = exit + t->gap;
		t->cost += prof_throttle_loss(entry, exit, next, t->irq, t->hit * PROF_HIT_SPREAD);
		entry = next;
		exit = entry + t->hit;
	}
	t->elapsed = entry - first;
}

static uint64_t us_cycles(uint64_t us)
{
	return time_cycles_per_sec() * us / 1000000;
}

KTEST(prof_throttle_saturated, "prof throttle: interrupts back to back (TCG at 100 kHz) throttle")
{
	/* The gap is the interrupt's own cost: the program made no progress. */
	thr_trace_t t = { .hit = us_cycles(3), .irq = us_cycles(14), .gap = us_cycles(14) };

	thr_run(&t);
	uint64_t allowed = t.elapsed * PROF_BUDGET_DEFAULT / PROF_BUDGET_MAX;
	KT_CHECK(t.cost * 100 >= t.elapsed * 99, "charged %lu of %lu cycles, the program got none",
		 t.cost, t.elapsed);
	prof_throttle_t thr = { 1, 1 };
	prof_window_t w = { t.cost, t.elapsed, TRACE_SAMPLES, 0, 0 };
	prof_throttle_step(&thr, &w, PROF_BUDGET_DEFAULT);
	KT_CHECK(thr.divisor >= 4 && t.cost / thr.divisor <= allowed,
		 "divisor %u for cost %lu, allowed %lu", thr.divisor, t.cost, allowed);
	thr.divisor = PROF_THROTTLE_MAX_DIV;
	prof_throttle_step(&thr, &w, PROF_BUDGET_DEFAULT);
	KT_CHECK(thr.divisor == PROF_THROTTLE_MAX_DIV, "the divisor went past %u to %u",
		 PROF_THROTTLE_MAX_DIV, thr.divisor);
	return true;
}

KTEST(prof_throttle_cheap, "prof throttle: cheap sampling keeps its rate, the gap is not charged")
{
	/* KVM-like at 10 kHz: 1 us in prof_hit, 0.5 us interrupt, the rest the program's. */
	thr_trace_t t = { .hit = us_cycles(1), .irq = us_cycles(1) / 2, .gap = us_cycles(99) };

	thr_run(&t);
	uint64_t want = (TRACE_SAMPLES - 1) * (t.hit + t.irq);
	KT_CHECK(t.cost == want, "charged %lu, want %lu (prof_hit + interrupt only)", t.cost, want);
	prof_throttle_t one = { 1, 1 }, eight = { 8, 1 };
	prof_window_t w = { t.cost, t.elapsed, TRACE_SAMPLES, TRACE_SAMPLES, 1 };
	prof_throttle_step(&one, &w, PROF_BUDGET_DEFAULT);
	KT_CHECK(one.divisor == 1, "throttled at %lu of %lu cycles", t.cost, t.elapsed);
	prof_throttle_step(&eight, &w, PROF_BUDGET_DEFAULT);
	KT_CHECK(eight.divisor == 4, "divisor 8 became %u at %lu of %lu cycles", eight.divisor,
		 t.cost, t.elapsed);
	/* A gap shorter than the interrupt's cost is all the interrupt's. */
	KT_CHECK(prof_throttle_loss(0, 10, 15, 100, 320) == 15, "a short gap charged wrong");
	/* A host that took the CPU away for 10 ms inside prof_hit: charged the cap. */
	KT_CHECK(prof_throttle_loss(0, us_cycles(10000), us_cycles(10100), us_cycles(1),
				    us_cycles(32)) == us_cycles(32) + us_cycles(1),
		 "a preempted prof_hit charged wrong");
	return true;
}

/* Windows of 0.1 s of a clock asked for hz, of which `came` hits came, cheap ones. */
static void thr_late_run(prof_throttle_t *thr, unsigned hz, uint64_t came, unsigned windows)
{
	uint64_t el = time_cycles_per_sec() / 10;

	for (unsigned i = 0; i < windows; i++) {
		uint64_t due = hz / thr->divisor / 10;
		prof_window_t w = { MIN(came, due) * us_cycles(3), el, MIN(came, due), due,
				    hz / PROF_LATE_MIN_HZ };
		prof_throttle_step(thr, &w, PROF_BUDGET_DEFAULT);
	}
}

KTEST(prof_throttle_late, "prof throttle: a clock the platform cannot deliver slows to what came")
{
	/* At 100 kHz, 100 of each window's due come, each cheap: down to PROF_LATE_MIN_HZ, no lower. */
	uint64_t el = time_cycles_per_sec() / 10;
	uint32_t most = 100000 / PROF_LATE_MIN_HZ;
	prof_throttle_t thr = { 1, 1 };

	thr_late_run(&thr, 100000, 100, 1);
	KT_CHECK(thr.divisor >= 4 && thr.floor == thr.divisor, "divisor %u floor %u after one window",
		 thr.divisor, thr.floor);
	thr_late_run(&thr, 100000, 100, 5);
	KT_CHECK(thr.divisor == most && thr.floor == most, "divisor %u floor %u, want %u", thr.divisor,
		 thr.floor, most);
	/* At the floor all that is due comes, cheaply: the rate stays (the floor). */
	prof_window_t ok = { 500 * us_cycles(3) / 10, el, 500, 500, most };
	prof_throttle_step(&thr, &ok, PROF_BUDGET_DEFAULT);
	KT_CHECK(thr.divisor == most, "divisor %u after a good window at the floor", thr.divisor);
	/* Above the floor, a good cheap window halves; a 40% short one does not. */
	thr.divisor = 64;
	prof_throttle_step(&thr, &ok, PROF_BUDGET_DEFAULT);
	KT_CHECK(thr.divisor == 32, "divisor 64 became %u", thr.divisor);
	prof_window_t short_ = { 300 * us_cycles(3) / 10, el, 300, 500, most };
	prof_throttle_step(&thr, &short_, PROF_BUDGET_DEFAULT);
	KT_CHECK(thr.divisor == 32, "divisor 32 became %u with 300 of 500 due", thr.divisor);
	/*
	 * 10 kHz of which 70% comes: the 30% missing stood for 30 ms of the
	 * window, over the budget, so the clock halves (under TCG the missing
	 * interrupts are what the platform spent delivering the others).
	 */
	prof_throttle_t ten = { 1, 1 };
	thr_late_run(&ten, 10000, 700, 1);
	KT_CHECK(ten.divisor == 2 && ten.floor == 2, "divisor %u floor %u with 700 of 1000 due",
		 ten.divisor, ten.floor);
	/* A clock at PROF_LATE_MIN_HZ or less is never slowed for lateness (a loaded host loses a share of any). */
	prof_throttle_t fresh = { 1, 1 };
	thr_late_run(&fresh, PROF_LATE_MIN_HZ, 10, 3);
	KT_CHECK(fresh.divisor == 1, "divisor %u with 10 of %u due at %u Hz", fresh.divisor,
		 PROF_LATE_MIN_HZ / 10, PROF_LATE_MIN_HZ);
	return true;
}

static void thr_scale(void *arg)
{
	arch_prof_scale(PROF_SRC_TIMER, *(unsigned *)arg);
}

/* Every CPU's timer hits and scheduler ticks (sums). */
static void thr_counts(uint64_t *hits, uint64_t *ticks)
{
	*hits = *ticks = 0;
	for (unsigned i = 0; i < cpu_count; i++) {
		*hits += prof_hits[i][PROF_SRC_TIMER];
		*ticks += cpus[i]->ticks;
	}
}

/*
 * Timer hits and scheduler ticks of every CPU at divisor div, over
 * SCALE_MS or longer until SCALE_MIN_TICKS ticks came (a loaded host can
 * deliver a twentieth of the interrupts), SCALE_MAX_MS at most.
 */
static void thr_hits_at(unsigned div, uint64_t *hits, uint64_t *ticks)
{
	uint64_t h0, t0, h1, t1;

	smp_call_all(thr_scale, &div);
	thr_counts(&h0, &t0);
	time_delay_us(SCALE_MS * 1000);
	thr_counts(&h1, &t1);
	for (unsigned ms = SCALE_MS; t1 - t0 < SCALE_MIN_TICKS && ms < SCALE_MAX_MS; ms += 50) {
		time_delay_us(50 * 1000);
		thr_counts(&h1, &t1);
	}
	*hits = h1 - h0;
	*ticks = t1 - t0;
}

/*
 * Samples and scheduler ticks share one interrupt stream (prof_timer.c),
 * so however many interrupts a loaded emulator loses, hits are ticks x
 * hz / HZ, within a few either side of each change.
 */
static bool thr_ratio_ok(uint64_t hits, uint64_t ticks, unsigned hz, unsigned div)
{
	unsigned thz = tick_hz(), eff = hz / div;
	uint64_t want = ticks * eff / thz, tol = cpu_count * (4 * MAX(eff / thz, 1u) + 4);

	KT_CHECK(ticks > 0 && hits + tol >= want && hits <= want + tol,
		 "divisor %u: %lu hits for %lu ticks, want %lu +- %lu", div, hits, ticks, want, tol);
	return true;
}

KTEST(prof_throttle_scale, "prof throttle: the timer source fires 1/divisor as often")
{
	unsigned hz = tick_hz() * 16, got;
	uint64_t irq = arch_prof_irq_cycles(), hits[2], ticks[2];

	KT_CHECK(irq > 0 && irq < time_cycles_per_sec() / 1000, "an interrupt costs %lu cycles",
		 irq);
	KT_CHECK(arch_prof_start(PROF_SRC_TIMER, hz, &got) == EOK, "timer did not start");
	thr_hits_at(1, &hits[0], &ticks[0]);
	thr_hits_at(SCALE_DIV, &hits[1], &ticks[1]);
	arch_prof_stop();
	printk("# timer %u Hz: %lu hits / %lu ticks at divisor 1, %lu / %lu at %u; "
	       "an interrupt costs %lu cycles\n", hz, hits[0], ticks[0], hits[1], ticks[1],
	       SCALE_DIV, irq);
	return thr_ratio_ok(hits[0], ticks[0], hz, 1) &&
	       thr_ratio_ok(hits[1], ticks[1], hz, SCALE_DIV);
}
