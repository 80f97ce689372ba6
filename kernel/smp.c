/*
 * Generic SMP: the CPU table, cross-CPU function calls by fixed IPI and by
 * NMI, and stopping CPUs on panic (NMI handlers registered with the arch
 * dispatcher, arch/x86_64/nmi.c).
 *
 * Lock order: call_lock, then nmi_call_lock (a silent CPU's report);
 * nmi_call_lock is never held while taking call_lock.
 */
#include <arch/interrupt.h>
#include <arch/nmi.h>
#include <arch/smp.h>
#include <kernel/printk.h>
#include <kernel/ksym.h>
#include <kernel/cprof.h>
#include <kernel/prof.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/sched.h>
#include <kernel/tick.h>

#define LOG_PREFIX "smp"
#define NMI_CALL_TIMEOUT_NS 1000000000ull
#define CALL_RESEND_NS 1000000000ull    /* unanswered this long: IPI again */

cpu_t *cpus[MAX_CPUS];
unsigned cpu_count;
volatile unsigned cpus_online = 1;

static spinlock_t call_lock = SPINLOCK_INIT("smp_call");
static struct {
	cpu_fn_t fn;
	void *arg;
	volatile uint32_t gen;       /* this call's number; CPUs store it once run */
	volatile unsigned done;
	uint64_t resends;            /* call IPIs sent again to a silent CPU */
} call;
static uint64_t call_silent_pc[MAX_CPUS];   /* where a silent CPU was */

static spinlock_t nmi_call_lock = SPINLOCK_INIT("smp_nmi_call");
static volatile unsigned nmi_call_done;
static volatile unsigned cpus_stopped;

void smp_call_ipi(int_frame_t *f)
{
	cpu_t *c = cpu_current();
	uint32_t gen = __atomic_load_n(&call.gen, __ATOMIC_ACQUIRE);

	if (c->call_gen == gen)
		return;           /* a resent IPI for a call this CPU has taken */
	__atomic_store_n(&c->call_gen, gen, __ATOMIC_RELEASE);   /* taken */
	call.fn(call.arg);
	__atomic_add_fetch(&call.done, 1, __ATOMIC_RELEASE);
}

/* NMI call: note where this CPU was (for the silent-CPU log line). */
static void smp_call_where(void *arg)
{
	cpu_t *c = cpu_current();

	call_silent_pc[c->id] = c->nmi_frame ? frame_pc(c->nmi_frame) : 0;
}

/* Log a CPU that has not taken the call after ms, and where it is. */
static void smp_call_report(cpu_t *c, uint64_t ms)
{
	uint64_t off = 0, fn_off = 0;
	const char *sym = ksym_lookup(call_silent_pc[c->id], &off);
	const char *fn = ksym_lookup((uintptr_t)call.fn, &fn_off);

	pr_warn("call %s: CPU %u silent for %lu ms, at %s+%#lx; IPI sent again",
		fn ?: "?", c->id, ms, sym ?: "?", off);
}

/*
 * After CALL_RESEND_NS without every answer: find where the silent CPUs
 * are (an NMI reaches them with interrupts off), say so once a call, and
 * send those CPUs the IPI again (smp_call_ipi runs each call once).
 */
static void smp_call_resend(uint32_t gen, uint64_t waited_ns, bool report)
{
	if (report)
		smp_nmi_call_others(smp_call_where, NULL);
	for (unsigned i = 0; i < cpu_count; i++) {
		cpu_t *c = cpus[i];
		if (c == cpu_current() || !c->online ||
		    __atomic_load_n(&c->call_gen, __ATOMIC_ACQUIRE) == gen)
			continue;
		if (report)
			smp_call_report(c, waited_ns / 1000000);
		call.resends++;
		arch_send_call(c);
	}
}

/* Wait for the others to run call gen, sending again to CPUs not taking it. */
static void smp_call_wait(uint32_t gen, unsigned others)
{
	uint64_t start = time_ns(), next = start + CALL_RESEND_NS;
	bool reported = false;

	while (__atomic_load_n(&call.done, __ATOMIC_ACQUIRE) < others) {
		cpu_relax();
		uint64_t now = time_ns();
		if (now < next)
			continue;
		smp_call_resend(gen, now - start, !reported);
		reported = true;
		next = now + CALL_RESEND_NS;
	}
}

uint64_t smp_call_resends(void)
{
	return call.resends;
}

unsigned smp_call_all(cpu_fn_t fn, void *arg)
{
	assert(irq_enabled());
	/*
	 * Spin with interrupts on so requests from other CPUs are served, but
	 * never be preempted holding call_lock: a thread that ran next on this
	 * CPU and called here would spin forever if the holder is the idle
	 * thread (kstack_drain), which only runs when nothing else can.
	 */
	preempt_disable();
	while (!spin_trylock(&call_lock))
		cpu_relax();
	unsigned others = cpus_online - 1;
	call.fn = fn;
	call.arg = arg;
	call.done = 0;
	uint32_t gen = __atomic_add_fetch(&call.gen, 1, __ATOMIC_RELEASE);
	if (others)
		arch_send_call_others();
	uint64_t f = irq_save();
	cpu_current()->call_gen = gen;
	fn(arg);
	irq_restore(f);
	smp_call_wait(gen, others);
	spin_unlock(&call_lock);
	preempt_enable();
	return others + 1;
}

/* Post fn(arg) to c and send the NMI: arg first, fn (the claim) last. */
static void smp_nmi_post(cpu_t *c, cpu_fn_t fn, void *arg)
{
	c->nmi_arg = arg;
	__atomic_store_n(&c->nmi_fn, fn, __ATOMIC_RELEASE);
	__atomic_or_fetch(&c->nmi_pending, NMI_REASON_CALL, __ATOMIC_RELEASE);
	arch_send_nmi(c);
}

/*
 * Take back every post that no CPU has claimed; those CPUs will never run
 * it. Returns how many were taken back.
 */
static unsigned smp_nmi_revoke(unsigned me, cpu_fn_t fn, const bool *posted)
{
	unsigned revoked = 0;

	for (unsigned i = 0; i < cpu_count; i++) {
		cpu_fn_t want = fn;
		if (i != me && posted[i] &&
		    __atomic_compare_exchange_n(&cpus[i]->nmi_fn, &want, NULL, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			revoked++;
	}
	return revoked;
}

/*
 * After the timeout the posts not yet claimed are revoked, and the caller
 * waits only for the CPUs that claimed theirs (they are running fn now):
 * a late CPU can never run fn with an arg its caller has given up on.
 */
unsigned smp_nmi_call_others(cpu_fn_t fn, void *arg)
{
	uint64_t f = spin_lock_irqsave(&nmi_call_lock);
	unsigned me = cpu_id(), sent = 0;
	bool posted[MAX_CPUS] = { false };

	nmi_call_done = 0;
	for (unsigned i = 0; i < cpu_count; i++) {
		cpu_t *c = cpus[i];
		if (i == me || !c->online)
			continue;
		smp_nmi_post(c, fn, arg);
		posted[i] = true;
		sent++;
	}
	uint64_t end = time_ns() + NMI_CALL_TIMEOUT_NS;
	while (__atomic_load_n(&nmi_call_done, __ATOMIC_ACQUIRE) < sent && time_ns() < end)
		cpu_relax();
	sent -= smp_nmi_revoke(me, fn, posted);
	while (__atomic_load_n(&nmi_call_done, __ATOMIC_ACQUIRE) < sent)
		cpu_relax();
	unsigned done = nmi_call_done;
	spin_unlock_irqrestore(&nmi_call_lock, f);
	return done;
}

void smp_nmi_call_serve(cpu_t *c)
{
	cpu_fn_t fn = __atomic_exchange_n(&c->nmi_fn, NULL, __ATOMIC_ACQ_REL);

	if (!fn)
		return;       /* revoked after a timeout, or served already */
	fn(c->nmi_arg);
	__atomic_add_fetch(&nmi_call_done, 1, __ATOMIC_RELEASE);
}

void smp_stop_others(void)
{
	unsigned me = cpu_current() ? cpu_id() : 0;

	for (unsigned i = 0; i < cpu_count; i++)
		if (i != me && cpus[i]->online)
			__atomic_or_fetch(&cpus[i]->nmi_pending, NMI_REASON_PANIC, __ATOMIC_RELEASE);
	if (cpus_online > 1)
		arch_send_nmi_others();
	uint64_t end = time_ns() + 100000000;    /* 100 ms at most */
	while (cpus_stopped < cpus_online - 1 && time_ns() < end)
		cpu_relax();
}

unsigned smp_cpus_stopped(void)
{
	return cpus_stopped;
}

/* NMI_REASON_PANIC: stop this CPU for good. */
static bool smp_nmi_stop(int_frame_t *f, uint32_t pending)
{
	if (!(pending & NMI_REASON_PANIC))
		return false;
	__atomic_add_fetch(&cpus_stopped, 1, __ATOMIC_RELEASE);
	arch_cpu_stop();
}

/* NMI_REASON_CALL: run the call posted to this CPU, if still wanted. */
static bool smp_nmi_call(int_frame_t *f, uint32_t pending)
{
	if (!(pending & NMI_REASON_CALL))
		return false;
	cpu_t *c = cpu_current();
	c->nmi_frame = f;             /* what the NMI interrupted, for the call */
	smp_nmi_call_serve(c);
	c->nmi_frame = NULL;
	return true;
}

/* Last steps of every AP: scheduler, tick, announce, then idle. */
void smp_ap_main(cpu_t *c)
{
	cprof_cpu_init(c);
	sched_init_cpu();
	syscall_init_cpu();
	tick_start_cpu();
	__atomic_add_fetch(&cpus_online, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	sched_start();
}

void smp_init(void)
{
	arch_set_call_handler(smp_call_ipi);
	arch_nmi_register(smp_nmi_stop, NMI_REASON_PANIC, false);
	arch_nmi_register(smp_nmi_call, NMI_REASON_CALL, false);
	cpus[0]->online = true;
	arch_smp_boot();
	pr_info("%u CPUs online", cpus_online);
}
