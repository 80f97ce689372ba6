/*
 * The scheduler: see kernel/sched.h.
 *
 * A switched-out thread stays "on CPU" until the switch has completed on
 * its old CPU (sched_finish_switch); only then is it queued again, so no
 * other CPU can pick it while its registers are still being saved.
 *
 * Lock order: thread->lock → run queue lock; two run queues are never held
 * together (stealing removes from one queue and runs the thread directly).
 */
#include <arch/interrupt.h>
#include <arch/smp.h>
#include <arch/thread.h>
#include <kernel/acct.h>
#include <kernel/idle.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/prof.h>
#include <kernel/smp.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/vm.h>

typedef struct run_queue {
	spinlock_t lock;
	list_t levels[THREAD_PRIO_LEVELS];
	uint32_t mask;              /* bit p set: level p not empty */
	volatile uint32_t count;
} run_queue_t;

static run_queue_t run_queues[MAX_CPUS];

static void rq_add(run_queue_t *rq, thread_t *t)
{
	t->rq_cpu = (int32_t)(rq - run_queues);
	list_append(&rq->levels[t->priority], &t->rq_node);
	rq->mask |= 1u << t->priority;
	rq->count++;
}

static void rq_remove(run_queue_t *rq, thread_t *t)
{
	t->rq_cpu = -1;
	list_remove(&t->rq_node);
	if (list_empty(&rq->levels[t->priority]))
		rq->mask &= ~(1u << t->priority);
	rq->count--;
}

/* Highest-priority thread that may run on cpu, removed from rq; or NULL. */
static thread_t *rq_take(run_queue_t *rq, uint32_t cpu)
{
	for (uint32_t m = rq->mask; m; m &= ~(1u << (31 - __builtin_clz(m)))) {
		int p = 31 - __builtin_clz(m);    /* the highest non-empty level left */
		list_foreach(&rq->levels[p], it) {
			thread_t *t = list_entry(it, thread_t, rq_node);
			if (t->affinity & (1ull << cpu)) {
				rq_remove(rq, t);
				return t;
			}
		}
	}
	return NULL;
}

static bool cpu_is_idle(cpu_t *c)
{
	return c->online && c->current == c->idle && run_queues[c->id].count == 0;
}

static bool sched_allowed(const thread_t *t, uint32_t cpu)
{
	return cpu < cpu_count && (t->affinity & (1ull << cpu)) && cpus[cpu]->online;
}

/*
 * Where a woken thread should run: its last CPU if idle, any idle CPU, its
 * last CPU, any CPU; always one its affinity allows (CPU 0 if none is).
 */
static uint32_t sched_pick_cpu(thread_t *t)
{
	bool last_ok = sched_allowed(t, t->cpu);

	if (last_ok && cpu_is_idle(cpus[t->cpu]))
		return t->cpu;
	for (uint32_t i = 0; i < cpu_count; i++)
		if (sched_allowed(t, i) && cpu_is_idle(cpus[i]))
			return i;
	if (last_ok)
		return t->cpu;
	for (uint32_t i = 0; i < cpu_count; i++)
		if (sched_allowed(t, i))
			return i;
	return 0;
}

/* Make c look at its queue: an IPI, unless it is polling it. */
static void sched_poke(cpu_t *c)
{
	if (!idle_poke_polling(c))
		arch_send_resched(c);
}

/* Queue t on cpu and poke that CPU if it should look. t->lock held. */
static void sched_enqueue(thread_t *t, uint32_t cpu)
{
	run_queue_t *rq = &run_queues[cpu];
	cpu_t *c = cpus[cpu];

	spin_lock(&rq->lock);
	rq_add(rq, t);
	spin_unlock(&rq->lock);
	if (cpu == cpu_id()) {
		if (c->current == c->idle || t->priority > c->current->priority)
			c->need_resched = true;
	} else if (c->current == c->idle || t->priority > c->current->priority) {
		sched_poke(c);
	}
}

/* Is another CPU that t may use idle? */
static bool sched_idle_elsewhere(const cpu_t *c, const thread_t *t)
{
	for (uint32_t i = 0; i < cpu_count; i++)
		if (i != c->id && sched_allowed(t, i) && cpu_is_idle(cpus[i]))
			return true;
	return false;
}

/*
 * May t go to this CPU's hand-off slot (sched_wakeup_sync)? Not when its
 * waker only probably blocks (!sure) and another CPU could run t now.
 * t->lock held.
 */
static bool sched_handoff_ok(cpu_t *c, const thread_t *t, bool sure)
{
	return !c->handoff && t->cpu == c->id && (t->affinity & (1ull << c->id)) &&
	       c->current != c->idle && t->priority <= c->current->priority &&
	       (sure || !sched_idle_elsewhere(c, t));
}

/*
 * The trace of a wakeup: a thread handed off to this CPU has no WAKEUP
 * (the switch to it follows) unless it is queued after all, then with
 * the time kept here (sched_take_handoff).
 */
static void sched_trace_wakeup(cpu_t *c, thread_t *t, bool handoff)
{
	if (handoff)
		c->handoff_tsc = time_cycles();
	else
		trace_wakeup(t, time_cycles());
}

void sched_wakeup_sync(thread_t *t, bool sure)
{
	cpu_t *c = cpu_current();

	spin_lock(&t->lock);
	if (t->state == THREAD_SLEEPING) {
		t->state = THREAD_READY;
		bool handoff = !t->on_cpu && sched_handoff_ok(c, t, sure);
		if (trace_wants(PROF_F_TRACE_SCHED))
			sched_trace_wakeup(c, t, handoff);
		if (handoff)
			c->handoff = t;
		else if (!t->on_cpu)            /* else sched_finish_switch queues it */
			sched_enqueue(t, sched_pick_cpu(t));
	}
	spin_unlock(&t->lock);
}

void sched_wakeup(thread_t *t)
{
	uint64_t f = irq_save();

	spin_lock(&t->lock);
	if (t->state == THREAD_SLEEPING) {
		t->state = THREAD_READY;
		if (trace_wants(PROF_F_TRACE_SCHED))
			trace_wakeup(t, time_cycles());
		if (!t->on_cpu)
			sched_enqueue(t, sched_pick_cpu(t));
	}
	spin_unlock(&t->lock);
	irq_restore(f);
}

/* Take t off the run queue it waits on, if any. t->lock held. */
static bool sched_dequeue(thread_t *t)
{
	int32_t cpu = t->rq_cpu;
	if (cpu < 0)
		return false;
	run_queue_t *rq = &run_queues[cpu];
	spin_lock(&rq->lock);
	bool queued = t->rq_cpu == cpu;
	if (queued)
		rq_remove(rq, t);
	spin_unlock(&rq->lock);
	return queued;
}

void sched_set_params(thread_t *t, int priority, uint64_t affinity)
{
	uint64_t f = irq_save();

	spin_lock(&t->lock);
	bool requeue = sched_dequeue(t);
	if (priority >= 0)
		t->priority = (uint8_t)MIN(priority, THREAD_PRIO_LEVELS - 1);
	if (affinity)
		t->affinity = affinity;
	if (requeue)
		sched_enqueue(t, sched_pick_cpu(t));
	else if (t->state == THREAD_RUNNING && !(t->affinity & (1ull << t->cpu)) &&
		 t->cpu != cpu_id())
		arch_send_resched(cpus[t->cpu]);
	spin_unlock(&t->lock);
	if (t == thread_current() && !(t->affinity & (1ull << cpu_id())))
		sched_need_resched();
	irq_restore(f);
}

/* Take a READY thread from the busiest other queue that allows this CPU. */
static thread_t *sched_steal(uint32_t me)
{
	uint32_t best = me, most = 0;

	for (uint32_t i = 0; i < cpu_count; i++)
		if (i != me && run_queues[i].count > most) {
			most = run_queues[i].count;
			best = i;
		}
	if (best == me)
		return NULL;
	run_queue_t *rq = &run_queues[best];
	spin_lock(&rq->lock);
	thread_t *t = rq_take(rq, me);
	spin_unlock(&rq->lock);
	return t;
}

/* The thread to run next on c, or NULL to keep prev (if runnable). */
static thread_t *sched_pick_next(cpu_t *c, thread_t *prev, bool prev_ready)
{
	run_queue_t *rq = c->rq;

	spin_lock(&rq->lock);
	thread_t *next = rq_take(rq, c->id);
	if (next && prev_ready && prev->priority > next->priority) {
		list_prepend(&rq->levels[next->priority], &next->rq_node);
		next->rq_cpu = (int32_t)c->id;
		rq->mask |= 1u << next->priority;
		rq->count++;
		next = NULL;                    /* prev outranks everything queued */
	}
	spin_unlock(&rq->lock);
	if (!next && !prev_ready)
		next = sched_steal(c->id);
	return next;
}

/* After a switch, on the new thread: queue or reap the one switched away. */
void sched_finish_switch(void)
{
	cpu_t *c = cpu_current();
	thread_t *prev = c->prev;

	if (__builtin_expect(prof_offcpu_on, 0))
		prof_offcpu_resume(c->current);
	c->prev = NULL;
	if (!prev)
		return;
	spin_lock(&prev->lock);
	prev->on_cpu = false;
	thread_state_t st = prev->state;
	if (st == THREAD_READY && prev != c->idle)
		sched_enqueue(prev, (prev->affinity & (1ull << c->id)) ? c->id : sched_pick_cpu(prev));
	spin_unlock(&prev->lock);
	if (st == THREAD_ZOMBIE)
		thread_reap(prev);
}

/*
 * Is prev still runnable here (preempted or yielding: it becomes READY)?
 * A thread that put itself to sleep or exited needs no lock: a waker
 * making it READY meanwhile sees on_cpu and leaves the queueing to
 * sched_finish_switch, as it would after the lock.
 */
static bool sched_prev_ready(cpu_t *c, thread_t *prev)
{
	thread_state_t st = prev->state;

	if (st == THREAD_SLEEPING || st == THREAD_ZOMBIE)
		return false;
	spin_lock(&prev->lock);
	if (prev->state == THREAD_RUNNING) {
		prev->state = THREAD_READY;      /* preempted or yielding */
		prev->wait_why = prev == c->idle ? WAIT_WHY_NONE : WAIT_WHY_RUNNABLE;
	}
	bool ready = prev->state == THREAD_READY && prev != c->idle &&
		     (prev->affinity & (1ull << c->id));
	spin_unlock(&prev->lock);
	return ready;
}

/*
 * The thread in c's hand-off slot, emptied, if it is to run now: prev
 * blocked, it may run here and nothing queued here outranks it (an
 * unlocked look at the mask: a thread queued meanwhile waits its turn).
 * Otherwise it is queued and NULL returned. Interrupts off.
 */
static thread_t *sched_take_handoff(cpu_t *c, bool prev_ready)
{
	thread_t *h = c->handoff;
	uint32_t mask = c->rq->mask;

	c->handoff = NULL;
	bool here = h->affinity & (1ull << c->id);
	if (!prev_ready && here && (!mask || 31 - __builtin_clz(mask) <= h->priority))
		return h;
	if (trace_wants(PROF_F_TRACE_SCHED))       /* its waker is c->current */
		trace_wakeup(h, c->handoff_tsc >= c->current->acct.last_switch_in ? c->handoff_tsc
			     : time_cycles());
	spin_lock(&h->lock);
	sched_enqueue(h, here ? c->id : sched_pick_cpu(h));
	spin_unlock(&h->lock);
	return NULL;
}

static void sched_keep(thread_t *t)
{
	spin_lock(&t->lock);
	t->state = THREAD_RUNNING;
	spin_unlock(&t->lock);
	t->slice = SCHED_SLICE_TICKS;
}

bool sched_schedule(void)
{
	cpu_t *c = cpu_current();
	thread_t *prev = c->current;

	assert(!irq_enabled());
	c->need_resched = false;
	bool prev_ready = sched_prev_ready(c, prev);
	thread_t *next = c->handoff ? sched_take_handoff(c, prev_ready) : NULL;
	uint32_t slice = next ? MAX(prev->slice, 1u) : SCHED_SLICE_TICKS;
	if (!next)
		next = sched_pick_next(c, prev, prev_ready);
	if (!next)
		next = prev_ready ? prev : c->idle;
	if (next == prev) {
		sched_keep(prev);
		return false;
	}
	spin_lock(&next->lock);
	next->state = THREAD_RUNNING;
	next->on_cpu = true;
	next->cpu = c->id;
	spin_unlock(&next->lock);
	next->slice = slice;            /* a hand-off runs on the rest of prev's slice */
	acct_switch(c, prev, next);     /* charges c->current: prev, still */
	c->current = next;
	c->prev = prev;
	if (trace_wants(PROF_F_TRACE_SCHED))
		trace_switch(prev, next, c->acct.last);
	arch_thread_switch(prev, next);
	sched_finish_switch();
	return true;
}

void sched_yield(void)
{
	uint64_t f = irq_save();
	bool switched = sched_schedule();

	irq_restore(f);
	if (!switched)
		cpu_relax();
}

void sched_need_resched(void)
{
	cpu_current()->need_resched = true;
}

void preempt_disable(void)
{
	uint64_t f = irq_save();
	cpu_current()->preempt_count++;
	irq_restore(f);
}

void preempt_enable(void)
{
	uint64_t f = irq_save();
	cpu_current()->preempt_count--;
	irq_restore(f);
}

void sched_preempt_point(void)
{
	cpu_t *c = cpu_current();
	if (c->need_resched && c->preempt_count == 0)
		sched_schedule();
}

void sched_tick(void)
{
	cpu_t *c = cpu_current();
	thread_t *t = c->current;

	ktimer_tick();
	if (c->handoff)                         /* its waker ran on: queue it */
		c->need_resched = true;
	if (t == c->idle) {
		if (c->rq->count)
			c->need_resched = true;
	} else if (t->slice && --t->slice == 0) {
		c->need_resched = true;
	}
}

static void sched_resched_ipi(int_frame_t *f)
{
	sched_need_resched();
}

size_t sched_queue_length(uint32_t cpu)
{
	return run_queues[cpu].count;
}

void sched_init_cpu(void)
{
	cpu_t *c = cpu_current();
	run_queue_t *rq = &run_queues[c->id];

	rq->lock = (spinlock_t)SPINLOCK_INIT("runq");
	for (int p = 0; p < THREAD_PRIO_LEVELS; p++)
		list_init(&rq->levels[p]);
	c->rq = rq;
	if (c->id == 0)
		arch_set_resched_handler(sched_resched_ipi);
	thread_init_boot(c->id);
}

bool sched_has_local_work(const cpu_t *c)
{
	return c->rq->count || c->need_resched;
}

/* Anything to steal? (cheap, unlocked look) */
static bool sched_work_elsewhere(uint32_t me)
{
	for (uint32_t i = 0; i < cpu_count; i++)
		if (i != me && run_queues[i].count > 0)
			return true;
	return false;
}

/*
 * The idle loop. Every pass ends with interrupts enabled, so a queue
 * holding only threads this CPU may not run can never stop its tick.
 */
void sched_start(void)
{
	cpu_t *c = cpu_current();

	for (;;) {
		kstack_drain();                 /* freed stacks: with interrupts on */
		irq_disable();
		if (c->rq->count || c->need_resched || sched_work_elsewhere(c->id))
			sched_schedule();       /* back here when idle again */
		if (c->need_resched)
			irq_enable();
		else
			idle_wait(c);           /* poll, then sti; hlt */
	}
}

uint32_t sched_runnable(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < cpu_count; i++) {
		cpu_t *c = cpus[i];
		if (!c || !c->online)
			continue;
		n += run_queues[i].count;
		n += c->current && c->current != c->idle;
		n += c->handoff != NULL;
	}
	return n;
}
