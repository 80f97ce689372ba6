/*
 * Call chains for the profiler: a frame-pointer walk over the interrupted
 * kernel stack and then the user stack, with reads that never fault (so
 * it runs in NMI context). Implemented in arch/x86_64/unwind.c, with the
 * unwinder it uses (arch/unwind.h).
 */
#ifndef ARCH_CALLCHAIN_H
#define ARCH_CALLCHAIN_H

#include <kernel/types.h>

struct int_frame;
struct thread;

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

/*
 * A sample's stack in one call: arch_callchain (at most depth entries,
 * *nkernel kernel ones) into out, then arch_stack_top (at most top_max
 * words, *ntop of them) right after the chain; out holds depth +
 * top_max words (the top words pass through out[depth...]). One user page
 * walk serves both. NMI-safe. Returns the chain's length.
 */
size_t arch_sample_stack(const struct int_frame *f, uint64_t *out, size_t depth,
			 size_t top_max, uint16_t *nkernel, uint16_t *ntop);

/*
 * The user stack of t, the current thread, as it entered the kernel (its
 * system call or interrupt frame at the top of its kernel stack): the
 * user pc, then the return addresses of its frames, at most max entries.
 * Never faults (the same user reads as arch_callchain). Returns the
 * number stored; 0 if t is not in a system call from user mode.
 */
size_t arch_user_stack(const struct thread *t, uint64_t *out, size_t max);

/*
 * Where the current thread t waits or waited: the return addresses of its
 * kernel frames from the caller's up (*nkernel of them, within its kernel
 * stack), then its user stack as arch_user_stack gives it, at most max in
 * all. Interrupts off; never faults. Returns the number stored.
 */
size_t arch_thread_stack(const struct thread *t, uint64_t *out, size_t max, uint16_t *nkernel);

#endif
