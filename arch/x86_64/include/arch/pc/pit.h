/* The 8254 PIT, used only to measure the TSC at boot. */
#ifndef ARCH_PC_PIT_H
#define ARCH_PC_PIT_H

#include <stdint.h>

#define PIT_HZ 1193182
#define PIT_CALIBRATE_MS 50

/*
 * Count TSC cycles across ms milliseconds (at most 54) of PIT channel 2 in
 * one-shot mode, polled. Interrupts should be off. Returns 0 if the PIT
 * does not respond.
 */
uint64_t pit_measure_cycles(unsigned ms);

#endif
