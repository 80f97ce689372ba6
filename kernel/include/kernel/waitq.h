/*
 * Wait queues: threads sleep on them until woken, optionally with a
 * timeout, and wake early with EINTR when their task is killed.
 */
#ifndef KERNEL_WAITQ_H
#define KERNEL_WAITQ_H

#include <kernel/spinlock.h>
#include <kernel/types.h>
#include <lib/list.h>

typedef struct waitq {
	spinlock_t lock;
	list_t waiters;
} waitq_t;

void waitq_init(waitq_t *wq);

/*
 * Sleep on wq. The caller holds wq->lock (taken with spin_lock_irqsave,
 * flags in *flags) after checking its condition; it is released while
 * sleeping and re-taken before returning. timeout_ns 0 = forever, and so
 * is any timeout whose deadline would pass UINT64_MAX ns. Returns
 * EOK (woken), ETIMEOUT, or EINTR (the task was killed).
 */
errno_t waitq_sleep_locked(waitq_t *wq, uint64_t *flags, uint64_t timeout_ns);

/*
 * waitq_sleep_locked() for a reason why (WAIT_WHY_*, abi/wait.h: what
 * monitoring says the thread waits for); waitq_sleep_locked() says
 * WAIT_WHY_WAIT. WAIT_WHY_IPC takes the thread's wait_task and
 * wait_method, which the caller sets first.
 */
errno_t waitq_sleep_why(waitq_t *wq, uint64_t *flags, uint64_t timeout_ns, unsigned why);
/* time_ns() + timeout_ns, or 0 (no deadline) for 0 or one past UINT64_MAX. */
uint64_t waitq_deadline(uint64_t timeout_ns);

/* Wake one waiter (the oldest). Returns true if there was one. */
bool waitq_wake_one(waitq_t *wq);

/* Wake every waiter. Returns how many. */
size_t waitq_wake_all(waitq_t *wq);

/* The same, with wq->lock already held. */
bool waitq_wake_one_locked(waitq_t *wq);
size_t waitq_wake_all_locked(waitq_t *wq);

struct thread;

/* waitq_wake_all_locked_to(): the first waiter, whichever it is. */
#define WAITQ_FIRST ((const struct thread *)1)

/*
 * waitq_wake_all_locked(), but the waiter to is woken with
 * sched_wakeup_sync: its waker probably blocks next (a server that
 * answered); to WAITQ_FIRST: the first waiter, and the waker blocks next
 * for certain (a synchronous call). Returns how many were woken.
 */
size_t waitq_wake_all_locked_to(waitq_t *wq, const struct thread *to);

/*
 * Wake t alone, a sleeper on a wait queue whose lock is held, as
 * waitq_wake_all_locked_to(its queue, to) would wake it: a direct
 * transfer's receiver (ipc.c), which needs no other waiter to wake.
 */
void waitq_wake_thread_locked(struct thread *t, const struct thread *to);

/* Wake t with EINTR if it is sleeping on a wait queue. */
void waitq_interrupt(struct thread *t);

#endif
