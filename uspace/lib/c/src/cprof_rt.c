/*
 * The call profiler's user-space hooks (see <cprof.h>, <abi/cprof.h> and
 * lib/cprof.h): __cyg_profile_func_enter/exit, which GCC's
 * -finstrument-functions calls around every function of an instrumented
 * program. The bookkeeping is lib/cprof.c's; this file finds the calling
 * thread's part and stack, reads the clocks and announces the process's
 * table (cprof_rt_ctl) to the kernel on the first hook, as the thesis
 * does (3.6.1). If that fails (a kernel without the call profiler, or
 * EBUSY) the hooks still count, locally, and never ask again.
 *
 * Threads are told apart by their stacks: record 0 is the main thread's
 * (abi/task.h), thread_start adds the others (__libc_cprof_stack) before
 * the thread runs, and a thread's first hook maps its part and call stack
 * and asks for its clock (CPROF_OP_THREAD; without one, off-CPU time is
 * taken as 0 and on-CPU time equals wall time). A hook on no known stack
 * only counts itself in cprof_rt_unknown. A stack range given again (a
 * joined thread's stack reused) gives the new thread the old record: its
 * part (the same part id) and a fresh call stack.
 *
 * Each record is written by its thread only, except its range and state,
 * which __libc_cprof_stack sets before the thread exists. A hook marks
 * its record RT_BUSY while it works, which keeps a hook's own calls from
 * recursing. Nothing here may be instrumented (libc never is; the
 * attribute says so anyway).
 *
 * The hot path (a READY thread at the current reset generation) is
 * inline in the two hooks and calls nothing; the main thread is found by
 * its fixed range, without the records' loop. Everything else (other
 * threads, the first hook, a reset, a recursing hook) takes the hooks'
 * slow paths.
 *
 * Lock order: cprof_rt_lock only (records added, parts published).
 */
#include <cprof.h>
#include <lib/cprof.h>
#include <stdbool.h>
#include <tsc.h>
#include <vernier.h>

#include "libc.h"

#define NOINSTR __attribute__((no_instrument_function))
#define HOT __attribute__((always_inline))      /* both a hook and its slow path */

enum {
	RT_FREE,          /* no range */
	RT_PENDING,       /* range known, the first hook sets it up */
	RT_READY,
	RT_FAILED,        /* set-up failed: its hooks do nothing */
	RT_BUSY,          /* READY, and a hook of the thread is running */
};

enum { ANNOUNCE_NOT, ANNOUNCE_BUSY, ANNOUNCE_DONE };

typedef struct cprof_rt_thr {
	uintptr_t lo, hi;               /* stack [lo, hi); hi 0: being changed */
	volatile uint32_t state;        /* RT_* */
	cprof_table_t tab;              /* its view of the table; gen set by each hook */
	cprof_part_t *part;             /* NULL until the first set-up */
	cprof_stack_t *stack;
	const cprof_clock_t *clock;     /* cprof_rt_noclock if the kernel gave none */
} cprof_rt_thr_t;

static cprof_ctl_t cprof_rt_ctl = { .magic = CPROF_CTL_MAGIC, .version = CPROF_VERSION };
static cprof_part_t *cprof_rt_parts[CPROF_PARTS_MAX];
static cprof_rt_thr_t cprof_rt_thr[CPROF_PARTS_MAX] = {
	[0] = { .lo = USER_STACK_TOP - USER_STACK_SIZE, .hi = USER_STACK_TOP,
		.state = RT_PENDING },
};
static uint32_t cprof_rt_nthr = 1;           /* records [0, nthr) have been used */
static uint32_t cprof_rt_announce_state;     /* ANNOUNCE_* */
static errno_t cprof_rt_announce_rc = EAGAIN;
static uint64_t cprof_rt_unknown;
static libc_lock_t cprof_rt_lock = LIBC_LOCK_INIT;
static const cprof_clock_t cprof_rt_noclock;  /* off-CPU time always 0 */

/* The main thread's record: its range is fixed (no thread_start stack overlaps it). */
#define RT_MAIN (&cprof_rt_thr[0])
#define RT_MAIN_LO (USER_STACK_TOP - USER_STACK_SIZE)

/*
 * The record of the thread on stack sp, one started by thread_start (the
 * main thread's is found by the hooks themselves), or NULL (counted). A
 * range being changed (__libc_cprof_stack: hi = 0, lo, hi) is read hi,
 * lo, hi: two equal his mean lo was not torn.
 */
static NOINSTR cprof_rt_thr_t *cprof_rt_other(uintptr_t sp)
{
	uint32_t n = __atomic_load_n(&cprof_rt_nthr, __ATOMIC_ACQUIRE);

	for (uint32_t i = 1; i < n; i++) {
		cprof_rt_thr_t *r = &cprof_rt_thr[i];
		uintptr_t hi = __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE);
		uintptr_t lo = __atomic_load_n(&r->lo, __ATOMIC_ACQUIRE);
		if (sp >= lo && sp < hi && __atomic_load_n(&r->hi, __ATOMIC_RELAXED) == hi)
			return r;
	}
	__atomic_fetch_add(&cprof_rt_unknown, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Is stack pointer sp the main thread's (its fixed range)? */
static inline NOINSTR bool cprof_rt_on_main(uintptr_t sp)
{
	return sp - RT_MAIN_LO < USER_STACK_SIZE;
}

/* The calling thread's record (by its stack pointer sp), or NULL (counted). */
static inline NOINSTR cprof_rt_thr_t *cprof_rt_self(uintptr_t sp)
{
	return cprof_rt_on_main(sp) ? RT_MAIN : cprof_rt_other(sp);
}

/*
 * The thread's off-CPU cycles. The kernel writes its clock's off (one
 * aligned word) only while the thread is switched out (cprof_switch_in),
 * and only the thread reads it here, so one load is never torn: the
 * clock's seqcount is not needed for that.
 */
static inline NOINSTR uint64_t cprof_rt_off(const cprof_rt_thr_t *r)
{
	return __atomic_load_n(&r->clock->off, __ATOMIC_RELAXED);
}

/* Tell the kernel about cprof_rt_ctl, once per process (any thread). */
static NOINSTR void cprof_rt_announce(void)
{
	uint32_t expect = ANNOUNCE_NOT;

	if (__atomic_load_n(&cprof_rt_announce_state, __ATOMIC_ACQUIRE) == ANNOUNCE_DONE)
		return;
	if (__atomic_compare_exchange_n(&cprof_rt_announce_state, &expect, ANNOUNCE_BUSY,
					false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		long rc = __libc_syscall2(SYS_CPROF, CPROF_OP_REGISTER, (long)&cprof_rt_ctl);
		cprof_rt_announce_rc = rc < 0 ? (errno_t)-rc : EOK;
		__atomic_store_n(&cprof_rt_announce_state, ANNOUNCE_DONE, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&cprof_rt_announce_state, __ATOMIC_ACQUIRE) != ANNOUNCE_DONE)
		sys_yield();
}

/* Map r's part and stack and publish the part (ctl.parts, nparts). */
static NOINSTR bool cprof_rt_new_part(cprof_rt_thr_t *r)
{
	size_t part_size = (CPROF_PART_SIZE(CPROF_RT_SLOTS) + 4095) & ~(size_t)4095;
	size_t size = part_size + CPROF_STACK_SIZE(CPROF_RT_FRAMES);
	void *mem;

	if (sys_map(NULL, size, PROT_READ | PROT_WRITE, &mem) != EOK)
		return false;
	r->part = mem;
	r->stack = (cprof_stack_t *)((char *)mem + part_size);
	__libc_lock(&cprof_rt_lock);
	uint32_t id = cprof_rt_ctl.nparts;
	r->tab = (cprof_table_t){ cprof_rt_parts, CPROF_PARTS_MAX, id, 0, 0 };
	cprof_part_init(r->part, id, CPROF_RT_SLOTS);
	r->part->h.gen = cprof_rt_ctl.reset_gen;
	cprof_rt_parts[id] = r->part;
	cprof_rt_ctl.parts[id] = (uint64_t)(uintptr_t)r->part;
	__atomic_store_n(&cprof_rt_ctl.nparts, id + 1, __ATOMIC_RELEASE);
	__libc_unlock(&cprof_rt_lock);
	return true;
}

/* The calling thread's clock, or cprof_rt_noclock if the kernel has none for it. */
static NOINSTR const cprof_clock_t *cprof_rt_clock(void)
{
	if (cprof_rt_announce_rc != EOK)
		return &cprof_rt_noclock;
	long idx = __libc_syscall1(SYS_CPROF, CPROF_OP_THREAD);
	uint64_t page = __atomic_load_n(&cprof_rt_ctl.clock, __ATOMIC_ACQUIRE);
	if (idx < 0 || idx >= CPROF_CLOCKS || !page)
		return &cprof_rt_noclock;
	return (const cprof_clock_t *)(uintptr_t)page + idx;
}

/*
 * First hook of r's thread (r is RT_BUSY meanwhile): announce, part,
 * stack, clock. False: no profiling (r is RT_FAILED).
 */
static NOINSTR bool cprof_rt_setup(cprof_rt_thr_t *r)
{
	cprof_rt_announce();
	if (!r->part && !cprof_rt_new_part(r)) {
		r->state = RT_FAILED;
		return false;
	}
	r->part->h.thread = sys_thread_id();
	r->tab.gen = r->part->h.gen;
	cprof_stack_init(r->stack, CPROF_RT_FRAMES, r->tab.gen);
	r->clock = cprof_rt_clock();
	return true;
}

/*
 * Bring r's table to the current reset generation. Only r's thread writes
 * its part and stack, so they are at r->tab.gen: the bookkeeping's sync
 * runs only when a reset was asked since.
 */
static NOINSTR void cprof_rt_sync(cprof_rt_thr_t *r)
{
	uint32_t gen = cprof_rt_ctl.reset_gen;

	if (gen != r->tab.gen) {
		r->tab.gen = gen;
		cprof_sync(r->stack, &r->tab);
	}
}

/* True if r's hooks may take the hot path: READY, at the current generation. */
static inline NOINSTR bool cprof_rt_hot(const cprof_rt_thr_t *r)
{
	return r->state == RT_READY && r->tab.gen == cprof_rt_ctl.reset_gen;
}

/* The entry hook's work for r, READY at the current generation (now marked RT_BUSY). */
static inline NOINSTR HOT void cprof_rt_enter(cprof_rt_thr_t *r, void *fn, uint64_t t1)
{
	cprof_frame_t *f = cprof_enter(r->stack, &r->tab, (uint64_t)(uintptr_t)fn, t1,
				       cprof_rt_off(r));
	if (f)
		f->t2 = tsc_read_fast();
}

/* The exit hook's work for r, READY at the current generation (now marked RT_BUSY). */
static inline NOINSTR HOT void cprof_rt_exit(cprof_rt_thr_t *r, void *fn, uint64_t stop)
{
	uint64_t off = cprof_rt_off(r);     /* once: a switch inside the hook is rare */
	cprof_frame_t *f = cprof_exit_begin(r->stack, &r->tab, (uint64_t)(uintptr_t)fn, stop,
					    off);
	if (f)
		cprof_exit_end(r->stack, f, tsc_read_fast(), off);
}

/*
 * The entry hook off the hot path: another thread than the main one, a
 * thread's first hook, a reset asked, a hook inside a hook.
 */
static NOINSTR __attribute__((noinline)) void cprof_rt_enter_slow(uintptr_t sp, void *fn,
								  uint64_t t1)
{
	cprof_rt_thr_t *r = cprof_rt_self(sp);

	if (!r)
		return;
	uint32_t state = r->state;
	if (state != RT_READY && state != RT_PENDING)
		return;
	r->state = RT_BUSY;
	if (state == RT_PENDING && !cprof_rt_setup(r))
		return;
	cprof_rt_sync(r);
	cprof_rt_enter(r, fn, t1);
	__atomic_store_n(&r->state, RT_READY, __ATOMIC_RELAXED);
}

/* The exit hook off the hot path (as cprof_rt_enter_slow). */
static NOINSTR __attribute__((noinline)) void cprof_rt_exit_slow(uintptr_t sp, void *fn,
								 uint64_t stop)
{
	cprof_rt_thr_t *r = cprof_rt_self(sp);

	if (!r || r->state != RT_READY)
		return;
	r->state = RT_BUSY;
	cprof_rt_sync(r);
	cprof_rt_exit(r, fn, stop);
	__atomic_store_n(&r->state, RT_READY, __ATOMIC_RELAXED);
}

/* Called by -finstrument-functions code on entry to fn (from call site site). */
NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
	uint64_t t1 = tsc_read_fast();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	(void)site;
	if (!cprof_rt_on_main(sp) || !cprof_rt_hot(RT_MAIN)) {
		cprof_rt_enter_slow(sp, fn, t1);
		return;
	}
	RT_MAIN->state = RT_BUSY;
	cprof_rt_enter(RT_MAIN, fn, t1);
	__atomic_store_n(&RT_MAIN->state, RT_READY, __ATOMIC_RELAXED);
}

/* Called by -finstrument-functions code when fn returns. */
NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
	uint64_t stop = tsc_read_fast();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	(void)site;
	if (!cprof_rt_on_main(sp) || !cprof_rt_hot(RT_MAIN)) {
		cprof_rt_exit_slow(sp, fn, stop);
		return;
	}
	RT_MAIN->state = RT_BUSY;
	cprof_rt_exit(RT_MAIN, fn, stop);
	__atomic_store_n(&RT_MAIN->state, RT_READY, __ATOMIC_RELAXED);
}

/*
 * The record (not the main thread's) whose range overlaps [lo, hi), or
 * NULL. Holds cprof_rt_lock.
 */
static NOINSTR cprof_rt_thr_t *cprof_rt_find(uintptr_t lo, uintptr_t hi)
{
	for (uint32_t i = 1; i < cprof_rt_nthr; i++) {
		cprof_rt_thr_t *r = &cprof_rt_thr[i];
		if (r->lo < hi && lo < r->hi)
			return r;
	}
	return NULL;
}

NOINSTR void __libc_cprof_stack(void *lo, size_t size)
{
	uintptr_t a = (uintptr_t)lo, b = a + size;

	__libc_lock(&cprof_rt_lock);
	cprof_rt_thr_t *r = cprof_rt_find(a, b);
	if (!r && cprof_rt_nthr < CPROF_PARTS_MAX)
		r = &cprof_rt_thr[cprof_rt_nthr];
	if (r) {
		__atomic_store_n(&r->hi, 0, __ATOMIC_RELEASE);
		r->state = RT_PENDING;
		__atomic_store_n(&r->lo, a, __ATOMIC_RELEASE);
		__atomic_store_n(&r->hi, b, __ATOMIC_RELEASE);
		if (r == &cprof_rt_thr[cprof_rt_nthr])
			__atomic_store_n(&cprof_rt_nthr, cprof_rt_nthr + 1, __ATOMIC_RELEASE);
	}
	__libc_unlock(&cprof_rt_lock);
}

NOINSTR void cprof_rt_info(cprof_rt_info_t *info)
{
	info->announce = __atomic_load_n(&cprof_rt_announce_state, __ATOMIC_ACQUIRE) ==
		ANNOUNCE_DONE ? cprof_rt_announce_rc : EAGAIN;
	info->threads = __atomic_load_n(&cprof_rt_ctl.nparts, __ATOMIC_ACQUIRE);
	info->unknown = __atomic_load_n(&cprof_rt_unknown, __ATOMIC_RELAXED);
}
