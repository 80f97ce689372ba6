/*
 * Inside the x86-64 profiler sources (behind <arch/prof.h>): the pieces
 * arch/x86_64/prof.c dispatches to. Each start/stop pair is called only
 * by prof.c, in thread context with interrupts on, one source at a time.
 *
 *   pc/prof_rtc.c     rtc and rtc-nmi (CMOS periodic interrupt, IRQ 8)
 *   prof_pmc.c        pmc (counter overflow NMI)
 *   prof_timer.c      timer (local APIC timer, scheduler tick kept at HZ)
 */
#ifndef ARCH_PROF_SRC_H
#define ARCH_PROF_SRC_H

#include <arch/interrupt.h>
#include <kernel/types.h>

#define PROF_PROBE_HZ 10000             /* prof.c: the timed timer's rate */

#define PROF_PROBE_PAIRS_MAX 8          /* prof_probe_timer's pairs at most */

/*
 * prof.c: what a timer interrupt costs a ~1 ms kernel spin it
 * interrupts, all in (what the host does for it outside the guest's view
 * included): the cheapest per-interrupt slowdown over `pairs` pairs of
 * spins with this CPU's timer stopped and firing at PROF_PROBE_HZ
 * (1..PROF_PROBE_PAIRS_MAX); 0 if no interrupt came. Stops this CPU's
 * tick meanwhile and restarts it. Thread context.
 */
uint64_t prof_probe_timer(unsigned pairs);
/* prof.c: timer probes arch_prof_irq_cycles() has run since boot (one per PROF_PROBE_KEEP_S at most). */
uint64_t prof_timer_probes(void);

/* Boot: install the IRQ 8 and VEC_IPI_PROF handlers; whether the RTC is usable. */
bool prof_rtc_init(const char **why);
/* Whether the RTC may be delivered as NMI here (prof_rtc_init() said yes). */
bool prof_rtc_nmi_usable(const char **why);
/*
 * Start the RTC periodic interrupt, as a fixed IRQ (nmi false) or an NMI.
 * EBUSY if a driver task has subscribed to IRQ 8 (its handler replaced ours).
 */
errno_t prof_rtc_start(bool nmi, unsigned hz, unsigned *hz_out);
/* Stop it: IRQ 8's IOAPIC entry and registers A and B as found. */
void prof_rtc_stop(void);
/* NMI part of rtc-nmi (NMI context): true if the NMI was the RTC's or a broadcast. */
bool prof_rtc_nmi(int_frame_t *f, bool prof_ipi);

/*
 * Boot: detect usable counters (never assumed). True and *what = what was
 * found ("Intel architectural perfmon v4, ..."), or false and *what = why not.
 */
bool prof_pmc_probe(const char **what);
/* Arm the cycle counter on every CPU to overflow about hz times a second. */
errno_t prof_pmc_start(unsigned hz, unsigned *hz_out);
/* Disarm the counters and mask the LVT entries on every CPU. */
void prof_pmc_stop(void);
/* NMI context: true if this CPU's counter overflowed (re-armed, sample taken). */
bool prof_pmc_nmi(int_frame_t *f);
/* From this CPU's counter NMI: reload divisor times the period from now on. */
void prof_pmc_scale(unsigned divisor);

/* Run every CPU's local APIC timer for hz samples a second (tick kept at HZ). */
errno_t prof_timer_start(unsigned hz, unsigned *hz_out);
/* Put every CPU's local APIC timer back at the scheduler's rate. */
void prof_timer_stop(void);
/* From this CPU's timer interrupt: sample at 1/divisor of the rate asked for. */
void prof_timer_scale(unsigned divisor);

#endif
