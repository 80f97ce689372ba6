/*
 * ktest: the cycle accounting's system-call entry (kernel/acct.c,
 * acct_syscall.h). The inline common case must charge exactly what the
 * full path charges from the same state.
 */
#include <arch/cpu.h>
#include <kernel/acct.h>
#include <kernel/acct_syscall.h>
#include <kernel/ktest.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>

/* What an entry changes: the thread's and the CPU's figures after it. */
typedef struct kt_acct_out {
	thread_acct_t t;
	uint64_t last, busy, idle, count, cycles, entry, exit;
	acct_mode_t mode;
} kt_acct_out_t;

#define KT_ACCT_NR SYS_NULL          /* the call entered */
#define KT_ACCT_PREV SYS_CLOCK       /* the call returned from before it */

static acct_cpu_t kt_acct_saved;     /* the CPU's accounting, put back after */

/* One test's hold on the CPU: interrupts off, the state to put back. */
typedef struct kt_acct_ctx {
	uint64_t flags, l;
	cpu_t *c;
	thread_t *t;
	thread_acct_t base;
	acct_edge_t edge;
} kt_acct_ctx_t;

/* Interrupts off; the thread's and CPU's accounting saved; l: now. */
static void kt_acct_begin(kt_acct_ctx_t *x)
{
	x->flags = irq_save();
	x->c = cpu_current();
	x->t = x->c->current;
	x->base = x->t->acct;
	x->edge = x->c->edge;
	x->l = time_cycles();
	kt_acct_saved = x->c->acct;
}

/* Everything kt_acct_begin saved put back; interrupts as they were. */
static void kt_acct_end(const kt_acct_ctx_t *x)
{
	x->c->acct = kt_acct_saved;
	x->c->edge = x->edge;
	x->t->acct = x->base;
	irq_restore(x->flags);
}

/* A user thread's state after SYS_CLOCK returned at x, entering again at e. */
static void kt_acct_state(cpu_t *c, thread_t *t, const thread_acct_t *base, uint64_t l)
{
	t->acct = *base;
	t->acct.sys_in = KT_ACCT_PREV + 1;
	t->acct.sys_k0 = t->acct.kernel_cycles - 1000;
	c->acct.last = l;
	c->acct.mode = ACCT_USER;
	c->edge.exit = l + 300;
	c->edge.entry = l + 2000;
}

static void kt_acct_take(const cpu_t *c, const thread_t *t, kt_acct_out_t *o)
{
	o->t = t->acct;
	o->last = c->acct.last;
	o->busy = c->acct.busy;
	o->idle = c->acct.idle;
	o->count = c->acct.sys_count[KT_ACCT_NR];
	o->cycles = c->acct.sys_cycles[KT_ACCT_PREV];
	o->entry = c->edge.entry;
	o->exit = c->edge.exit;
	o->mode = c->acct.mode;
}

/*
 * The inline entry (acct_syscall_fast) against acct_syscall_enter_slow
 * from one state: a return's kernel tail of 300 cycles, 1,700 of user
 * time, the previous call's 1,000 cycles before. Run with interrupts off;
 * the thread's and CPU's accounting are put back after.
 */
KTEST(acct_syscall_fast_same, "acct: a system call's inline entry charges what the full one does")
{
	kt_acct_ctx_t x;
	kt_acct_out_t fast, slow;

	kt_acct_begin(&x);
	cpu_t *c = x.c;
	thread_t *t = x.t;
	const thread_acct_t base = x.base;

	kt_acct_state(c, t, &base, x.l);
	bool took = acct_syscall_fast(c, t, KT_ACCT_NR);
	kt_acct_take(c, t, &fast);
	c->acct = kt_acct_saved;
	kt_acct_state(c, t, &base, x.l);
	acct_syscall_enter_slow(KT_ACCT_NR);
	kt_acct_take(c, t, &slow);
	kt_acct_end(&x);
	KT_CHECK(took, "the inline entry took the common case");
	KT_CHECK(fast.t.kernel_cycles == base.kernel_cycles + 300 &&
		 fast.t.user_cycles == base.user_cycles + 1700,
		 "inline: kernel +%lu, user +%lu; want +300, +1700",
		 fast.t.kernel_cycles - base.kernel_cycles, fast.t.user_cycles - base.user_cycles);
	KT_CHECK(fast.cycles == kt_acct_saved.sys_cycles[KT_ACCT_PREV] + 1300,
		 "inline: the previous call's cycles +%lu; want +1300",
		 fast.cycles - kt_acct_saved.sys_cycles[KT_ACCT_PREV]);
	KT_CHECK(memcmp(&fast.t, &slow.t, sizeof fast.t) == 0, "the thread's figures agree "
		 "(kernel %lu/%lu, user %lu/%lu, sys_in %lu/%lu, k0 %lu/%lu)",
		 fast.t.kernel_cycles, slow.t.kernel_cycles, fast.t.user_cycles, slow.t.user_cycles,
		 fast.t.sys_in, slow.t.sys_in, fast.t.sys_k0, slow.t.sys_k0);
	KT_CHECK(fast.last == slow.last && fast.busy == slow.busy && fast.idle == slow.idle &&
		 fast.count == slow.count && fast.cycles == slow.cycles && fast.mode == slow.mode &&
		 fast.entry == slow.entry && fast.exit == slow.exit,
		 "the CPU's figures agree (last %lu/%lu, busy %lu/%lu, count %lu/%lu, "
		 "cycles %lu/%lu, mode %d/%d, edges %lu,%lu/%lu,%lu)", fast.last, slow.last,
		 fast.busy, slow.busy, fast.count, slow.count, fast.cycles, slow.cycles,
		 fast.mode, slow.mode, fast.entry, fast.exit, slow.entry, slow.exit);
	return true;
}

/* The entry with no stamp of its own (or a stale order) is the full path's. */
KTEST(acct_syscall_fast_declines, "acct: the inline entry leaves unstamped or odd entries alone")
{
	kt_acct_ctx_t x;
	bool took[4];

	kt_acct_begin(&x);
	cpu_t *c = x.c;
	thread_t *t = x.t;
	const thread_acct_t base = x.base;
	uint64_t l = x.l;

	kt_acct_state(c, t, &base, l);
	c->edge.entry = 0;                       /* no entry stamp */
	took[0] = acct_syscall_fast(c, t, KT_ACCT_NR);
	kt_acct_state(c, t, &base, l);
	c->edge.exit = 0;                        /* returned by another way */
	took[1] = acct_syscall_fast(c, t, KT_ACCT_NR);
	kt_acct_state(c, t, &base, l);
	c->acct.mode = ACCT_KERNEL;              /* not from user mode */
	took[2] = acct_syscall_fast(c, t, KT_ACCT_NR);
	kt_acct_state(c, t, &base, l);
	took[3] = acct_syscall_fast(c, t, SYS_COUNT);   /* no such call */
	bool same = t->acct.kernel_cycles == base.kernel_cycles &&
		    c->acct.busy == kt_acct_saved.busy && c->acct.last == l;
	kt_acct_end(&x);
	KT_CHECK(!took[0] && !took[1] && !took[2] && !took[3],
		 "declined: no entry stamp %d, no exit stamp %d, kernel mode %d, bad number %d",
		 !took[0], !took[1], !took[2], !took[3]);
	KT_CHECK(same, "a declined entry changed nothing");
	return true;
}

/* What a served call's charge changed: the origin's and the pair's figures, the state. */
typedef struct kt_serve_out {
	uint64_t imposed, served, count, call;
	bool ending;
	const task_t *task, *unref;
} kt_serve_out_t;

static origin_count_t kt_acct_count;

/*
 * One entry while t serves call 77 for its own task (gone: another thread
 * answered it), by the inline or the full path; the charges and the
 * serving state after, all put back. Irqs off.
 */
static void kt_acct_serve_once(cpu_t *c, thread_t *t, bool gone, bool inline_path,
			       kt_serve_out_t *o)
{
	thread_acct_t base = t->acct;
	origin_serve_t serve = t->serve;
	task_t *k = t->task;
	uint64_t imposed = k->acct.imposed_cycles, served = k->acct.served_cycles;
	uint64_t l = time_cycles();

	kt_acct_count.cycles = 0;
	kt_acct_state(c, t, &base, l);
	t->serve.task = k;
	t->serve.count = &kt_acct_count;
	t->serve.rec.call = 77;
	t->serve.gone = gone ? ~77ull : 0;
	t->serve.ending = false;
	t->serve.unref = NULL;
	if (!inline_path || !acct_syscall_fast(c, t, KT_ACCT_NR))
		acct_syscall_enter_slow(KT_ACCT_NR);
	*o = (kt_serve_out_t){ k->acct.imposed_cycles - imposed, k->acct.served_cycles - served,
			       kt_acct_count.cycles, t->serve.rec.call, t->serve.ending,
			       t->serve.task, t->serve.unref };
	k->acct.imposed_cycles = imposed;
	k->acct.served_cycles = served;
	t->serve = serve;
	t->acct = base;
	c->acct = kt_acct_saved;
}

static bool kt_serve_same(const kt_serve_out_t *a, const kt_serve_out_t *b)
{
	return a->imposed == b->imposed && a->served == b->served && a->count == b->count &&
	       a->call == b->call && a->ending == b->ending && a->task == b->task &&
	       a->unref == b->unref;
}

/* A serving thread's entry charges the call's origin the same both ways. */
KTEST(acct_syscall_fast_serving, "acct: the inline entry charges a served call's origin as the full one")
{
	kt_acct_ctx_t x;
	kt_serve_out_t o[2][2];

	kt_acct_begin(&x);
	thread_t *t = x.t;
	for (int gone = 0; gone < 2; gone++)
		for (int path = 0; path < 2; path++)
			kt_acct_serve_once(x.c, t, gone, path, &o[gone][path]);
	kt_acct_end(&x);
	KT_CHECK(o[0][1].imposed == 2000 && o[0][1].served == 2000 && o[0][1].count == 2000,
		 "inline: imposed +%lu, served +%lu, the pair +%lu; want 2000 each",
		 o[0][1].imposed, o[0][1].served, o[0][1].count);
	KT_CHECK(o[1][1].call == 0 && o[1][1].task == NULL && o[1][1].unref == t->task,
		 "inline: a call answered elsewhere ends its serving (call %lu)", o[1][1].call);
	for (int gone = 0; gone < 2; gone++)
		KT_CHECK(kt_serve_same(&o[gone][0], &o[gone][1]),
			 "gone %d: inline and full agree (imposed %lu/%lu, count %lu/%lu, call "
			 "%lu/%lu)", gone, o[gone][1].imposed, o[gone][0].imposed, o[gone][1].count,
			 o[gone][0].count, o[gone][1].call, o[gone][0].call);
	return true;
}

#define KT_ACCT_VEC 0xfd        /* a vector no device uses */

static acct_cpu_t kt_acct_after;     /* the CPU's accounting after the charge */

/*
 * acct_irq_exit_user from an interrupt that began 5,000 cycles ago after
 * a system call's return: the vector's count and cycles, the CPU's
 * interrupt time, then user mode with the call's cycles closed, as
 * acct_irq_exit and acct_user_enter did in two steps; the thread's own
 * time unchanged. Everything put back after.
 */
KTEST(acct_irq_exit_user_one, "acct: an interrupt's direct return to user mode charges it once")
{
	kt_acct_ctx_t x;

	kt_acct_begin(&x);
	cpu_t *c = x.c;
	thread_t *t = x.t;
	uint64_t from = x.l - 5000;

	c->acct.mode = ACCT_IRQ;
	c->acct.last = from;
	c->edge.exit = 0;
	t->acct.sys_in = KT_ACCT_PREV + 1;
	t->acct.sys_k0 = t->acct.kernel_cycles - 1000;
	acct_irq_exit_user(KT_ACCT_VEC);
	uint64_t after = time_cycles();
	kt_acct_after = c->acct;
	thread_acct_t ta = t->acct;
	kt_acct_end(&x);
	const acct_cpu_t *a = &kt_acct_after;
	uint64_t d = a->vec_cycles[KT_ACCT_VEC] - kt_acct_saved.vec_cycles[KT_ACCT_VEC];
	KT_CHECK(d >= 5000 && d <= after - from && a->irq - kt_acct_saved.irq == d &&
		 a->last == from + d,
		 "the vector's cycles %lu (want 5000..%lu), interrupt time +%lu", d, after - from,
		 a->irq - kt_acct_saved.irq);
	KT_CHECK(a->vec_count[KT_ACCT_VEC] == kt_acct_saved.vec_count[KT_ACCT_VEC] + 1 &&
		 a->interrupts == kt_acct_saved.interrupts + 1, "counted once");
	KT_CHECK(a->mode == ACCT_USER && ta.sys_in == 0 &&
		 a->sys_cycles[KT_ACCT_PREV] == kt_acct_saved.sys_cycles[KT_ACCT_PREV] + 1000,
		 "user mode (%d), the call closed (sys_in %lu, its cycles +%lu; want +1000)", a->mode,
		 ta.sys_in, a->sys_cycles[KT_ACCT_PREV] - kt_acct_saved.sys_cycles[KT_ACCT_PREV]);
	KT_CHECK(ta.kernel_cycles == x.base.kernel_cycles && ta.user_cycles == x.base.user_cycles,
		 "the thread's time unchanged (kernel +%lu, user +%lu)",
		 ta.kernel_cycles - x.base.kernel_cycles, ta.user_cycles - x.base.user_cycles);
	return true;
}
