/*
 * Per-CPU data. Each CPU's cpu_t is reached through cpu_current() (the GS
 * base on x86-64; offset 0 points to the structure itself).
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <arch/percpu.h>
#include <kernel/types.h>

#define MAX_CPUS 64

/* NMI reasons, set in cpu_t.nmi_pending before an NMI IPI is sent. */
#define NMI_REASON_PANIC (1u << 0)
#define NMI_REASON_CALL (1u << 1)

typedef void (*cpu_fn_t)(void *arg);

typedef struct fault_catch fault_catch_t;

typedef struct cpu {
	struct cpu *self;            /* must stay first */
	uint32_t id;                 /* logical id, 0 = boot CPU */
	volatile bool online;
	volatile uint64_t ticks;     /* local timer interrupts */
	volatile uint32_t nmi_pending;
	volatile uint64_t nmi_count;
	volatile uint64_t nmi_unknown;
	cpu_fn_t nmi_fn;             /* NMI_REASON_CALL work */
	void *nmi_arg;
	fault_catch_t *fault_catch;  /* armed by fault_catch_run() */
	uintptr_t stack_bottom, stack_top;   /* current kernel stack */
	arch_cpu_t arch;
} cpu_t;

extern cpu_t *cpus[MAX_CPUS];
extern unsigned cpu_count;          /* CPUs found in the firmware tables */
extern volatile unsigned cpus_online;

/* This CPU's data. Valid in any context once the CPU is set up. */
static inline cpu_t *cpu_current(void)
{
	return arch_cpu_current();
}

/* Logical id of this CPU. */
static inline uint32_t cpu_id(void)
{
	return cpu_current()->id;
}

#endif
