/*
 * Kernel trace events (<kernel/trace.h>, abi/profile.h PROF_REC_TRACE):
 * one ring per CPU (lib/ring.c), written by that CPU's hooks with
 * interrupts off (one producer per ring at a time) and read by the
 * profiler's drain thread (the one consumer). A hook's gate (busy, then
 * trace_open) lets trace_stop know when no CPU still writes a ring it
 * is about to free, as the sampler's gate does for the sample rings.
 *
 * Lock order: the profiler's prof_lock (held by its drain thread) →
 * trace_lock (the rings' memory: made, drained, freed under it) →
 * whatever trace_drain's callback takes (the profiler: the task table
 * lock). The hooks take no lock.
 */
#include <kernel/cpu.h>
#include <kernel/origin.h>
#include <kernel/spinlock.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/vm.h>
#include <lib/ring.h>
#include <lib/string.h>

volatile uint32_t trace_classes;
static volatile bool trace_open;             /* the rings exist */
static ring_t trace_rings[MAX_CPUS];
static void *trace_mem[MAX_CPUS];
static volatile bool trace_busy[MAX_CPUS];   /* CPU i is inside a hook */
static uint64_t trace_dropped;               /* atomic: since boot */
static spinlock_t trace_lock = SPINLOCK_INIT("trace");

/* The task id of t (0 for the idle thread or none). */
static uint64_t trace_task(const thread_t *t)
{
	return t && t->task && t != cpu_current()->idle ? t->task->id : 0;
}

/* The thread id of t (0 for the idle thread or none). */
static uint64_t trace_thread(const thread_t *t)
{
	return t && t->task && t != cpu_current()->idle ? t->id : 0;
}

/* The origin task whose call t serves, 0 if none. */
static uint64_t trace_origin(const thread_t *t)
{
	return t && origin_serving(&t->serve) ? t->serve.rec.hops[0] : 0;
}

/* A record of kind by t (who acted) at tsc, the rest zero. */
static void trace_init(prof_rec_trace_t *r, unsigned kind, const thread_t *t, uint64_t tsc)
{
	memset(r, 0, sizeof(*r));
	r->h.type = PROF_REC_TRACE;
	r->h.size = sizeof(*r);
	r->h.cpu = cpu_id();
	r->h.tsc = tsc;
	r->kind = (uint16_t)kind;
	r->task = trace_task(t);
	r->thread = trace_thread(t);
	r->origin = trace_origin(t);
}

/* Put r into this CPU's ring; interrupts off. */
static void trace_put(const prof_rec_trace_t *r)
{
	uint32_t cpu = r->h.cpu;

	__atomic_store_n(&trace_busy[cpu], true, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&trace_open, __ATOMIC_SEQ_CST) && trace_mem[cpu])
		(void)ring_put(&trace_rings[cpu], PROF_REC_TRACE, r, sizeof(*r)); /* a drop is counted */
	__atomic_store_n(&trace_busy[cpu], false, __ATOMIC_RELEASE);
}

/* The PROF_TS_* state of a thread leaving its CPU. */
static uint32_t trace_state(const thread_t *t)
{
	thread_state_t st = t->state;

	return st == THREAD_ZOMBIE ? PROF_TS_EXITED
	       : st == THREAD_SLEEPING ? PROF_TS_WAITING : PROF_TS_RUNNABLE;
}

void trace_switch(const thread_t *prev, const thread_t *next, uint64_t tsc)
{
	prof_rec_trace_t r;

	trace_init(&r, PROF_TR_SWITCH, prev, tsc);
	r.arg = trace_state(prev);
	r.why = (uint16_t)(r.arg == PROF_TS_RUNNABLE ? WAIT_WHY_RUNNABLE : prev->wait_why);
	r.task2 = trace_task(next);
	r.thread2 = trace_thread(next);
	r.origin2 = trace_origin(next);
	trace_put(&r);
}

void trace_wakeup(const thread_t *t)
{
	uint64_t f = irq_save();
	const thread_t *me = cpu_current()->acct.mode == ACCT_IRQ ? NULL : thread_current();
	prof_rec_trace_t r;

	trace_init(&r, PROF_TR_WAKEUP, t, time_cycles());
	r.task2 = trace_task(me);
	r.thread2 = trace_thread(me);
	r.origin2 = trace_origin(me);
	trace_put(&r);
	irq_restore(f);
}

void trace_ipc(unsigned kind, uint64_t id, uint64_t method, uint64_t task2, uint64_t thread2,
	       uint32_t arg)
{
	uint64_t f = irq_save();
	prof_rec_trace_t r;

	trace_init(&r, kind, thread_current(), time_cycles());
	r.call = id;
	r.method = method;
	r.task2 = task2;
	r.thread2 = thread2;
	r.arg = arg;
	trace_put(&r);
	irq_restore(f);
}

void trace_irq(unsigned kind, unsigned vector)
{
	prof_rec_trace_t r;

	trace_init(&r, kind, thread_current(), time_cycles());
	r.arg = vector;
	trace_put(&r);
}

void trace_syscall(unsigned kind, uint64_t nr)
{
	uint64_t f = irq_save();
	prof_rec_trace_t r;

	trace_init(&r, kind, thread_current(), time_cycles());
	r.arg = (uint32_t)nr;
	trace_put(&r);
	irq_restore(f);
}

/* Free every CPU's ring; no hook is inside one (trace_stop waited). */
static void trace_free(void)
{
	void *mem[MAX_CPUS];
	uint64_t f = spin_lock_irqsave(&trace_lock);

	for (unsigned i = 0; i < MAX_CPUS; i++) {
		mem[i] = trace_mem[i];
		trace_mem[i] = NULL;
	}
	spin_unlock_irqrestore(&trace_lock, f);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		kfree(mem[i]);
}

errno_t trace_start(void)
{
	if (__atomic_load_n(&trace_open, __ATOMIC_RELAXED))
		return EOK;
	for (unsigned i = 0; i < cpu_count; i++) {
		void *m = kmalloc(TRACE_RING_BYTES);
		if (!m) {
			trace_free();
			return ENOMEM;
		}
		uint64_t f = spin_lock_irqsave(&trace_lock);
		ring_init(&trace_rings[i], m, TRACE_RING_BYTES);
		trace_mem[i] = m;
		spin_unlock_irqrestore(&trace_lock, f);
	}
	__atomic_store_n(&trace_open, true, __ATOMIC_SEQ_CST);
	return EOK;
}

void trace_set(uint32_t classes)
{
	__atomic_store_n(&trace_classes, classes & PROF_F_TRACE, __ATOMIC_RELEASE);
}

void trace_stop(void)
{
	trace_set(0);
	__atomic_store_n(&trace_open, false, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < cpu_count; i++)
		while (__atomic_load_n(&trace_busy[i], __ATOMIC_SEQ_CST))
			cpu_relax();
	trace_free();
}

uint64_t trace_drain(unsigned cpu, trace_fn_t fn, void *ctx)
{
	uint64_t recs = 0, bytes;
	ring_rec_t rec;

	if (cpu >= cpu_count)
		return 0;
	uint64_t f = spin_lock_irqsave(&trace_lock);
	while (trace_mem[cpu] && ring_peek(&trace_rings[cpu], &rec) == EOK) {
		if (rec.type == PROF_REC_TRACE && rec.len >= sizeof(prof_rec_trace_t))
			fn(rec.data, ctx);
		ring_release(&trace_rings[cpu]);
	}
	if (trace_mem[cpu])
		ring_take_dropped(&trace_rings[cpu], &recs, &bytes);
	spin_unlock_irqrestore(&trace_lock, f);
	__atomic_add_fetch(&trace_dropped, recs, __ATOMIC_RELAXED);
	return recs;
}

uint64_t trace_lost(void)
{
	return __atomic_load_n(&trace_dropped, __ATOMIC_RELAXED);
}
