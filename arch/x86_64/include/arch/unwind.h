/*
 * The one frame-pointer unwinder: panics and backtraces (ksym.c), the
 * exception reports and the profiler's call chains (arch_callchain) all walk
 * frames with arch_unwind(), each with its own bounds. Every function is
 * built with frame pointers: [fp] holds the caller's fp and [fp + 8] the
 * return address. The kernel entry paths push a fake frame (interrupted
 * pc, interrupted fp), so a walk that starts in the kernel reaches the
 * interrupted code.
 */
#ifndef ARCH_UNWIND_H
#define ARCH_UNWIND_H

#include <arch/cpu.h>
#include <kernel/types.h>

typedef struct unwind_bounds {
	uintptr_t sp;      /* frames lie in [sp, hi - 16]: at or above this */
	uintptr_t hi;      /* the top of the stack (exclusive) */
	uintptr_t lo;      /* a caller's fp in [lo, fp] is a loop: stop there */
	bool mapped;       /* check each frame is mapped before reading it */
	bool text;         /* return addresses in kernel text or user; stop at user */
} unwind_bounds_t;

/* Any mapped frame, each above the last: panics and backtraces. */
#define UNWIND_ANY ((unwind_bounds_t){ .sp = 1, .hi = UINTPTR_MAX, .lo = 0, .mapped = true })

/*
 * Walk frames from *fp within b, storing return addresses (innermost
 * first, at most max) in out; *fp is left at the next frame (the user
 * frame after the entry's fake frame). Stops at a null return address, a
 * frame out of bounds, misaligned or (b->mapped) unmapped, and after a
 * frame whose caller is not above it. NMI-safe when !b->mapped. Returns
 * the number stored.
 */
size_t arch_unwind(uintptr_t *fp, const unwind_bounds_t *b, uintptr_t *out, size_t max);

/* The return address and frame pointer of the function this is inlined into. */
static inline __attribute__((always_inline)) void arch_unwind_caller(uintptr_t *pc,
								      uintptr_t *fp)
{
	const uintptr_t *frame = (const uintptr_t *)read_rbp();

	*pc = frame[1];
	*fp = frame[0];
}

#endif
