/* x86-64 time source: the TSC. */
#ifndef ARCH_TIME_H
#define ARCH_TIME_H

#include <arch/cpu.h>

/* The cycle counter behind the kernel clock. */
static inline uint64_t arch_cycles(void)
{
	return rdtsc();
}

/*
 * Cycle counter frequency in Hz: the hypervisor's timing leaf, CPUID leaf
 * 15h/16h checked against one short window, else one 10 ms HPET window,
 * else the PIT (arch/x86_64/tsc.c). Logs how it was found.
 */
uint64_t arch_cycles_calibrate(void);

/*
 * Cycles counted over ms milliseconds of a second, independent clock (PIT
 * channel 2), or 0 if it did not run. Busy-waits; boot and tests only.
 */
uint64_t arch_cycles_reference(unsigned ms);

#endif
