/* The HPET, used only as a stopwatch to measure the TSC at boot. */
#ifndef ARCH_PC_HPET_H
#define ARCH_PC_HPET_H

#include <stdint.h>

/*
 * TSC cycles per second over ms milliseconds of the HPET's main counter
 * (the ACPI HPET table's block), polled. Returns 0 without an HPET, with
 * `nohpet` on the command line (tests of the PIT path), with an
 * implausible period or a counter that does not run.
 */
uint64_t hpet_tsc_hz(unsigned ms);

#endif
