/*
 * The kernel clock: a free-running cycle counter (the TSC) converted to
 * nanoseconds with a fixed-point multiplier; no division on the fast path.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <arch/time.h>
#include <kernel/types.h>

#define NSEC_PER_SEC 1000000000ull

/* Calibrate the cycle counter; after this the functions below are valid. */
void time_init(void);

/* Raw cycles. Any context, NMI included. */
static inline uint64_t time_cycles(void)
{
	return arch_cycles();
}

/* Cycles per second. */
uint64_t time_cycles_per_sec(void);
/* Convert a cycle count to nanoseconds. NMI-safe. */
uint64_t time_cycles_to_ns(uint64_t cycles);
/* Nanoseconds since the kernel started. NMI-safe. */
uint64_t time_ns(void);
/* Busy-wait at least us microseconds. */
void time_delay_us(uint64_t us);
/* Cycle counter value when the kernel was entered. */
uint64_t time_boot_cycles(void);
/* Set the wall clock: now is unix_seconds since 1970 (UTC). */
void time_set_wall(int64_t unix_seconds);
/* Nanoseconds since 1970-01-01 UTC. */
uint64_t time_wall_ns(void);
/* Record the kernel entry time (first thing in kmain). */
void time_mark_boot(void);

#endif
