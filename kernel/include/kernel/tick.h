/*
 * The scheduler tick: each CPU's local timer at one rate (hz=, default
 * 100), whose interrupt drives the scheduler, one-shot timers and profil.
 */
#ifndef KERNEL_TICK_H
#define KERNEL_TICK_H

/* Per-CPU timer tick rate (HZ). */
unsigned tick_hz(void);

/* Set the rate and start the boot CPU's tick (boot, before smp_init). */
void tick_init(unsigned rate);

/* Start this CPU's tick at tick_hz() (each AP as it comes up). */
void tick_start_cpu(void);

#endif
