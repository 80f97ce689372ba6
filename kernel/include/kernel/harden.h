/*
 * Kernel hardening that is not x86-specific (kernel/harden.c): the stack
 * protector's canary and its failure path, and the boot report of what
 * the CPU hardening (<arch/harden.h>) turned on.
 */
#ifndef KERNEL_HARDEN_H
#define KERNEL_HARDEN_H

#include <kernel/types.h>

/* fault_catch_t.vector when __stack_chk_fail caught a smashed canary. */
#define FAULT_STACK_SMASH 256

/*
 * Choose the stack protector's canary for this boot (RDSEED, RDRAND or a
 * TSC mix). The very first step of kmain: every protected function entered
 * before it and returning after it would see the canary change.
 */
void harden_stack_guard_init(void);

/*
 * Of SMEP, SMAP and UMIP (HARDEN_* bits), those all n CPUs' features
 * have: what harden_init turns on. A CPU without SMAP cannot run
 * stac/clac, so one such CPU keeps SMAP off everywhere.
 */
unsigned harden_common(const unsigned *features, unsigned n);

/*
 * Once every CPU is up (before any user task): turn on, on each CPU,
 * the SMEP, SMAP and UMIP every CPU reported. Thread context.
 */
void harden_init(void);

/* Log what the hardening found: SMEP/SMAP/UMIP, the canary's source. */
void harden_report(void);

/* HARDEN_* bits for sysinfo system.hardening. Any context. */
uint64_t harden_flags(void);

/* The canary now in use (ktest only: it is never shown to user space). */
uintptr_t harden_stack_guard(void);

#endif
