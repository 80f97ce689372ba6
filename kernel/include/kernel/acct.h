/*
 * CPU time accounting in TSC cycles, charged at every boundary: kernel
 * entry from user mode, return to user mode, and context switch. Each
 * CPU remembers the TSC of its last boundary; the cycles since then go to
 * the running thread's user or kernel counter.
 */
#ifndef KERNEL_ACCT_H
#define KERNEL_ACCT_H

#include <kernel/cpu.h>

struct thread;

/* Entering the kernel from user mode: charge user time. */
void acct_kernel_enter(void);
/* Returning to user mode: charge kernel time. */
void acct_user_enter(void);
/* Switching threads on c: charge prev's kernel time. Interrupts off. */
void acct_switch(cpu_t *c, struct thread *prev, struct thread *next);

#endif
