/*
 * The profiler's timer source: every CPU's local APIC timer runs at
 * rate = max(hz, HZ) interrupts a second, and one handler (in place of the
 * scheduler's on VEC_TIMER while a session runs) shares the interrupts out
 * Bresenham style: each interrupt adds hz to one accumulator and HZ to
 * another; whenever one reaches rate, rate is taken off it and a sample
 * (prof_hit) or a scheduler tick (the saved VEC_TIMER handler) is due. So
 * over any `rate` interrupts there are exactly hz samples and HZ ticks,
 * and the scheduler keeps its HZ whatever the sampling rate.
 *
 * While a session runs the timer is one-shot: each interrupt arms the
 * next at a jittered deadline (kernel/prof_jitter.h: the nominal period
 * in TSC cycles +-6.25%, the deadlines on the nominal grid on average),
 * so the sampling points are random and no loop phase-locks with them;
 * each sample's weight (its cycles) keeps the time exact. Not under plain
 * TCG (PLATFORM_TCG): there the host's scheduling moves each interrupt by
 * far more than the jitter (gaps of 0.1 to 13 periods measured), and
 * every re-arm is a QEMU timer update that kicks its main loop: a 4-CPU
 * guest on 2 host cores took 11,840 samples one-shot against 21,604
 * periodic in the same run, so there the timer stays periodic.
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
	unsigned rate;              /* interrupts per second; 0: not profiling */
	unsigned hz, tick_hz;       /* hz: samples a second now (throttle included) */
	unsigned asked;             /* samples a second the session asked for */
	uint64_t lapic_hz;          /* this CPU's timer ticks a second */
	uint64_t tsc_hz;            /* cycles a second (the deadlines' unit) */
	unsigned hit_acc, tick_acc;
	bool jitter;                /* one-shot at jittered deadlines, else periodic */
	prof_jitter_t jit;          /* the next deadline */
} prof_timer_cpu_t;

static prof_timer_cpu_t timer_cpu[MAX_CPUS];
static irq_handler_t sched_tick_irq;     /* the VEC_TIMER handler found at start */

/* Arm the one-shot timer for the next jittered deadline (a quarter
 * period at least, when interrupts were off past the deadline); nothing
 * to do for the periodic timer. */
static void prof_timer_next(prof_timer_cpu_t *t)
{
	if (!t->jitter)
		return;
	uint64_t span = prof_jitter_next(&t->jit, arch_cycles(), t->jit.period / 4);
	uint64_t count = span * t->lapic_hz / t->tsc_hz;

	lapic_timer_oneshot((uint32_t)MIN(count, (uint64_t)UINT32_MAX));
}

/* A new interrupt rate on this CPU: the period in cycles, the next deadline. */
static void prof_timer_rate(prof_timer_cpu_t *t, unsigned rate)
{
	t->rate = rate;
	if (!t->jitter) {
		lapic_timer_start(t->lapic_hz, rate);
		return;
	}
	prof_jitter_period(&t->jit, t->tsc_hz / rate, arch_cycles());
	prof_timer_next(t);
}

/* VEC_TIMER while profiling: a sample and/or a scheduler tick when due. */
static void prof_timer_irq(int_frame_t *f)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];

	if (!t->rate) {
		sched_tick_irq(f);
		return;
	}
	prof_timer_next(t);
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

/* On each CPU (smp_call_all, interrupts off): the timer at max(hz, HZ)
 * a second, one-shot with its generator seeded by the CPU and the TSC
 * (periodic under plain TCG). */
static void prof_timer_arm(void *arg)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];
	unsigned hz = *(const unsigned *)arg;
	uint64_t now = arch_cycles();

	t->hz = t->asked = hz;
	t->tick_hz = tick_hz();
	t->hit_acc = t->tick_acc = 0;
	t->lapic_hz = cpu_current()->arch.lapic_ticks_per_sec;
	t->tsc_hz = MAX(time_cycles_per_sec(), 1ul);
	t->jitter = platform_sampling() != PLATFORM_TCG;
	prof_jitter_start(&t->jit, now ^ ((uint64_t)cpu_id() << 56), t->tsc_hz, now);
	if (t->jitter)
		lapic_timer_oneshot_mode(VEC_TIMER);
	prof_timer_rate(t, MAX(hz, t->tick_hz));
}

/*
 * From this CPU's timer interrupt (the throttle, through prof_hit): the
 * interrupt rate falls with the sampling rate, so skipped samples cost
 * the interrupted code nothing. The scheduler's tick stays at HZ.
 */
void prof_timer_scale(unsigned divisor)
{
	prof_timer_cpu_t *t = &timer_cpu[cpu_id()];
	unsigned hz = MAX(t->asked / MAX(divisor, 1u), 1u);

	if (!t->rate || hz == t->hz)
		return;
	t->hz = hz;
	t->hit_acc = t->tick_acc = 0;
	unsigned rate = MAX(hz, t->tick_hz);
	if (rate != t->rate)
		prof_timer_rate(t, rate);
}

/* On each CPU: back to the scheduler's rate, every interrupt a tick. */
static void prof_timer_disarm(void *arg)
{
	timer_cpu[cpu_id()].rate = 0;
	lapic_timer_start(cpu_current()->arch.lapic_ticks_per_sec, tick_hz());
}

errno_t prof_timer_start(unsigned hz, unsigned *hz_out)
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

void prof_timer_stop(void)
{
	smp_call_all(prof_timer_disarm, NULL);
	irq_set_handler(VEC_TIMER, sched_tick_irq);
}
