/*
 * Call chains for the profiler: a frame-pointer walk over the interrupted
 * kernel stack and then the user stack, with reads that never fault (so
 * it runs in NMI context).
 */
#ifndef ARCH_CALLCHAIN_H
#define ARCH_CALLCHAIN_H

#include <kernel/types.h>

struct int_frame;

/*
 * Return addresses of the context interrupted by f, innermost first, at
 * most max of them into chain; *nkernel gets how many leading entries are
 * kernel addresses. NMI-safe: kernel frames are followed only inside the
 * running thread's kernel stack, user frames only through present user
 * pages of the current address space. Returns the number stored.
 */
size_t arch_callchain(const struct int_frame *f, uint64_t *chain, size_t max,
		      uint16_t *nkernel);

/*
 * Read the aligned user word at va of the current address space without
 * faulting (a page-table walk). NMI-safe. False if va is not a present
 * user page.
 */
bool arch_user_peek(uintptr_t va, uint64_t *out);

/*
 * The words at the top of the interrupted context's stack ([sp], [sp+8],
 * ...), at most max of them into top: where a function that has not set
 * up its frame (or has none) keeps its return address. NMI-safe, the same
 * bounds as arch_callchain. Returns the number stored.
 */
size_t arch_stack_top(const struct int_frame *f, uint64_t *top, size_t max);

#endif
