/*
 * The profiler's timer source: every CPU's local APIC timer gives the
 * samples and, in place of the scheduler's own timer while a session
 * runs, the scheduler's ticks (the saved VEC_TIMER handler), HZ a second
 * whatever the sampling rate.
 *
 * One-shot (the default): each interrupt arms the next at the earlier of
 * two deadlines in TSC cycles, the next sample's and the next tick's.
 * Samples come at random points (kernel/prof_jitter.h: independent gaps
 * of 9/16 to 23/16 of the period), ticks on their exact grid, each on its
 * own interrupt: so the work a tick wakes (a sleeper, the profiler's own
 * reader) is sampled as often as its time says. With ticks shared out of
 * the sampling interrupts (as the periodic mode below must do), a tick
 * always came right after a sample, and work it woke that ended before
 * the next sample was never seen: on QEMU 10 -icount, 2 CPUs, a spinner
 * and sprofile -s timer -f 1000, the busy time besides the spinner had
 * 1.3% of the samples against 4.6% by the kernel's cycle accounting.
 *
 * Periodic under plain TCG (PLATFORM_TCG): there the host's scheduling
 * moves each interrupt by far more than any jitter (gaps of 0.1 to 13
 * periods measured), and every re-arm is a QEMU timer update that kicks
 * its main loop: a 4-CPU guest on 2 host cores took 11,840 samples
 * one-shot against 21,604 periodic in the same run. The timer then runs
 * at rate = max(hz, HZ) and one handler shares the interrupts out
 * Bresenham style: each adds hz to one accumulator and HZ to another;
 * whenever one reaches rate, rate is taken off it and a sample or a tick
 * is due. So over any `rate` interrupts there are exactly hz samples and
 * HZ ticks.
 *
 * The per-CPU state is written only by its CPU (under smp_call_all, with
 * interrupts off) and read by its own timer interrupt.
 */
#include <arch/apic.h>
#include <abi/platform.h>
#include <arch/prof_src.h>
#include <kernel/prof.h>
#include <kernel/platform.h>
#include <kernel/prof_jitter.h>
#include <kernel/smp.h>
#include <kernel/tick.h>
#include <kernel/time.h>

typedef struct prof_timer_cpu {
	unsigned rate;              /* periodic: interrupts per second; 0: not profiling */
	unsigned hz, tick_hz;       /* hz: samples a second now (throttle included) */
	unsigned asked;             /* samples a second the session asked for */
	uint64_t lapic_hz;          /* this CPU's timer ticks a second */
	uint64_t tsc_hz;            /* cycles a second (the deadlines' unit) */
	unsigned hit_acc, tick_acc; /* periodic: the Bresenham accumulators */
	bool jitter;                /* one-shot at random deadlines, else periodic */
	prof_jitter_t jit;          /* one-shot: the next sample's deadline */
	uint64_t tick_at, tick_period;  /* one-shot: the next tick's deadline */
} prof_timer_cpu_t;

static prof_timer_cpu_t timer_cpu[MAX_CPUS];
static irq_handler_t sched_tick_irq;     /* the VEC_TIMER handler found at start */

/* Arm the one-shot timer for the earlier of the two deadlines (at least
 * min cycles from now). */
static void prof_timer_arm_at(prof_timer_cpu_t *t, uint64_t now, uint64_t min)
{
	uint64_t at = (int64_t)(t->tick_at - t->jit.deadline) < 0 ? t->tick_at : t->jit.deadline;
	uint64_t span = (int64_t)(at - now) < (int64_t)min ? min : at - now;
	uint64_t count = span * t->lapic_hz / t->tsc_hz;

	lapic_timer_oneshot((uint32_t)MAX(MIN(count, (uint64_t)UINT32_MAX), 1ul));
}

/* The periodic timer at rate interrupts a second, the shares restarted. */
static void prof_timer_rate(prof_timer_cpu_t *t, unsigned rate)
{
	t->rate = rate;
	t->hit_acc = t->tick_acc = 0;
	lapic_timer_start(t->lapic_hz, rate);
}

/* Periodic VEC_TIMER while profiling: a sample and/or a tick when due. */
static void prof_timer_shared(prof_timer_cpu_t *t, int_frame_t *f)
{
	t->hit_acc += t->hz;
	if (t->hit_acc >= t->rate) {
		t->hit_acc -= t->rate;
		prof_hit(f, PROF_SRC_TIMER);
	}
	t->tick_acc += t->tick_hz;
	if (t->tick_acc >= t->rate) {
		t->tick_acc -= t->rate;
		sched_tick_irq(f);
	}
}

/*
 * One-shot VEC_TIMER while profiling: the sample if its deadline has come
 * (or is closer than the slack: the timer counts in coarser units than
 * the TSC), the tick if its has, then the next deadline. A tick late by
 * more than a period (interrupts were off) is not caught up. A sample
 * whose deadline fell inside the interrupts-off section that just ended
 * is charged to where that section began (irqlat_late_site), not to the
 * instruction it was delivered at: MINIX's interrupt-delay effect. The
 * periodic mode has no deadline to tell, and keeps the effect.
 */
static void prof_timer_oneshot(prof_timer_cpu_t *t, int_frame_t *f)
{
	uint64_t now = arch_cycles(), slack = t->jit.period / 64;

	if ((int64_t)(t->jit.deadline - now) <= (int64_t)slack) {
		uint64_t due = t->jit.deadline;
		prof_jitter_next(&t->jit, now, t->jit.period / 4);
		prof_hit_at(f, PROF_SRC_TIMER, irqlat_late_site(due));
	}
	if ((int64_t)(t->tick_at - now) <= (int64_t)slack) {
		t->tick_at += t->tick_period;
		if ((int64_t)(t->tick_at - now) < 0)
			t->tick_at = now + t->tick_period;
		sched_tick_irq(f);
	}
	prof_timer_arm_at(t, arch_cycles(), slack);
}

/* VEC_TIMER while profiling (the scheduler's own when not). */
static void prof_timer_irq(int_frame_t *f)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];

	if (!t->rate)
		sched_tick_irq(f);
	else if (t->jitter)
		prof_timer_oneshot(t, f);
	else
		prof_timer_shared(t, f);
}

/* One-shot: samples every tsc_hz / hz cycles on average from now. */
static void prof_timer_period(prof_timer_cpu_t *t, unsigned hz)
{
	uint64_t now = arch_cycles();

	prof_jitter_period(&t->jit, t->tsc_hz / hz, now);
	prof_jitter_next(&t->jit, now, t->jit.period / 4);
	prof_timer_arm_at(t, now, t->jit.period / 64);
}

/* On each CPU (smp_call_all, interrupts off): one-shot with its generator
 * seeded by the CPU and the TSC, or periodic under plain TCG at max(hz, HZ)
 * a second. */
static void prof_timer_arm(void *arg)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];
	unsigned hz = *(const unsigned *)arg;
	uint64_t now = arch_cycles();

	t->hz = t->asked = hz;
	t->tick_hz = tick_hz();
	t->lapic_hz = cpu_current()->arch.lapic_ticks_per_sec;
	t->tsc_hz = MAX(time_cycles_per_sec(), 1ul);
	t->jitter = platform_sampling() != PLATFORM_TCG;
	if (!t->jitter) {
		prof_timer_rate(t, MAX(hz, t->tick_hz));
		return;
	}
	prof_jitter_start(&t->jit, now ^ ((uint64_t)cpu_id() << 56), t->tsc_hz / hz, now);
	t->tick_period = t->tsc_hz / MAX(t->tick_hz, 1u);
	t->tick_at = now + t->tick_period;
	t->rate = MAX(hz, t->tick_hz);
	lapic_timer_oneshot_mode(VEC_TIMER);
	prof_timer_period(t, hz);
}

/*
 * From this CPU's timer interrupt (the throttle, through prof_hit): the
 * interrupt rate falls with the sampling rate, so skipped samples cost
 * the interrupted code nothing. The scheduler's tick stays at HZ.
 */
static void prof_timer_scale(unsigned divisor)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];
	unsigned hz = MAX(t->asked / MAX(divisor, 1u), 1u);

	if (!t->rate || hz == t->hz)
		return;
	t->hz = hz;
	if (t->jitter)
		prof_timer_period(t, hz);
	else if (MAX(hz, t->tick_hz) != t->rate)
		prof_timer_rate(t, MAX(hz, t->tick_hz));
	else
		t->hit_acc = t->tick_acc = 0;
}

/* On each CPU: back to the scheduler's rate, every interrupt a tick. */
static void prof_timer_disarm(void *arg)
{
	timer_cpu[cpu_id()].rate = 0;
	lapic_timer_start(cpu_current()->arch.lapic_ticks_per_sec, tick_hz());
}

/* Run every CPU's local APIC timer for hz samples a second (tick kept at HZ). */
static errno_t prof_timer_start(unsigned hz, unsigned *hz_out)
{
	irq_handler_t h = irq_get_handler(VEC_TIMER);

	if (h != prof_timer_irq) {
		sched_tick_irq = h;
		irq_set_handler(VEC_TIMER, prof_timer_irq);
	}
	smp_call_all(prof_timer_arm, &hz);
	*hz_out = hz;
	return EOK;
}

/* Put every CPU's local APIC timer back at the scheduler's rate. */
static void prof_timer_stop(void)
{
	smp_call_all(prof_timer_disarm, NULL);
	irq_set_handler(VEC_TIMER, sched_tick_irq);
}

/* Always there: every CPU has its local APIC timer. */
static bool prof_timer_probe(const char **what)
{
	*what = NULL;
	return true;
}

PROF_SOURCE(timer) = {
	.id = PROF_SRC_TIMER, .name = "timer", .rank = 40,
	.flags = PROF_SRCF_CLOCK | PROF_SRCF_OWED, .probe = prof_timer_probe,
	.start = prof_timer_start, .stop = prof_timer_stop,
	.scale = prof_timer_scale,
};
