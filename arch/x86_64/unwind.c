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

/*
 * arch_unwind's loop, inlined where b is known (the sample path's kernel
 * chain: the compiler drops the checks b does not ask for and keeps the
 * frame pointer in a register).
 */
static inline __attribute__((always_inline)) size_t unwind_frames(uintptr_t *fp,
								  const unwind_bounds_t *b,
								  uintptr_t *out, size_t max)
{
	uintptr_t at = *fp;
	size_t n = 0;

	while (n < max && unwind_frame_ok(at, b)) {
		const uintptr_t *frame = (const uintptr_t *)at;
		uintptr_t ret = frame[1], next = frame[0];
		if (!ret || (b->text && !unwind_kernel_ret(ret)))
			break;
		out[n++] = ret;
		if (next <= at && next >= b->lo)    /* stacks grow down: callers are higher */
			break;
		at = next;
		if (b->text && ret < USER_END)      /* the entry's fake frame: now in user */
			break;
	}
	*fp = at;
	return n;
}

size_t arch_unwind(uintptr_t *fp, const unwind_bounds_t *b, uintptr_t *out, size_t max)
{
	return unwind_frames(fp, b, out, max);
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

/* Entry e for va in table at level shift: present, user and RAM? */
static inline bool user_pte(const uint64_t *table, uintptr_t va, unsigned shift, uint64_t *e)
{
	*e = table[(va >> shift) & 511];
	return (*e & (PTE_P | PTE_U | PTE_DEV)) == (PTE_P | PTE_U);
}

/* The kernel address of user va's byte in the current space, or NULL. */
static volatile uint64_t *user_word(uintptr_t va)
{
	const uint64_t *table = phys_to_virt(read_cr3() & PTE_ADDR);
	uint64_t e;

	if ((va & 7) || va >= USER_END)
		return NULL;
#pragma GCC unroll 4
	for (unsigned shift = 39; shift >= 12; shift -= 9) {
		if (!user_pte(table, va, shift, &e))
			return NULL;
		if (shift == 12 || (e & PTE_PS)) {
			uint64_t mask = (1ull << shift) - 1;
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
	uintptr_t va;                 /* page base; USER_PAGE_NONE: none yet */
	volatile uint64_t *kva;
} user_page_t;

/* No page yet: not page-aligned, so no 8-aligned address is on it. */
#define USER_PAGE_NONE ((uintptr_t)1)
#define USER_PAGE_INIT { USER_PAGE_NONE, NULL }

/* Make the page at base (page-aligned) p's; false if it is not a readable user page. */
static bool user_page_at(user_page_t *p, uintptr_t base)
{
	if (p->va == base)
		return true;
	volatile uint64_t *w = user_word(base);
	if (!w)
		return false;
	p->va = base ? base : USER_PAGE_NONE;   /* page 0 not kept: chain_user's rbp 0 */
	p->kva = w;
	return true;
}

/* arch_user_peek through p's page when va is on it. */
static bool user_peek_page(user_page_t *p, uintptr_t va, uint64_t *out)
{
	uintptr_t base = va & ~(uintptr_t)(PAGE_SIZE - 1);

	if ((va & 7) || !user_page_at(p, base))
		return false;
	*out = p->kva[(va - base) / 8];
	return true;
}

/*
 * The word index of fp on the page at va when fp is 8-aligned, else a
 * huge number: the offset rotated right by 3 (a misaligned offset's low
 * bits land on top), so one compare checks alignment and range.
 */
static inline uintptr_t user_word_index(uintptr_t fp, uintptr_t va)
{
	uintptr_t d = fp - va;

	return d >> 3 | d << 61;
}

/* Frame index i on a page holds both words (the saved rbp and the return address)? */
#define USER_FRAME_ON_PAGE(i) ((i) <= (PAGE_SIZE - 16) / 8)

/* A user frame's two words; ret 0: unreadable (a walk ends at a 0 return address anyway). */
typedef struct user_pair {
	uint64_t next, ret;
} user_pair_t;

/*
 * The user frame at fp not on p's last page, or misaligned, or across
 * two pages (word by word): the walk's rare case, kept out of its loop.
 * Returned in two registers.
 */
static __noinline user_pair_t user_frame_slow(user_page_t *p, uintptr_t fp)
{
	uintptr_t off = fp & (PAGE_SIZE - 1);
	user_pair_t r = { 0, 0 };

	if (!fp)
		return r;
	if (!(fp & 7) && off <= PAGE_SIZE - 16 && user_page_at(p, fp - off))
		return (user_pair_t){ p->kva[off / 8], p->kva[off / 8 + 1] };
	if (!user_peek_page(p, fp, &r.next) || !user_peek_page(p, fp + 8, &r.ret))
		r.ret = 0;
	return r;
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
	return unwind_frames(rbp, &b, chain, max);
}

/*
 * Walk user frames from rbp through present user pages (p: the last one).
 * Interrupts off. The loop reads a frame on the last page with one compare
 * (the sample path's hot loop: a chain's frames mostly share a page).
 */
static inline size_t chain_user(user_page_t *p, uintptr_t rbp, uint64_t *chain, size_t max)
{
	uintptr_t va = p->va;
	volatile uint64_t *kva = p->kva;
	size_t n = 0;

	while (n < max) {
		uintptr_t i = user_word_index(rbp, va);
		user_pair_t fr;
		if (USER_FRAME_ON_PAGE(i)) {
			fr = (user_pair_t){ kva[i], kva[i + 1] };
		} else {
			fr = user_frame_slow(p, rbp);
			va = p->va;
			kva = p->kva;
		}
		if (!fr.ret)
			break;
		chain[n++] = fr.ret;
		if (fr.next <= rbp)                  /* must move up the stack */
			break;
		rbp = fr.next;
	}
	return n;
}

/* arch_callchain with the user page p (shared with the stack's top words). */
static size_t callchain(user_page_t *p, const int_frame_t *f, uint64_t *chain, size_t max,
			uint16_t *nkernel)
{
	uintptr_t rbp = f->rbp;
	size_t n = 0, nk = 0;

	if (!frame_from_user(f)) {
		n = chain_kernel(&rbp, f->rsp, chain, max);
		while (nk < n && chain[nk] >= USER_END)
			nk++;
	}
	*nkernel = (uint16_t)nk;
	if (!frame_from_user(f) && n == nk && rbp >= USER_END)   /* never reached user code */
		return n;
	return n + chain_user(p, rbp, chain + n, max - n);
}

size_t arch_callchain(const int_frame_t *f, uint64_t *chain, size_t max, uint16_t *nkernel)
{
	user_page_t pg = USER_PAGE_INIT;

	return callchain(&pg, f, chain, max, nkernel);
}

/* The max words from user sp up through p's page; word by word across a page end. */
static inline size_t stack_top_user(user_page_t *p, uintptr_t sp, uint64_t *top, size_t max)
{
	uintptr_t off = sp & (PAGE_SIZE - 1);
	size_t n = 0;

	if (!(sp & 7) && off + 8 * max <= PAGE_SIZE && user_page_at(p, sp - off)) {
		for (; n < max; n++)
			top[n] = p->kva[off / 8 + n];
		return n;
	}
	while (n < max && user_peek_page(p, sp + 8 * n, &top[n]))
		n++;
	return n;
}

/* arch_stack_top with the user page p. */
static size_t stack_top(user_page_t *p, const int_frame_t *f, uint64_t *top, size_t max)
{
	uintptr_t sp = f->rsp, lo, hi;
	size_t n = 0;

	if (frame_from_user(f))
		return stack_top_user(p, sp, top, max);
	chain_kstack(&lo, &hi);
	while (n < max && sp >= lo && !(sp & 7) && sp + 8 * (n + 1) <= hi) {
		top[n] = ((const uint64_t *)sp)[n];
		n++;
	}
	return n;
}

size_t arch_stack_top(const int_frame_t *f, uint64_t *top, size_t max)
{
	user_page_t pg = USER_PAGE_INIT;

	return stack_top(&pg, f, top, max);
}

/* Move the nt top words read into out[depth...] down behind the n-entry chain. */
static void sample_top_down(uint64_t *out, size_t n, size_t depth, size_t nt)
{
	for (size_t i = 0; i < nt; i++)
		out[n + i] = out[depth + i];
}

/*
 * From user mode (the common sample: no kernel part, all in one
 * function) the top words are read first, into out[depth...] (the
 * caller's room for them), so that the chain's first frames find their
 * page already walked; then they move down behind the chain.
 */
size_t arch_sample_stack(const int_frame_t *f, uint64_t *out, size_t depth,
			 size_t top_max, uint16_t *nkernel, uint16_t *ntop)
{
	user_page_t pg = USER_PAGE_INIT;
	size_t nt, n;

	if (frame_from_user(f)) {
		nt = stack_top_user(&pg, f->rsp, out + depth, top_max);
		n = chain_user(&pg, f->rbp, out, depth);
		sample_top_down(out, n, depth, nt);
		*nkernel = 0;
	} else {                                /* the top words are on the kernel stack */
		n = callchain(&pg, f, out, depth, nkernel);
		nt = stack_top(&pg, f, out + n, top_max);
	}
	*ntop = (uint16_t)nt;
	return n;
}

size_t arch_user_stack(const thread_t *t, uint64_t *out, size_t max)
{
	const int_frame_t *f = (const int_frame_t *)(t->kstack_top - sizeof(int_frame_t));

	if (!max || !t->kstack_top || !frame_from_user(f))
		return 0;
	out[0] = f->rip;
	uint64_t flags = irq_save();            /* chain_user's pages stay */
	user_page_t pg = USER_PAGE_INIT;
	size_t n = 1 + chain_user(&pg, f->rbp, out + 1, max - 1);
	irq_restore(flags);
	return n;
}

size_t arch_thread_stack(const thread_t *t, uint64_t *out, size_t max, uint16_t *nkernel)
{
	uintptr_t pc, fp;
	size_t n = 0;

	arch_unwind_caller(&pc, &fp);
	if (max && t->kstack_top) {
		unwind_bounds_t b = { .sp = fp, .hi = t->kstack_top, .text = true,
				      .lo = t->kstack_top - THREAD_KSTACK_PAGES * PAGE_SIZE };
		out[n++] = pc;
		n += arch_unwind(&fp, &b, out + n, max - n);
	}
	while (n && out[n - 1] < USER_END)       /* the entry's fake frame: user's */
		n--;
	*nkernel = (uint16_t)n;
	return n + arch_user_stack(t, out + n, max - n);
}
