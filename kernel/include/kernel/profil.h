/*
 * The classic profiler (kernel/profil/profil.c): SYS_PROFILE and
 * SYS_GETPROFILE (abi/profil.h) and the hooks that count the profiled
 * task's user PCs: one per scheduler tick on any CPU (profil_hit from the
 * tick) and one per statistical profiler sample of the task (profil is
 * a consumer of the samples, prof_consumer_add: NMI context).
 *
 * The bin arithmetic (kernel/profil/calc.c) is pure and unit-tested
 * on the host.
 */
#ifndef KERNEL_PROFIL_H
#define KERNEL_PROFIL_H

#include <abi/errno.h>
#include <abi/profil.h>
#include <kernel/types.h>

struct int_frame;
struct task;

/*
 * Count the context interrupted by f on this CPU if it is the profiled
 * task in user mode. Interrupt or NMI context: lock-free, no allocation.
 */
void profil_hit(const struct int_frame *f);

/* Count the user PCs of the statistical profiler's samples too (boot). */
void profil_init(void);

/* Task t is exiting: stop profiling it (thread context). */
void profil_task_exited(struct task *t);

/*
 * Resolve and check a requested range against the text segment
 * [text_start, text_end): *start 0 means text_start, *end 0 means
 * text_end. Returns EOK with both resolved, or EFAULT (start > end, an
 * empty range, or outside the text segment).
 */
errno_t profil_range(uint64_t text_start, uint64_t text_end, uint64_t *start,
		     uint64_t *end);

/*
 * The geometry of a profile of [start, end) (start < end) into d: bin_sz
 * the smallest that covers the range with PROFIL_MAX_BINS bins, or
 * interval if larger; nr_bins the range over bin_sz rounded up. interval
 * 0 asks for the smallest. Returns EOK, or EFAULT when interval is
 * nonzero but too small (more than PROFIL_MAX_BINS bins). Pure.
 */
errno_t profil_geometry(uint64_t start, uint64_t end, uint64_t interval,
			struct profil_data *d);

/* The bin of pc in d, or -1 when pc is outside [start_addr, end_addr). Pure. */
int64_t profil_bin_of(const struct profil_data *d, uint64_t pc);

/*
 * Add one to *bin atomically unless it holds UINT64_MAX. Returns false
 * (and leaves it) when it would overflow. Lock-free, NMI-safe.
 */
bool profil_bin_inc(uint64_t *bin);

#endif
