/*
 * Sample sources of the profiler (x86-64 / PC), the arch side of
 * kernel/prof.h. Each source calls prof_hit(frame, source) on every CPU
 * at the rate asked for; the generic code decides what to keep.
 *
 *   pmc      counter overflow NMI via the LAPIC LVT performance entry
 *            (Intel architectural perfmon, AMD core or legacy counters)
 *   rtc      CMOS RTC periodic IRQ 8, rebroadcast by a fixed IPI
 *   rtc-nmi  CMOS RTC IRQ 8 delivered as NMI, rebroadcast by NMI IPI
 *   timer    each CPU's local APIC timer
 *
 * Lifecycle: arch_prof_init() once at boot; arch_prof_start() and
 * arch_prof_stop() in thread context with interrupts on and no locks
 * held, never concurrently (the generic code serialises them).
 */
#ifndef ARCH_PROF_H
#define ARCH_PROF_H

#include <abi/profile.h>
#include <kernel/types.h>

struct int_frame;

/* Probe what this machine has (PMCs are detected, never assumed); logs it. */
void arch_prof_init(void);

/*
 * The i-th source (0, 1, ...) in the kernel's order (probing, and the
 * default's choice) into *d, its flags with PROF_SRCF_AVAILABLE if usable
 * and what it says of itself or why not; false past the last. After
 * arch_prof_init.
 */
bool arch_prof_source_at(unsigned i, prof_source_desc_t *d);

/*
 * Whether source (PROF_SRC_*, not DEFAULT) is usable here; if not and
 * why is non-NULL, *why says why ("no architectural perfmon", ...).
 */
bool arch_prof_have(unsigned source, const char **why);

/*
 * Start source on every online CPU at about hz samples per second per
 * CPU; *hz_out gets the rate really used (rtc: a power of two 2..8192).
 * EOK, ENOTSUP (source absent), EINVAL (hz 0 or above PROF_HZ_MAX).
 */
errno_t arch_prof_start(unsigned source, unsigned hz, unsigned *hz_out);

/*
 * Stop the running source on every CPU and undo what it changed: the
 * RTC's registers A and B exactly as found, the LAPIC timer back at the
 * scheduler's rate, counters and LVT entries disarmed.
 */
void arch_prof_stop(void);

/*
 * From source's sampling interrupt or NMI on this CPU: make this CPU's
 * source fire about 1/divisor as often as it was started (divisor >= 1;
 * 1 = as started). True if the source can (timer, pmc); false if not
 * (rtc, rtc-nmi: one device serves every CPU), and the caller then skips
 * samples instead. NMI-safe, lock-free.
 */
bool arch_prof_scale(unsigned source, unsigned divisor);

/*
 * What one interrupt costs the code it interrupts on this CPU, in TSC
 * cycles, outside its handler: delivery, entry, end of interrupt and
 * return, and what the platform spends on it outside the guest's view
 * (an emulator's timer thread, its lock, leaving translated code). The
 * larger of an empty self-interrupt timed from sti (median of a few) and
 * the slowdown per interrupt of a spin under this CPU's timer at 10 kHz
 * (the cheapest of a few pairs of spins without and with it; about 10 ms,
 * the scheduler's tick stopped meanwhile; skipped while the timer is the
 * profiler's; reused for 30 s, so a burst of engine starts pays it once).
 * Thread context, interrupts on, no locks held; one caller at a time.
 */
uint64_t arch_prof_irq_cycles(void);

#endif
