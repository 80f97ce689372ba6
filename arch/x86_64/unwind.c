/*
 * The frame-pointer unwinder (arch/unwind.h) and the profiler's call
 * chains built on it (arch/callchain.h). arch_unwind is the one loop that
 * panics, backtraces and call chains share, each with its bounds; a call
 * chain's kernel part is bounded to the live part of the interrupted
 * thread's kernel stack, crosses into the user stack through the fake
 * frame every kernel entry pushes, and the user part is read through the
 * page tables (arch_user_peek). Never call-profiled (Makefile): the NMI
 * sample path runs here.
 */
#include <arch/boot.h>
#include <arch/callchain.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/mm.h>
#include <arch/unwind.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>

/* Can ret be a return address of a kernel frame (kernel text, or user: the fake frame)? */
static bool unwind_kernel_ret(uintptr_t ret)
{
	return ret < USER_END ||
	       (ret >= (uintptr_t)__text_start && ret < (uintptr_t)__text_end);
}

/* Is the frame at fp within b (and mapped, if b asks)? */
static bool unwind_frame_ok(uintptr_t fp, const unwind_bounds_t *b)
{
	return fp >= b->sp && fp <= b->hi - 16 && !(fp & 7) &&
	       (!b->mapped || vm_kernel_readable(fp, 16));
}

size_t arch_unwind(uintptr_t *fp, const unwind_bounds_t *b, uintptr_t *out, size_t max)
{
	size_t n = 0;

	while (n < max && unwind_frame_ok(*fp, b)) {
		const uintptr_t *frame = (const uintptr_t *)*fp;
		uintptr_t ret = frame[1], next = frame[0];
		if (!ret || (b->text && !unwind_kernel_ret(ret)))
			break;
		out[n++] = ret;
		if (next <= *fp && next >= b->lo)   /* stacks grow down: callers are higher */
			break;
		*fp = next;
		if (b->text && ret < USER_END)      /* the entry's fake frame: now in user */
			break;
	}
	return n;
}

/* The kernel stack the interrupted code ran on: [*lo, *hi). */
static void chain_kstack(uintptr_t *lo, uintptr_t *hi)
{
	cpu_t *c = cpu_current();
	thread_t *t = c->current;

	if (t && t != c->idle && t->kstack_top) {
		*hi = t->kstack_top;
		*lo = t->kstack_top - THREAD_KSTACK_PAGES * PAGE_SIZE;
	} else {
		*lo = c->stack_bottom;
		*hi = c->stack_top;
	}
}

/* The kernel address of user va's byte in the current space, or NULL. */
static volatile uint64_t *user_word(uintptr_t va)
{
	uint64_t *table = phys_to_virt(read_cr3() & PTE_ADDR);

	if ((va & 7) || va >= USER_END)
		return NULL;
	for (int l = 4; l >= 1; l--) {
		uint64_t e = table[(va >> (12 + 9 * (l - 1))) & 511];
		if ((e & (PTE_P | PTE_U)) != (PTE_P | PTE_U) || (e & PTE_DEV))
			return NULL;
		if (l == 1 || (e & PTE_PS)) {
			uint64_t mask = (1ull << (12 + 9 * (l - 1))) - 1;
			return phys_to_virt((e & PTE_ADDR & ~mask) + (va & mask));
		}
		table = phys_to_virt(e & PTE_ADDR);
	}
	return NULL;
}

bool arch_user_peek(uintptr_t va, uint64_t *out)
{
	volatile uint64_t *w = user_word(va);

	if (w)
		*out = *w;
	return w != NULL;
}

/*
 * One walk's last user page (its kernel address): a chain's frames
 * mostly share a page. Valid for one walk with interrupts off (a page
 * leaves the space only after a shootdown every CPU has taken).
 */
typedef struct user_page {
	uintptr_t va;                 /* page base; 0: none yet */
	volatile uint64_t *kva;
} user_page_t;

/* arch_user_peek through p's page when va is on it. */
static bool user_peek_page(user_page_t *p, uintptr_t va, uint64_t *out)
{
	uintptr_t base = va & ~(uintptr_t)(PAGE_SIZE - 1);

	if (!p->va || p->va != base || (va & 7)) {
		volatile uint64_t *w = user_word(base);
		if (!w || (va & 7))
			return false;
		p->va = base;
		p->kva = w;
	}
	*out = p->kva[(va - base) / 8];
	return true;
}

/*
 * Walk kernel frames from rbp; returns entries stored, *rbp the next
 * frame. Only frames in the live part of the interrupted thread's kernel
 * stack are followed: [rsp, top), rsp the interrupted stack pointer (in an
 * entry or exit window rbp is the user's and rsp may not even be on the
 * kernel stack: then nothing is walked), each frame above the last and
 * each return address in kernel text (or user: the entry's fake frame).
 */
static size_t chain_kernel(uintptr_t *rbp, uintptr_t rsp, uint64_t *chain, size_t max)
{
	unwind_bounds_t b = { .sp = rsp, .text = true };

	chain_kstack(&b.lo, &b.hi);
	if (rsp < b.lo || rsp >= b.hi)
		return 0;
	return arch_unwind(rbp, &b, chain, max);
}

/* Walk user frames from rbp through present user pages. Interrupts off. */
static size_t chain_user(uintptr_t rbp, uint64_t *chain, size_t max)
{
	user_page_t pg = { 0, NULL };
	size_t n = 0;
	uint64_t ret, next;

	while (n < max && rbp && user_peek_page(&pg, rbp, &next) &&
	       user_peek_page(&pg, rbp + 8, &ret)) {
		if (!ret)
			break;
		chain[n++] = ret;
		if (next <= rbp)                     /* must move up the stack */
			break;
		rbp = next;
	}
	return n;
}

size_t arch_callchain(const int_frame_t *f, uint64_t *chain, size_t max, uint16_t *nkernel)
{
	uintptr_t rbp = f->rbp;
	size_t n = 0;

	*nkernel = 0;
	if (!frame_from_user(f)) {
		n = chain_kernel(&rbp, f->rsp, chain, max);
		while (*nkernel < n && chain[*nkernel] >= USER_END)
			(*nkernel)++;
		if (n == *nkernel && rbp >= USER_END)    /* never reached user code */
			return n;
	}
	return n + chain_user(rbp, chain + n, max - n);
}

size_t arch_stack_top(const int_frame_t *f, uint64_t *top, size_t max)
{
	uintptr_t sp = f->rsp, lo, hi;
	size_t n = 0;

	if (frame_from_user(f)) {
		while (n < max && arch_user_peek(sp + 8 * n, &top[n]))
			n++;
		return n;
	}
	chain_kstack(&lo, &hi);
	while (n < max && sp >= lo && !(sp & 7) && sp + 8 * (n + 1) <= hi) {
		top[n] = ((const uint64_t *)sp)[n];
		n++;
	}
	return n;
}

size_t arch_sample_stack(const int_frame_t *f, uint64_t *out, size_t depth,
			 size_t top_max, uint16_t *nkernel, uint16_t *ntop)
{
	size_t n = arch_callchain(f, out, depth, nkernel);

	*ntop = (uint16_t)arch_stack_top(f, out + n, top_max);
	return n;
}

size_t arch_user_stack(const thread_t *t, uint64_t *out, size_t max)
{
	const int_frame_t *f = (const int_frame_t *)(t->kstack_top - sizeof(int_frame_t));

	if (!max || !t->kstack_top || !frame_from_user(f))
		return 0;
	out[0] = f->rip;
	uint64_t flags = irq_save();            /* chain_user's pages stay */
	size_t n = 1 + chain_user(f->rbp, out + 1, max - 1);
	irq_restore(flags);
	return n;
}
