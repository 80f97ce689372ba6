/*
 * The time stamp counter, read from user space (RDTSC: the kernel leaves
 * CR4.TSD clear, and system.tsc_hz says how fast it runs). The one place
 * user space writes the instruction (tools/structure.py's rule "rdtsc").
 * Neither reader is call-profiled (no_instrument_function), so a timed
 * stretch under CPROFILE=1 does not time the profiler's hooks for it.
 */
#ifndef LIBC_TSC_H
#define LIBC_TSC_H

#include <stdint.h>

/* The TSC, fenced (lfence either side): the code timed stays between two
 * reads. For timing. */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The TSC, not ordered against the loads and stores around it: a cheap
 * stamp (a seed, the call profiler's own clock). */
static inline __attribute__((always_inline, no_instrument_function)) uint64_t tsc_read_fast(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
