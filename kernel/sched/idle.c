/*
 * How an idle CPU waits (see <kernel/idle.h>): poll the run queue for up
 * to the CPU's adaptive limit with interrupts on, then halt.
 *
 * A waker skips the IPI to a CPU that is polling (idle_poke_polling).
 * The two sides order their accesses so that no wake-up is lost: the
 * waker queues the thread, fences, then reads cpu_t.idle_polling; the
 * poller clears idle_polling (a sequentially consistent store: a full
 * fence on x86), then looks at its queue one last time before it halts.
 * Either the waker sees the flag clear and sends the IPI, or the poller
 * sees the thread.
 *
 * The poll loop has no PAUSE: under QEMU TCG each PAUSE leaves the vCPU's
 * execution loop and takes QEMU's global lock, which the other vCPUs
 * need for their own IPIs (measured: with PAUSE the poll saved nothing).
 */
#include <abi/platform.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <kernel/cmdline.h>
#include <kernel/cpu.h>
#include <kernel/idle.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/time.h>

#define LOG_PREFIX "idle"

typedef struct idle_cpu {
	uint64_t limit;             /* poll this many cycles before halting */
	uint64_t waits, poll_wakes, halts;
	uint64_t ipis_saved;        /* wake-ups that found this CPU polling */
} idle_cpu_t;

static idle_cpu_t idle_cpus[MAX_CPUS];
static uint64_t idle_max;           /* cycles; 0: never poll */
static uint64_t idle_grow_start;    /* cycles */
static bool idle_fixed;             /* ktest: poll the maximum every time */

static uint64_t idle_us_to_cycles(uint64_t us)
{
	return us * (time_cycles_per_sec() / 1000000);
}

/*
 * idlepoll=US, or the default: polling pays in a virtual machine, where an
 * IPI and a halted vCPU's wake-up go through the host, and not under
 * -icount; on hardware an IPI is cheap and a halt saves power.
 */
static uint64_t idle_max_us(void)
{
	uint64_t def = platform_virtual() && platform_sampling() != PLATFORM_TCG_ICOUNT
		       ? IDLE_POLL_MAX_US : 0;

	return cmdline_uint("idlepoll", 0, IDLE_POLL_LIMIT_US, def);
}

void idle_init(void)
{
	uint64_t us = idle_max_us();

	idle_grow_start = idle_us_to_cycles(IDLE_POLL_GROW_START_US);
	idle_max = idle_us_to_cycles(us);
	pr_info("an idle CPU polls for work up to %lu us before halting", us);
}

/*
 * Poll c's queue until work comes or cycle end, interrupts on. True if
 * there is work. Interrupts off on entry and at return. Preemption is off
 * meanwhile: an interrupt's exit must not switch to another thread while
 * the flag still says this CPU polls (its wakers would skip the IPI).
 */
static bool idle_poll(cpu_t *c, uint64_t end)
{
	c->preempt_count++;
	__atomic_store_n(&c->idle_polling, true, __ATOMIC_SEQ_CST);
	irq_enable();
	while (!sched_has_local_work(c) && time_cycles() < end)
		;
	irq_disable();
	__atomic_store_n(&c->idle_polling, false, __ATOMIC_SEQ_CST);
	c->preempt_count--;
	return sched_has_local_work(c);
}

void idle_wait(cpu_t *c)
{
	idle_cpu_t *ic = &idle_cpus[c->id];
	uint64_t max = __atomic_load_n(&idle_max, __ATOMIC_RELAXED);

	ic->waits++;
	if (!max && !ic->limit) {               /* polling off: nothing to adapt */
		arch_idle();
		ic->halts++;
		return;
	}
	uint64_t t0 = time_cycles();
	if (ic->limit && idle_poll(c, t0 + ic->limit)) {
		ic->poll_wakes++;
		irq_enable();
	} else {
		arch_idle();                    /* sti; hlt */
		ic->halts++;
	}
	ic->limit = __atomic_load_n(&idle_fixed, __ATOMIC_RELAXED) ? max :
		    idle_poll_adjust(ic->limit, time_cycles() - t0, max, idle_grow_start);
}

bool idle_poke_polling(cpu_t *c)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!c->idle_polling)
		return false;
	__atomic_fetch_add(&idle_cpus[c->id].ipis_saved, 1, __ATOMIC_RELAXED);
	return true;
}

uint64_t idle_poll_max(void)
{
	return __atomic_load_n(&idle_max, __ATOMIC_RELAXED);
}

void idle_poll_set_max(uint64_t cycles, bool fixed)
{
	__atomic_store_n(&idle_max, cycles, __ATOMIC_RELAXED);
	__atomic_store_n(&idle_fixed, fixed, __ATOMIC_RELAXED);
}

void idle_get_stats(uint32_t cpu, idle_stats_t *out)
{
	const idle_cpu_t *ic = &idle_cpus[cpu];

	out->waits = __atomic_load_n(&ic->waits, __ATOMIC_RELAXED);
	out->poll_wakes = __atomic_load_n(&ic->poll_wakes, __ATOMIC_RELAXED);
	out->halts = __atomic_load_n(&ic->halts, __ATOMIC_RELAXED);
	out->ipis_saved = __atomic_load_n(&ic->ipis_saved, __ATOMIC_RELAXED);
	out->limit_cycles = __atomic_load_n(&ic->limit, __ATOMIC_RELAXED);
}
