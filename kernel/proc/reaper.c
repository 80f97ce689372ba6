/*
 * The reaper thread (<kernel/reaper.h>): a dead task's teardown, taken
 * out of the switch path. sched_finish_switch → thread_reap frees the
 * last thread's stack with interrupts off and queues the task here; this
 * thread then runs task_release_space with interrupts on, so freeing a
 * large space (about 62 us of interrupts-off time per MiB under TCG
 * before) is many short sections, one per frame_free.
 *
 * reaper_wq.lock guards the queue and the counts; it nests no other lock.
 */
#include <abi/wait.h>
#include <kernel/printk.h>
#include <kernel/reaper.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/waitq.h>

#define LOG_PREFIX "reaper"
#define REAPER_PRIO (THREAD_PRIO_DEFAULT + 1)   /* ahead of ordinary tasks */

static waitq_t reaper_wq = {
	.lock = SPINLOCK_INIT("reaper"),
	.waiters = LIST_INIT(reaper_wq.waiters),
};
static list_t reaper_list = LIST_INIT(reaper_list);
static uint64_t reaper_queued, reaper_released;

void reaper_queue(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&reaper_wq.lock);

	list_append(&reaper_list, &t->reap_node);
	reaper_queued++;
	waitq_wake_one_locked(&reaper_wq);
	spin_unlock_irqrestore(&reaper_wq.lock, f);
}

/* The oldest queued task, sleeping until there is one. */
static task_t *reaper_take(void)
{
	uint64_t f = spin_lock_irqsave(&reaper_wq.lock);

	while (list_empty(&reaper_list))
		waitq_sleep_why(&reaper_wq, &f, 0, WAIT_WHY_WAIT);
	list_node_t *n = reaper_list.next;
	list_remove(n);
	spin_unlock_irqrestore(&reaper_wq.lock, f);
	return list_entry(n, task_t, reap_node);
}

static void reaper_count_done(void)
{
	uint64_t f = spin_lock_irqsave(&reaper_wq.lock);

	reaper_released++;
	spin_unlock_irqrestore(&reaper_wq.lock, f);
}

static void reaper_thread(void *arg)
{
	(void)arg;
	for (;;) {
		task_release_space(reaper_take());     /* interrupts on */
		reaper_count_done();
	}
}

void reaper_init(void)
{
	if (thread_create_kernel_on("reaper", reaper_thread, NULL, REAPER_PRIO, ~0ull,
				    NULL) != EOK)
		panic("reaper: cannot create the reaper thread");
}

void reaper_stats(uint64_t *queued, uint64_t *released)
{
	uint64_t f = spin_lock_irqsave(&reaper_wq.lock);

	*queued = reaper_queued - reaper_released;
	*released = reaper_released;
	spin_unlock_irqrestore(&reaper_wq.lock, f);
}
