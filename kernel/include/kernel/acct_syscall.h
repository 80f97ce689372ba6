/*
 * The system call's accounting entry, inline in the dispatcher: the
 * common case charged in one step (kernel/acct.c has the rest), and the
 * charge to a served call's origin that every charge makes.
 */
#ifndef KERNEL_ACCT_SYSCALL_H
#define KERNEL_ACCT_SYSCALL_H

#include <kernel/acct.h>
#include <kernel/cpu.h>
#include <kernel/task.h>
#include <kernel/thread.h>

/*
 * t serves a call (origin.h): its d cycles are also work done for the
 * call's origin; after the answer (ending) this boundary is the last. At
 * an entry to the kernel (entry, a constant where inlined) it is also
 * the last if another thread answered the call (gone holds ~its id):
 * every way a thread stops running its own code (a system call, an
 * interrupt, an exception) is an entry, and the return to user mode and
 * the switch, which are on the IPC fast path, need not look.
 * Irqs off; atomics, as other CPUs add to the same tasks. No calls: a
 * call here makes every inlined charge save registers.
 */
static inline __attribute__((always_inline)) void acct_served(thread_t *t, uint64_t d,
							      bool entry)
{
	origin_serve_t *s = &t->serve;

	if (__builtin_expect(!s->task, 1))
		return;
	__atomic_add_fetch(&s->task->acct.imposed_cycles, d, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->task->acct.served_cycles, d, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->count->cycles, d, __ATOMIC_RELAXED);
	if (entry && __builtin_expect(__atomic_load_n(&s->gone, __ATOMIC_RELAXED) ==
				      ~__atomic_load_n(&s->rec.call, __ATOMIC_RELAXED), 0)) {
		__atomic_store_n(&s->rec.call, 0, __ATOMIC_RELAXED);   /* answered elsewhere */
		s->ending = true;
	}
	if (s->ending && !s->unref) {        /* its reference: dropped by the thread */
		s->unref = s->task;
		s->task = NULL;
		s->ending = false;
	}
}

/*
 * The common entry: from user mode after a system call's return, both
 * edge stamps fresh and in order. Then the return's kernel tail
 * (last..exit) and the user time (exit..entry) are charged here at once,
 * with the call t serves, if any, as acct_charge_at would (t is never c's
 * idle thread: that makes no system calls), and the return's
 * interrupts-off section goes into the maximum. Returns false, having changed
 * nothing, when any of that does not hold. Irqs off.
 */
static inline __attribute__((always_inline)) bool acct_syscall_fast(cpu_t *c, thread_t *t,
								    uint64_t nr)
{
	acct_cpu_t *a = &c->acct;
	uint64_t e = c->edge.entry, x = c->edge.exit, l = a->last;

	/* l is set: the first ACCT_USER follows a charge (acct_charge_at sets it) */
	if (__builtin_expect(a->mode != ACCT_USER || x <= l || e < x || nr >= SYS_COUNT, 0))
		return false;
	uint64_t k = t->acct.kernel_cycles + x - l;

	t->acct.kernel_cycles = k;
	a->sys_slot[t->acct.sys_in] += k - t->acct.sys_k0;   /* the call it returned from */
	irqlat_ret_fold(&c->lat, x);
	t->acct.user_cycles += e - x;
	a->busy += e - l;
	acct_served(t, e - l, true);
	a->last = e;
	c->edge.exit = 0;
	a->mode = ACCT_KERNEL;
	a->sys_count[nr]++;
	t->acct.sys_in = nr + 1;
	t->acct.sys_k0 = k;
	return true;
}

/*
 * Syscall nr begins (see acct_syscall_enter_slow in acct.h): the common
 * case here (true: charged in one step), the rest out of line (false).
 * Interrupts off.
 */
static inline __attribute__((always_inline)) bool acct_syscall_enter(uint64_t nr)
{
	cpu_t *c = cpu_current();

	if (acct_syscall_fast(c, c->current, nr))
		return true;
	acct_syscall_enter_slow(nr);
	return false;
}

#endif
