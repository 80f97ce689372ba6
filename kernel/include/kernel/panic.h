/*
 * The two halves of a panic, for paths that print their own report in
 * between (the exception handler's register dump); panic() itself is in
 * <kernel/printk.h>.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <kernel/types.h>

/* Claim the panic and stop the other CPUs; a second panicking CPU stops. */
void panic_begin(void);

/* Report how many CPUs were stopped and halt (or fail the ktest run). */
void panic_end(void) __noreturn;

#endif
