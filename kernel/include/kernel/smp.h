/*
 * Multiprocessor support: starting the other CPUs, cross-CPU calls through
 * fixed-vector IPIs and NMI IPIs.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <kernel/cpu.h>

struct int_frame;

/* Start every CPU the firmware lists; logs "smp: N CPUs online". */
void smp_init(void);

/*
 * Run fn(arg) on every online CPU (this one included) with interrupts off
 * and wait until all have finished. Must be called with interrupts enabled
 * (other CPUs' requests are served while waiting). Returns the number of
 * CPUs that ran it. The caller is not preempted until it returns.
 */
unsigned smp_call_all(cpu_fn_t fn, void *arg);

/*
 * How many times smp_call_all() sent its IPI again to a CPU that had not
 * answered within a second (each such call is logged once).
 */
uint64_t smp_call_resends(void);

/*
 * Run fn(arg) on every other online CPU from NMI context and wait for all.
 * fn must be NMI-safe (no locks, no allocation, no printing). Returns the
 * number of CPUs that ran it. A CPU that has not taken the call within
 * 1 s never runs it: the call is taken back.
 */
unsigned smp_nmi_call_others(cpu_fn_t fn, void *arg);

/* NMI_REASON_CALL on c (NMI context): run the posted call once, if any. */
void smp_nmi_call_serve(cpu_t *c);

/* Stop every other CPU with an NMI (panic). Safe from any context. */
void smp_stop_others(void);

/* How many CPUs smp_stop_others() has stopped so far. */
unsigned smp_cpus_stopped(void);

/* IPI handler for smp_call_all() requests. */
void smp_call_ipi(struct int_frame *f);

/* Last steps of an AP: tick, announce, idle. */
void smp_ap_main(cpu_t *c) __noreturn;

#endif
