/*
 * Wait queues. Lock order: wq->lock → thread->lock → run queue lock.
 */
#include <kernel/sched.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/waitq.h>

void waitq_init(waitq_t *wq)
{
	wq->lock = (spinlock_t)SPINLOCK_INIT("waitq");
	list_init(&wq->waiters);
}

/* Take t off its wait queue with reason. wq locked. */
static void waitq_unlink(thread_t *t, errno_t reason)
{
	list_remove(&t->wait_node);
	t->waiting_on = NULL;
	t->wake_reason = reason;
}

/* Remove t from its wait queue with reason and make it runnable. wq locked. */
static void waitq_release(waitq_t *wq, thread_t *t, errno_t reason)
{
	waitq_unlink(t, reason);
	sched_wakeup(t);
}

static void waitq_timeout(ktimer_t *timer)
{
	thread_t *t = list_entry((list_node_t *)timer, thread_t, timer);
	waitq_t *wq = t->waiting_on;

	if (!wq)
		return;
	spin_lock(&wq->lock);
	if (t->waiting_on == wq)
		waitq_release(wq, t, ETIMEOUT);
	spin_unlock(&wq->lock);
}

/*
 * The absolute deadline timeout_ns from now, or 0 (forever) when it would
 * not fit in 64 bits: a huge timeout is no timeout, never a wrapped one.
 */
uint64_t waitq_deadline(uint64_t timeout_ns)
{
	if (!timeout_ns)
		return 0;
	uint64_t now = time_ns();
	if (timeout_ns > UINT64_MAX - now)
		return 0;
	return now + timeout_ns;
}

errno_t waitq_sleep_locked(waitq_t *wq, uint64_t *flags, uint64_t timeout_ns)
{
	return waitq_sleep_why(wq, flags, timeout_ns, WAIT_WHY_WAIT);
}

/* Set the current thread's state (and wait reason, if it sleeps). */
static void waitq_set_state(thread_t *t, thread_state_t state, unsigned why)
{
	spin_lock(&t->lock);
	t->state = state;
	if (state == THREAD_SLEEPING)
		t->wait_why = (uint8_t)why;
	spin_unlock(&t->lock);
}

/*
 * Put the current thread on wq as a sleeper, then look for a kill: EINTR
 * (and off wq again) if its task was killed. The order matters: a kill
 * sets `killed` and then wakes every sleeper it finds on a wait queue
 * (task_poke_threads), so a sleeper must be findable before it looks,
 * with a full fence between (the kill has one too, its lock): then either
 * the kill finds it or it sees the kill. Looking first lost the kill that
 * came in between, and the thread slept for ever. wq locked.
 */
static errno_t waitq_enter(waitq_t *wq, thread_t *t, unsigned why)
{
	t->wake_reason = EOK;
	t->waiting_on = wq;
	list_append(&wq->waiters, &t->wait_node);
	waitq_set_state(t, THREAD_SLEEPING, why);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!t->task->killed)
		return EOK;
	waitq_unlink(t, EINTR);
	waitq_set_state(t, THREAD_RUNNING, why);
	return EINTR;
}

errno_t waitq_sleep_why(waitq_t *wq, uint64_t *flags, uint64_t timeout_ns, unsigned why)
{
	thread_t *t = thread_current();
	uint64_t deadline = waitq_deadline(timeout_ns);

	if (waitq_enter(wq, t, why) != EOK)
		return EINTR;
	if (deadline)
		ktimer_arm(&t->timer, deadline, waitq_timeout);
	spin_unlock(&wq->lock);          /* interrupts stay off */
	sched_schedule();
	if (deadline)
		ktimer_cancel(&t->timer);
	spin_lock(&wq->lock);
	if (t->waiting_on == wq)          /* not woken through the queue */
		waitq_release(wq, t, EINTR);
	return t->wake_reason;
}

bool waitq_wake_one_locked(waitq_t *wq)
{
	list_node_t *n = list_first(&wq->waiters);
	if (!n)
		return false;
	waitq_release(wq, list_entry(n, thread_t, wait_node), EOK);
	return true;
}

size_t waitq_wake_all_locked(waitq_t *wq)
{
	size_t n = 0;
	while (waitq_wake_one_locked(wq))
		n++;
	return n;
}

size_t waitq_wake_all_locked_to(waitq_t *wq, const thread_t *to)
{
	size_t n = 0;
	list_node_t *it;

	while ((it = list_first(&wq->waiters))) {
		thread_t *t = list_entry(it, thread_t, wait_node);
		bool sync = t == to || (to == WAITQ_FIRST && n == 0);
		waitq_unlink(t, EOK);
		if (sync)
			sched_wakeup_sync(t, to == WAITQ_FIRST);
		else
			sched_wakeup(t);
		n++;
	}
	return n;
}

void waitq_wake_thread_locked(thread_t *t, const thread_t *to)
{
	waitq_unlink(t, EOK);
	if (t == to || to == WAITQ_FIRST)
		sched_wakeup_sync(t, to == WAITQ_FIRST);
	else
		sched_wakeup(t);
}

bool waitq_wake_one(waitq_t *wq)
{
	uint64_t f = spin_lock_irqsave(&wq->lock);
	bool woke = waitq_wake_one_locked(wq);
	spin_unlock_irqrestore(&wq->lock, f);
	return woke;
}

size_t waitq_wake_all(waitq_t *wq)
{
	uint64_t f = spin_lock_irqsave(&wq->lock);
	size_t n = waitq_wake_all_locked(wq);
	spin_unlock_irqrestore(&wq->lock, f);
	return n;
}

void waitq_interrupt(thread_t *t)
{
	uint64_t f = irq_save();
	waitq_t *wq = t->waiting_on;

	if (wq) {
		spin_lock(&wq->lock);
		if (t->waiting_on == wq)
			waitq_release(wq, t, EINTR);
		spin_unlock(&wq->lock);
	}
	irq_restore(f);
}
