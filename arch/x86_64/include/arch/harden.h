/*
 * CPU hardening features (arch/x86_64/harden.c): SMEP, SMAP and UMIP,
 * each turned on at run time when CPUID reports it; the hardware random
 * number instructions for the stack protector's canary; and the hooks the
 * hardening ktests need.
 */
#ifndef ARCH_HARDEN_H
#define ARCH_HARDEN_H

#include <kernel/types.h>

/*
 * Note what this CPU's CPUID reports (arch_harden_cpu_features) for
 * harden_init, which turns on what every CPU has once all are up. Every
 * CPU, during its bring-up, interrupts off, GS set.
 */
void arch_harden_cpu(void);

/* HARDEN_* bits CPU id reported at its bring-up (0 if it never came up). */
unsigned arch_harden_cpu_features(unsigned id);

/*
 * Turn on this CPU's SMEP, SMAP and UMIP as in features (HARDEN_* bits,
 * only what every CPU has: stac/clac then run on every CPU, arch_smap_on
 * set first). Every CPU once, interrupts off.
 */
void arch_harden_enable(unsigned features);

/* HARDEN_* bits (<abi/harden.h>): what this CPU has turned on and has. Any context. */
unsigned arch_harden_flags(void);

/* HARDEN_* bits CPUID reports for this CPU, whatever is turned on. Any context. */
unsigned arch_harden_cpuid(void);

/*
 * A 64-bit random value: RDSEED, else RDRAND (each retried a few times),
 * else a mix of TSC readings. *how gets the HARDEN_RDSEED/HARDEN_RDRAND
 * bit used, 0 for the TSC mix. Any context; callable before GS is set.
 */
uint64_t arch_random64(unsigned *how);

/* The TSC mix alone (the fallback), whatever the CPU has; for tests. */
uint64_t arch_random64_tsc(void);

/*
 * ktest hooks. arch_user_window_enter() loads the page-table root of a
 * user address space on this CPU (preemption must be off) and returns the
 * previous root for arch_user_window_leave(). arch_uaccess_allowed() says
 * whether RFLAGS.AC is set (user access open under SMAP).
 */
paddr_t arch_user_window_enter(paddr_t root);
void arch_user_window_leave(paddr_t prev);
bool arch_uaccess_allowed(void);
/*
 * ktest only: open / close user access (stac / clac) outside the copy
 * routine, to check that the entry stubs close it. No-ops without SMAP.
 */
void arch_test_uaccess_open(void);
void arch_test_uaccess_close(void);

#endif
