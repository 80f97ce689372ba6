/*
 * Fault injection (README "Fault injection"; Linux's failslab is the
 * model). Kernel command line:
 *
 *   failslab=N    fail every N-th kmalloc
 *   failframe=N   fail every N-th frame allocation
 *   failcopy=N    fail every N-th user copy (copy_from_user/copy_to_user)
 *   ...=N,once    fail only the N-th one
 *   failinj.task=NAME   only calls by tasks named NAME count
 *
 * Only calls made by user tasks' threads count (system calls, faults,
 * interrupts taken while they run): kernel threads and the boot never
 * see an injected failure. A failed kmalloc returns NULL, a failed frame
 * allocation ENOMEM, a failed copy EFAULT. Every system call during
 * which a failure was injected must return success or ENOMEM, ELIMIT or
 * EFAULT; other results are counted and logged ("failinj: ..."). The
 * counts are in sysinfo (failinj.*).
 */
#ifndef KERNEL_FAILINJ_H
#define KERNEL_FAILINJ_H

#include <kernel/types.h>

typedef enum failinj_kind {
	FAILINJ_SLAB, FAILINJ_FRAME, FAILINJ_COPY, FAILINJ_KINDS
} failinj_kind_t;

/* Read the switches from the command line; after task_init(). */
void failinj_init(void);
/* Set by failinj_init() when a switch is on; read-only afterwards. */
extern bool failinj_armed;

/* failinj_hit() once armed. */
bool failinj_hit_armed(failinj_kind_t kind);
/* failinj_mark() once armed. */
uint32_t failinj_mark_armed(void);
/* failinj_syscall_done() once armed. */
void failinj_syscall_check(uint64_t nr, uint32_t mark, int64_t r);

/*
 * Whether this call of kind must fail (and count it). Any context,
 * lock-free; unarmed (every boot without a switch) one inline test.
 */
static inline bool failinj_hit(failinj_kind_t kind)
{
	return __builtin_expect(failinj_armed, 0) && failinj_hit_armed(kind);
}

/* The calling thread's injected failures so far (before a system call). */
static inline uint32_t failinj_mark(void)
{
	return __builtin_expect(failinj_armed, 0) ? failinj_mark_armed() : 0;
}

/* Check a system call's result r against the failures injected since mark. */
static inline void failinj_syscall_done(uint64_t nr, uint32_t mark, int64_t r)
{
	if (__builtin_expect(failinj_armed, 0))
		failinj_syscall_check(nr, mark, r);
}
/* sysinfo: failures injected, and syscall results after them. */
uint64_t failinj_injected(void);
uint64_t failinj_reached(void);
uint64_t failinj_absorbed(void);
uint64_t failinj_other(void);

#endif
