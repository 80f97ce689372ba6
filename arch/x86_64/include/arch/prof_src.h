/*
 * Inside the x86-64 profiler sources (behind <arch/prof.h>): each source
 * file defines one prof_source_t (or two) with PROF_SOURCE, which puts it
 * in the .prof_sources section; arch/x86_64/prof.c finds them there, in
 * the order of their rank, and dispatches through them: adding a source
 * is its file and its PROF_SRC_* id (abi/profile.h).
 *
 *   pc/prof_rtc.c     rtc and rtc-nmi (CMOS periodic interrupt, IRQ 8)
 *   prof_pmc.c        pmc (counter overflow NMI)
 *   prof_timer.c      timer (local APIC timer, scheduler tick kept at HZ)
 */
#ifndef ARCH_PROF_SRC_H
#define ARCH_PROF_SRC_H

#include <abi/profile.h>
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

/*
 * One sample source, as its file describes it to prof.c. probe runs once
 * at boot (thread context; earlier entries of prof_sources first): true if
 * usable, *what then a description or NULL; false with *what = why not.
 * start arms it on every CPU at about hz samples a second (*hz_out: the
 * rate it runs at) and stop disarms it, thread context, interrupts on,
 * one source at a time. nmi (NMI context, may be NULL) says whether the
 * NMI was this source's (prof_ipi: a broadcast flagged NMI_REASON_PROF
 * came). scale (from the source's own interrupt, may be NULL) samples at
 * 1/divisor of the rate asked for.
 */
typedef struct prof_source {
	unsigned id;                               /* PROF_SRC_* */
	const char *name;                          /* < PROF_SRC_NAME_MAX chars */
	unsigned rank;                             /* probe and default order: lower first */
	unsigned flags;                            /* PROF_SRCF_* but AVAILABLE */
	bool (*probe)(const char **what);
	errno_t (*start)(unsigned hz, unsigned *hz_out);
	void (*stop)(void);
	bool (*nmi)(int_frame_t *f, bool prof_ipi);
	void (*scale)(unsigned divisor);
} prof_source_t;

/* Define source NAME (a prof_source_t initialiser follows) in .prof_sources. */
#define PROF_SOURCE(name)                                                        \
	static const prof_source_t prof_source_##name                            \
		__attribute__((used, section(".prof_sources"), aligned(8)))

/* The section's bounds (kernel.ld). */
extern const prof_source_t __prof_sources_start[], __prof_sources_end[];

#endif
