/*
 * CPU time accounting in TSC cycles, charged at every boundary: kernel
 * entry and exit (syscall, interrupt, exception) and context switch.
 * Each CPU keeps the TSC of its last boundary and a mode; at a boundary
 * the cycles since then go to the running thread's user or kernel count
 * (and the CPU's busy or, for its idle thread, idle count), or to the
 * CPU's interrupt count and the vector's. Exceptions are work for the
 * thread (its kernel time) and are also counted per vector; syscalls are
 * counted per number with the kernel cycles their threads spent in them.
 * Every function takes care of interrupts itself (NMI-safe: no; NMIs are
 * not accounted).
 */
#ifndef KERNEL_ACCT_H
#define KERNEL_ACCT_H

#include <kernel/cpu.h>

struct thread;

/* Entering the kernel from user mode: charge user time. */
void acct_kernel_enter(void);
/* Returning to user mode: charge kernel time (and end a syscall). Interrupts off. */
void acct_user_enter(void);
/*
 * Returning to user mode from a system call, whose exit code stamps
 * edge.exit just before sysret: the kernel time up to that stamp, and the
 * system call's cycles, are charged at the CPU's next boundary (one TSC
 * read and one charge fewer per call). c is this CPU; interrupts off.
 */
static inline void acct_syscall_exit_on(cpu_t *c)
{
	c->acct.mode = ACCT_USER;
}

/* acct_syscall_exit_on this CPU. Interrupts off. */
static inline void acct_syscall_exit(void)
{
	acct_syscall_exit_on(cpu_current());
}
/* Switching threads on c: charge prev's kernel time (c->current is still prev). Interrupts off. */
void acct_switch(cpu_t *c, struct thread *prev, struct thread *next);

/*
 * A hardware interrupt begins (from user or kernel mode); it began at TSC
 * start (the gate's stamp), or now if 0. Interrupts off.
 */
void acct_irq_enter(uint64_t start);
/* It ends: its cycles go to the CPU's interrupt time and vector. */
void acct_irq_exit(unsigned vector);
/*
 * It ends and returns straight to user mode (nothing to do first): its
 * cycles as acct_irq_exit's, then user time, in one charge where
 * acct_irq_exit and acct_user_enter made two. Irqs off.
 */
void acct_irq_exit_user(unsigned vector);
/* An exception begins: counted now; returns its start TSC. */
uint64_t acct_exc_enter(unsigned vector);
/* It was handled: the cycles since start go to the vector. */
void acct_exc_exit(unsigned vector, uint64_t start);
/*
 * Syscall nr begins (counted now). Its cycles, the thread's kernel cycles
 * until it returns to user mode, are added at the return (acct_user_enter)
 * or, from the exit stamp, at the next boundary (acct_syscall_exit).
 * Interrupts off (the syscall entry enables them after it). The
 * dispatcher calls acct_syscall_enter (acct_syscall.h), which charges the
 * common case inline, calls this for the rest and says which it was.
 */
void acct_syscall_enter_slow(uint64_t nr);

/*
 * t's user and kernel cycles as of now: its counts plus, if it is running,
 * the cycles since its CPU's last boundary (read racily from another CPU:
 * off by at most the segment charged meanwhile).
 */
void acct_thread_now(const struct thread *t, uint64_t *user, uint64_t *kernel);

/*
 * Cycles one kernel entry plus exit costs the accounting (measured at
 * boot by acct_measure()).
 */
extern uint64_t acct_entry_cost;
void acct_measure(void);

#endif
