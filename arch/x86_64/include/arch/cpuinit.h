/* x86-64 CPU bring-up steps (arch/x86_64/cpu.c). */
#ifndef ARCH_CPUINIT_H
#define ARCH_CPUINIT_H

#include <arch/interrupt.h>
#include <kernel/cpu.h>

#define IST_STACK_SIZE (16 * 1024)

/* Boot CPU: per-CPU data, descriptor tables, COM1, boot information. */
void arch_early_init(void);
/*
 * Point GS at c (cpu_current()). An AP does it first thing: code built
 * with call profiling hooks reads its CPU through GS.
 */
void arch_cpu_set_gs(cpu_t *c);
/* Any CPU: GS, GDT/TSS with these IST stacks, IDT, features. */
void arch_cpu_init(cpu_t *c, const uint64_t ist_tops[IST_COUNT]);
/* Guarded IST stacks for another CPU. */
errno_t arch_alloc_ist(uint64_t tops[IST_COUNT]);

#endif
