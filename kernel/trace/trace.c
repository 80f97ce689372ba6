/*
 * Kernel trace events' control and drain (<kernel/trace.h> has the
 * buffer and the inline hooks).
 *
 * Closing: trace_stop clears trace_open, then runs a no-op on every CPU
 * (an IPI each), which no CPU takes while inside a hook (interrupts are
 * off there), so none still writes a ring when they are freed.
 *
 * Lock order: the profiler's prof_lock (held by its drain thread) →
 * trace_lock (the rings' memory: made, drained, freed under it) →
 * whatever trace_drain's callback takes (the profiler: the task table
 * lock). The hooks take no lock.
 */
#include <kernel/cpu.h>
#include <kernel/origin.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/vm.h>
#include <lib/ring.h>

volatile uint32_t trace_classes;
volatile bool trace_open;
trace_cpu_t trace_cpus[MAX_CPUS];
static uint64_t trace_dropped;               /* atomic: since boot */
static spinlock_t trace_lock = SPINLOCK_INIT("trace");

/* Free every CPU's ring; no hook is inside one (trace_stop waited). */
static void trace_free(void)
{
	void *mem[MAX_CPUS];
	uint64_t f = spin_lock_irqsave(&trace_lock);

	for (unsigned i = 0; i < MAX_CPUS; i++) {
		mem[i] = trace_cpus[i].slots;
		trace_cpus[i].slots = NULL;
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
		void *m = kmalloc(TRACE_SLOTS * sizeof(trace_slot_t));
		if (!m) {
			trace_free();
			return ENOMEM;
		}
		uint64_t f = spin_lock_irqsave(&trace_lock);
		trace_cpus[i] = (trace_cpu_t){ .slots = m };
		spin_unlock_irqrestore(&trace_lock, f);
	}
	__atomic_store_n(&trace_open, true, __ATOMIC_SEQ_CST);
	return EOK;
}

void trace_set(uint32_t classes)
{
	__atomic_store_n(&trace_classes, classes & PROF_F_TRACE, __ATOMIC_RELEASE);
}

/* Nothing: a CPU that runs it is not inside a hook (see the top). */
static void trace_quiet(void *arg)
{
	(void)arg;
}

void trace_stop(void)
{
	trace_set(0);
	if (!__atomic_load_n(&trace_open, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&trace_open, false, __ATOMIC_SEQ_CST);
	smp_call_all(trace_quiet, NULL);
	trace_free();
}

/* Is kind one whose last words are the other side (else an IPC call's)? */
static bool trace_sched_kind(unsigned kind)
{
	return kind == PROF_TR_SWITCH || kind == PROF_TR_WAKEUP;
}

/* The stream record of slot s, taken on cpu. */
static void trace_record(const trace_slot_t *s, unsigned cpu, prof_rec_trace_t *r)
{
	unsigned kind = (uint16_t)s->word;
	bool sched = trace_sched_kind(kind);

	*r = (prof_rec_trace_t){
		.h = { .type = PROF_REC_TRACE, .size = sizeof(*r), .cpu = cpu, .tsc = s->tsc },
		.kind = (uint16_t)kind, .why = (uint16_t)(s->word >> 16),
		.arg = (uint32_t)(s->word >> 32),
		.task = s->task, .thread = s->thread, .origin = s->origin, .task2 = s->task2,
		.thread2 = sched ? s->x : 0, .origin2 = sched ? s->y : 0,
		.call = sched ? 0 : s->x, .method = sched ? 0 : s->y,
	};
}

/* Give cpu's waiting slots to fn as records, oldest first; trace_lock held. */
static void trace_drain_locked(unsigned cpu, trace_fn_t fn, void *ctx)
{
	trace_cpu_t *tc = &trace_cpus[cpu];
	uint64_t head = __atomic_load_n(&tc->head, __ATOMIC_ACQUIRE);
	prof_rec_trace_t r;

	for (uint64_t t = tc->tail; t != head; t++) {
		trace_record(&tc->slots[t & (TRACE_SLOTS - 1)], cpu, &r);
		fn(&r, ctx);
		__atomic_store_n(&tc->tail, t + 1, __ATOMIC_RELEASE);
	}
}

uint64_t trace_drain(unsigned cpu, trace_fn_t fn, void *ctx)
{
	uint64_t dropped = 0;

	if (cpu >= cpu_count)
		return 0;
	uint64_t f = spin_lock_irqsave(&trace_lock);
	trace_cpu_t *tc = &trace_cpus[cpu];
	if (tc->slots) {
		trace_drain_locked(cpu, fn, ctx);
		uint64_t now = __atomic_load_n(&tc->dropped, __ATOMIC_RELAXED);
		dropped = now - tc->dropped_seen;
		tc->dropped_seen = now;
	}
	spin_unlock_irqrestore(&trace_lock, f);
	__atomic_add_fetch(&trace_dropped, dropped, __ATOMIC_RELAXED);
	return dropped;
}

uint64_t trace_lost(void)
{
	return __atomic_load_n(&trace_dropped, __ATOMIC_RELAXED);
}
