/*
 * Sleeping mutexes (see kernel/mutex.h). The wait queue's lock guards the
 * owner; unlock hands the mutex over by waking the oldest waiter, which
 * takes it if no one was quicker (and sleeps again if someone was).
 * Lock order: a mutex's wait-queue lock is taken alone.
 */
#include <kernel/mutex.h>
#include <kernel/printk.h>
#include <kernel/thread.h>

void kmutex_init(kmutex_t *m, const char *name)
{
	waitq_init(&m->wq);
	m->wq.lock.name = name;
	m->owner = NULL;
}

void kmutex_lock(kmutex_t *m)
{
	thread_t *me = thread_current();
	uint64_t f = spin_lock_irqsave(&m->wq.lock);

	assert(m->owner != me);
	while (m->owner) {
		/* EINTR (a killed task): back off a tick, then try again. */
		if (waitq_sleep_locked(&m->wq, &f, 0) == EINTR) {
			spin_unlock_irqrestore(&m->wq.lock, f);
			thread_sleep(1000000);
			f = spin_lock_irqsave(&m->wq.lock);
		}
	}
	m->owner = me;
	spin_unlock_irqrestore(&m->wq.lock, f);
}

void kmutex_unlock(kmutex_t *m)
{
	uint64_t f = spin_lock_irqsave(&m->wq.lock);

	assert(m->owner == thread_current());
	m->owner = NULL;
	waitq_wake_one_locked(&m->wq);
	spin_unlock_irqrestore(&m->wq.lock, f);
}

bool kmutex_held(const kmutex_t *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == thread_current();
}
