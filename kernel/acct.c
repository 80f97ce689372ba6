/* Cycle accounting at kernel boundaries: see kernel/acct.h. */
#include <kernel/acct.h>
#include <kernel/acct_syscall.h>
#include <kernel/cprof.h>
#include <kernel/origin.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#define ACCT_MEASURE_ROUNDS 50
#define ACCT_MEASURE_BATCHES 21

uint64_t acct_entry_cost;

/* t's open system call, if any, ends: its cycles (the kernel's since its entry). */
static inline __attribute__((always_inline)) void acct_sys_done(cpu_t *c, thread_t *t)
{
	if (t->acct.sys_in) {
		c->acct.sys_cycles[t->acct.sys_in - 1] += t->acct.kernel_cycles - t->acct.sys_k0;
		t->acct.sys_in = 0;
	}
}

/*
 * In user mode since a return whose exit code stamped edge.exit: that code
 * ran in the kernel, for the thread still current. Moves c's last boundary
 * to the stamp, charging the thread's kernel time, and ends the system
 * call it returned from (acct_syscall_exit leaves it open for this);
 * returns that time (the caller gives it to acct_served with the rest).
 * The stamp also closed the return's interrupts-off section: into the
 * maximum (irqlat_ret_fold). Irqs off.
 */
static inline __attribute__((always_inline)) uint64_t acct_take_exit(cpu_t *c, uint64_t now)
{
	acct_cpu_t *a = &c->acct;
	uint64_t x = c->edge.exit, d = x - a->last;
	thread_t *t = c->current;

	c->edge.exit = 0;
	irqlat_ret_fold(&c->lat, x);
	if (a->mode != ACCT_USER || !t)
		return 0;
	if (!a->last || x <= a->last || x > now)
		d = 0;
	t->acct.kernel_cycles += d;
	a->busy += d;
	a->last += d;
	acct_sys_done(c, t);
	return d;
}

/*
 * Give the cycles up to now since c's last boundary to whoever had them;
 * entry: the boundary is an entry to the kernel (acct_served). Irqs off.
 */
static inline __attribute__((always_inline)) uint64_t acct_charge_at(cpu_t *c, uint64_t now,
								     bool entry)
{
	uint64_t dx = c->edge.exit ? acct_take_exit(c, now) : 0;   /* 0 unless user mode */
	acct_cpu_t *a = &c->acct;
	uint64_t d = a->last && now > a->last ? now - a->last : 0;
	thread_t *t = c->current;

	a->last = MAX(a->last, now);        /* an edge stamp older than the last boundary */
	if (a->mode == ACCT_IRQ) {
		a->irq += d;
		return d;
	}
	if (t && a->mode == ACCT_USER)      /* no thread yet in early boot */
		t->acct.user_cycles += d;
	else if (t)
		t->acct.kernel_cycles += d;
	if (t)
		acct_served(t, d + dx, entry);
	if (t == c->idle)
		a->idle += d;
	else
		a->busy += d;
	return d;
}

/* Give the cycles since c's last boundary to whoever had them. Irqs off. */
static inline __attribute__((always_inline)) uint64_t acct_charge(cpu_t *c)
{
	return acct_charge_at(c, time_cycles(), false);
}

/* Charge at an entry to the kernel, then switch c to mode. */
static void acct_to(acct_mode_t mode)
{
	uint64_t f = irq_save();
	cpu_t *c = cpu_current();

	if (c) {
		acct_charge_at(c, time_cycles(), true);
		c->acct.mode = mode;
	}
	irq_restore(f);
}

void acct_kernel_enter(void)
{
	acct_to(ACCT_KERNEL);
}

/* User time begins on c (its charge made): an open syscall ends. Irqs off. */
static inline __attribute__((always_inline)) void acct_user_begin(cpu_t *c)
{
	c->acct.mode = ACCT_USER;
	c->edge.exit = 0;
	acct_sys_done(c, c->current);       /* a syscall ends: its cycles */
}

/* A hardware interrupt's d cycles, just charged, go to its vector. Irqs off. */
static inline __attribute__((always_inline)) void acct_irq_count(cpu_t *c, unsigned vector,
								 uint64_t d)
{
	c->acct.interrupts++;
	c->acct.vec_count[vector % ACCT_VECTORS]++;
	c->acct.vec_cycles[vector % ACCT_VECTORS] += d;
}

void acct_user_enter(void)
{
	cpu_t *c = cpu_current();

	acct_charge(c);
	acct_user_begin(c);
}

void acct_switch(cpu_t *c, thread_t *prev, thread_t *next)
{
	acct_charge(c);               /* prev's, in the kernel */
	c->acct.switches++;
	next->acct.switches++;
	next->acct.last_switch_in = c->acct.last;
	prev->acct.last_switch_out = c->acct.last;
	if (next->acct.last_switch_out) {
		uint64_t off = c->acct.last - next->acct.last_switch_out;
		next->acct.off_cycles += off;
		next->acct.off_by[next->wait_why % WAIT_WHY_COUNT] += off;
	}
	if (next->cprof_clock)              /* the call profiler's clock, if any */
		cprof_switch_in(next);
}

void acct_irq_enter(uint64_t start)
{
	cpu_t *c = cpu_current();

	if (c) {
		acct_charge_at(c, start ? start : time_cycles(), true);
		c->acct.mode = ACCT_IRQ;
	}
}

void acct_irq_exit_user(unsigned vector)
{
	cpu_t *c = cpu_current();

	acct_irq_count(c, vector, acct_charge(c));
	acct_user_begin(c);                 /* as acct_user_enter */
}

void acct_irq_exit(unsigned vector)
{
	uint64_t f = irq_save();
	cpu_t *c = cpu_current();
	uint64_t d = c ? acct_charge(c) : 0;

	if (!c) {
		irq_restore(f);
		return;
	}
	acct_irq_count(c, vector, d);
	c->acct.mode = ACCT_KERNEL;   /* until the return to user mode, if any */
	irq_restore(f);
}

uint64_t acct_exc_enter(unsigned vector)
{
	uint64_t f = irq_save();
	cpu_t *c = cpu_current();
	uint64_t start = time_cycles();

	if (c) {
		acct_charge_at(c, time_cycles(), true);
		if (c->acct.mode == ACCT_USER)
			c->acct.mode = ACCT_KERNEL;
		c->acct.vec_count[vector % ACCT_VECTORS]++;
		start = c->acct.last;
	}
	irq_restore(f);
	return start;
}

void acct_exc_exit(unsigned vector, uint64_t start)
{
	uint64_t f = irq_save();
	cpu_t *c = cpu_current();

	if (c)
		c->acct.vec_cycles[vector % ACCT_VECTORS] += time_cycles() - start;
	irq_restore(f);
}

void acct_syscall_enter_slow(uint64_t nr)
{
	cpu_t *c = cpu_current();
	thread_t *t = c->current;
	uint64_t entry = c->edge.entry;

	acct_charge_at(c, entry ? entry : time_cycles(), true);   /* user time ends at the entry */
	c->acct.mode = ACCT_KERNEL;
	if (nr < SYS_COUNT)
		c->acct.sys_count[nr]++;      /* now: exit and the like never return */
	t->acct.sys_in = nr < SYS_COUNT ? nr + 1 : 0;
	t->acct.sys_k0 = t->acct.kernel_cycles;
}

void acct_thread_now(const thread_t *t, uint64_t *user, uint64_t *kernel)
{
	*user = t->acct.user_cycles;
	*kernel = t->acct.kernel_cycles;
	if (!t->on_cpu || t->cpu >= cpu_count || !cpus[t->cpu])
		return;
	const cpu_t *c = cpus[t->cpu];
	uint64_t last = __atomic_load_n(&c->acct.last, __ATOMIC_ACQUIRE);
	acct_mode_t mode = c->acct.mode;
	uint64_t now = time_cycles();
	if (c->current != t || !last || now <= last || mode == ACCT_IRQ)
		return;
	if (mode == ACCT_USER)
		*user += now - last;
	else
		*kernel += now - last;
}

/*
 * Cycles of n entry/exit charges as a syscall makes them: an entry that
 * takes its own stamp and the last exit's, then the return (the stamps
 * made here, as the entry and exit code would). Irqs off; the calling
 * thread's open syscall, if any, is left as it was.
 */
static uint64_t acct_time_rounds(cpu_t *c, int n)
{
	acct_mode_t mode = c->acct.mode;
	thread_t *t = c->current;
	uint64_t in = t->acct.sys_in, k0 = t->acct.sys_k0;
	uint64_t t0 = time_cycles();

	for (int i = 0; i < n; i++) {
		c->edge.entry = time_cycles();          /* as the entry code stamps it */
		acct_syscall_enter(SYS_NULL);
		acct_syscall_exit();
		c->edge.exit = time_cycles();
	}
	uint64_t cycles = time_cycles() - t0;
	acct_charge(c);                      /* the last exit's stamp */
	c->acct.mode = mode;
	t->acct.sys_in = in;
	t->acct.sys_k0 = k0;
	return cycles;
}

/*
 * The cost of one entry plus exit: the fastest of ACCT_MEASURE_BATCHES
 * batches (the host of an emulator may stop us in any one). Run by kmain
 * on the boot CPU; the syscall counts it made are taken back.
 */
void acct_measure(void)
{
	uint64_t f = irq_save();
	cpu_t *c = cpu_current();
	uint64_t count = c->acct.sys_count[SYS_NULL];
	uint64_t cycles = c->acct.sys_cycles[SYS_NULL];
	uint64_t best = UINT64_MAX;

	for (int b = 0; b < ACCT_MEASURE_BATCHES; b++)
		best = MIN(best, acct_time_rounds(c, ACCT_MEASURE_ROUNDS));
	acct_entry_cost = best / ACCT_MEASURE_ROUNDS;
	c->acct.sys_count[SYS_NULL] = count;     /* not real syscalls */
	c->acct.sys_cycles[SYS_NULL] = cycles;
	irq_restore(f);
}
