/*
 * The scheduler tick: every CPU's local timer interrupt at tick_hz() a
 * second counts the tick, feeds profil's bins and the flight recorder's
 * samples and runs the scheduler's tick work (one-shot timers, time
 * slices).
 */
#include <arch/interrupt.h>
#include <arch/smp.h>
#include <kernel/cpu.h>
#include <kernel/profil.h>
#include <kernel/sched.h>
#include <kernel/tick.h>
#include <kernel/trace.h>

static unsigned hz = 100;

/*
 * The local timer tick. It ends with one cpu_relax (PAUSE), which costs
 * nothing here but ends this vCPU's turn under QEMU -icount: QEMU 7.2 runs
 * the vCPUs of an -icount guest round-robin on one thread and gives the
 * first vCPU of each round the whole budget up to the next timer deadline;
 * a vCPU spinning without PAUSE or HLT (a user loop, a yield loop) used
 * it up every round and the next vCPU got none, for ever (a bench thread
 * queued on CPU 1 never ran while CPU 0 spun). QEMU 8.0 splits the budget
 * fairly; on older ones this gives the rest of each tick to the others.
 */
static void tick_irq(int_frame_t *f)
{
	cpu_current()->ticks++;
	profil_hit(f);
	if (trace_recording)
		trace_tick(f);
	sched_tick();
	cpu_relax();
}

unsigned tick_hz(void)
{
	return hz;
}

void tick_init(unsigned rate)
{
	hz = rate;
	arch_set_timer_handler(tick_irq);
	tick_start_cpu();
}

void tick_start_cpu(void)
{
	arch_timer_init_cpu(hz);
}
