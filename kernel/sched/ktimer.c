/*
 * One-shot timers on each CPU's tick: a per-CPU list sorted by deadline.
 * Lock order: a CPU's timer lock is taken alone; callbacks run unlocked.
 */
#include <kernel/cpu.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/ktimer.h>

typedef struct timer_cpu {
	spinlock_t lock;
	list_t pending;
	ktimer_t *volatile running;
} timer_cpu_t;

static timer_cpu_t timer_cpus[MAX_CPUS];

/* Set up every CPU's timer list (boot, before any timer is armed). */
void ktimer_init(void)
{
	for (int i = 0; i < MAX_CPUS; i++) {
		timer_cpus[i].lock = (spinlock_t)SPINLOCK_INIT("timer");
		list_init(&timer_cpus[i].pending);
	}
}

void ktimer_arm(ktimer_t *t, uint64_t deadline_ns, void (*fn)(ktimer_t *t))
{
	uint64_t f = irq_save();
	timer_cpu_t *tc = &timer_cpus[cpu_id()];
	list_node_t *pos = &tc->pending;

	spin_lock(&tc->lock);
	t->deadline_ns = deadline_ns;
	t->fn = fn;
	t->cpu = cpu_id();
	list_foreach(&tc->pending, it) {
		if (list_entry(it, ktimer_t, node)->deadline_ns > deadline_ns)
			break;
		pos = it;
	}
	list_insert_after(pos, &t->node);
	t->armed = true;
	spin_unlock(&tc->lock);
	irq_restore(f);
}

bool ktimer_cancel(ktimer_t *t)
{
	uint64_t f = irq_save();
	timer_cpu_t *tc = &timer_cpus[t->cpu];
	bool was_armed;

	spin_lock(&tc->lock);
	was_armed = t->armed;
	if (was_armed) {
		list_remove(&t->node);
		t->armed = false;
	}
	spin_unlock(&tc->lock);
	while (tc->running == t)        /* firing right now elsewhere: let it end */
		cpu_relax();
	irq_restore(f);
	return was_armed;
}

/* Pop the first timer due by now, marking it running. */
static ktimer_t *timer_pop_due(timer_cpu_t *tc, uint64_t now)
{
	ktimer_t *t = NULL;

	spin_lock(&tc->lock);
	list_node_t *n = list_first(&tc->pending);
	if (n && list_entry(n, ktimer_t, node)->deadline_ns <= now) {
		t = list_entry(n, ktimer_t, node);
		list_remove(n);
		t->armed = false;
		tc->running = t;
	}
	spin_unlock(&tc->lock);
	return t;
}

void ktimer_tick(void)
{
	timer_cpu_t *tc = &timer_cpus[cpu_id()];
	uint64_t now = time_ns();
	ktimer_t *t;

	while ((t = timer_pop_due(tc, now))) {
		t->fn(t);
		tc->running = NULL;
	}
}
