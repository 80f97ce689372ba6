/*
 * Threads: creation, the first run, exit, join and reaping.
 *
 * A thread_t lives while it is not yet reaped (its stack may be in use)
 * or while someone may still join it: two references. thread_reap() drops
 * the first after the thread was switched away for the last time; join,
 * detach or the end of its task drop the second.
 *
 * Lock order: task->lock → thread->lock; thread_list_lock alone.
 */
#include <abi/limits.h>
#include <arch/cpu.h>
#include <arch/thread.h>
#include <kernel/acct.h>
#include <kernel/origin.h>
#include <kernel/cprof.h>
#include <kernel/printk.h>
#include <kernel/reaper.h>
#include <kernel/sched.h>
#include <kernel/task.h>
#include <kernel/vm.h>
#include <lib/fmt.h>
#include <lib/string.h>

static volatile thread_id_t thread_next_id = 1;
static list_t thread_list = LIST_INIT(thread_list);
static spinlock_t thread_list_lock = SPINLOCK_INIT("threads");

static thread_t *thread_alloc(task_t *task, const char *name, bool kernel)
{
	thread_t *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	if (kstack_alloc(THREAD_KSTACK_PAGES, &t->kstack_top) != EOK) {
		kfree(t);
		return NULL;
	}
	t->id = __atomic_fetch_add(&thread_next_id, 1, __ATOMIC_RELAXED);
	strlcpy(t->name, name, sizeof(t->name));
	t->task = task;
	t->lock = (spinlock_t)SPINLOCK_INIT("thread");
	t->state = THREAD_SLEEPING;          /* not yet runnable */
	t->kernel = kernel;
	t->priority = THREAD_PRIO_DEFAULT;
	t->affinity = ~0ull;
	t->cpu = cpu_id();
	t->rq_cpu = -1;
	t->refs = 2;
	waitq_init(&t->joiners);
	list_init(&t->wait_node);
	arch_thread_setup(t);
	cprof_thread_init(t);
	return t;
}

/* Link a new thread into its task and the global list. */
static void thread_publish(thread_t *t)
{
	uint64_t f = spin_lock_irqsave(&t->task->lock);
	list_append(&t->task->threads, &t->task_node);
	t->task->nthreads++;
	t->task->nunreaped++;
	spin_unlock_irqrestore(&t->task->lock, f);
	f = spin_lock_irqsave(&thread_list_lock);
	list_append(&thread_list, &t->all_node);
	spin_unlock_irqrestore(&thread_list_lock, f);
}

errno_t thread_create_kernel(const char *name, void (*entry)(void *), void *arg,
			     thread_t **out)
{
	return thread_create_kernel_on(name, entry, arg, THREAD_PRIO_DEFAULT, ~0ull, out);
}

errno_t thread_create_kernel_on(const char *name, void (*entry)(void *), void *arg,
				int priority, uint64_t affinity, thread_t **out)
{
	thread_t *t = thread_alloc(&kernel_task, name, true);

	if (!t)
		return ENOMEM;
	t->priority = (uint8_t)MIN(priority, THREAD_PRIO_LEVELS - 1);
	t->affinity = affinity;
	t->entry = entry;
	t->arg = arg;
	thread_publish(t);
	if (!out)
		thread_detach(t);
	else
		*out = t;
	sched_wakeup(t);
	return EOK;
}

/* Reserve one of task's LIMIT_THREADS thread structures; false if none is left. */
static bool thread_charge(task_t *task)
{
	if (__atomic_add_fetch(&task->thread_structs, 1, __ATOMIC_ACQ_REL) <= LIMIT_THREADS)
		return true;
	__atomic_sub_fetch(&task->thread_structs, 1, __ATOMIC_ACQ_REL);
	return false;
}

static void thread_uncharge(task_t *task)
{
	__atomic_sub_fetch(&task->thread_structs, 1, __ATOMIC_ACQ_REL);
}

errno_t thread_prepare_user(task_t *task, uintptr_t entry, uintptr_t stack,
			    uintptr_t arg, thread_t **out)
{
	if (!thread_charge(task))
		return ELIMIT;
	thread_t *t = thread_alloc(task, task->name, false);

	if (!t) {
		thread_uncharge(task);
		return ENOMEM;
	}
	t->user_entry = entry;
	t->user_stack = stack;
	t->user_arg = arg;
	arch_fpu_reset(t);
	thread_publish(t);
	*out = t;
	return EOK;
}

errno_t thread_create_user(task_t *task, uintptr_t entry, uintptr_t stack,
			   uintptr_t arg, thread_t **out)
{
	errno_t rc = thread_prepare_user(task, entry, stack, arg, out);

	if (rc == EOK)
		sched_wakeup(*out);
	return rc;
}

/* First code of every thread (from thread_start_asm), interrupts off. */
void thread_bootstrap(void)
{
	thread_t *t = thread_current();

	sched_finish_switch();
	if (t->kernel) {
		irq_enable();
		t->entry(t->arg);
		thread_exit(0);
	}
	acct_user_enter();
	irqlat_off_end();               /* IF goes on with the entry to user mode */
	arch_enter_user(t->user_entry, t->user_stack, t->user_arg);
}

static void thread_free(thread_t *t)
{
	uint64_t f = spin_lock_irqsave(&t->task->lock);
	list_remove(&t->task_node);
	spin_unlock_irqrestore(&t->task->lock, f);
	f = spin_lock_irqsave(&thread_list_lock);
	list_remove(&t->all_node);
	spin_unlock_irqrestore(&thread_list_lock, f);
	cprof_thread_fini(t);
	if (!t->kernel)
		thread_uncharge(t->task);
	kfree(t);
}

void thread_ref(thread_t *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void thread_unref(thread_t *t)
{
	if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		thread_free(t);
}

void thread_detach(thread_t *t)
{
	t->join_claimed = true;
	thread_unref(t);
}

void thread_reap(thread_t *t)
{
	task_t *task = t->task;
	/*
	 * The space goes when the last thread is reaped, not when the last one
	 * exits: another exiting thread may still run on its page tables.
	 */
	uint64_t f = spin_lock_irqsave(&task->lock);
	bool last = --task->nunreaped == 0 && task != &kernel_task;
	spin_unlock_irqrestore(&task->lock, f);

	kstack_free(t->kstack_top, THREAD_KSTACK_PAGES);
	t->kstack_top = 0;
	thread_unref(t);                  /* may free t; the task is still alive */
	if (last)
		reaper_queue(task);         /* its space goes with interrupts on */
}

void thread_exit(long value)
{
	thread_t *t = thread_current();
	task_t *task = t->task;

	origin_serve_flush(true);         /* drops its origins' references */
	uint64_t f = spin_lock_irqsave(&task->lock);
	task->acct.user_cycles += t->acct.user_cycles;
	task->acct.kernel_cycles += t->acct.kernel_cycles;
	--task->nthreads;
	spin_unlock_irqrestore(&task->lock, f);
	f = spin_lock_irqsave(&t->joiners.lock);
	t->exit_value = value;
	t->exited = true;
	waitq_wake_all_locked(&t->joiners);
	spin_unlock(&t->joiners.lock);
	spin_lock(&t->lock);
	t->state = THREAD_ZOMBIE;
	spin_unlock(&t->lock);
	sched_schedule();
	panic("thread: a zombie was scheduled");
}

errno_t thread_join(thread_t *t, long *value)
{
	errno_t rc = EOK;

	if (t == thread_current())
		return EINVAL;
	uint64_t f = spin_lock_irqsave(&t->joiners.lock);
	while (!t->exited && rc == EOK)
		rc = waitq_sleep_why(&t->joiners, &f, 0, WAIT_WHY_JOIN);
	spin_unlock_irqrestore(&t->joiners.lock, f);
	if (rc == EOK && value)
		*value = t->exit_value;
	thread_unref(t);                   /* the joinable reference, in any case */
	return rc;
}

thread_t *thread_find(task_t *task, thread_id_t id)
{
	list_foreach(&task->threads, it) {
		thread_t *t = list_entry(it, thread_t, task_node);
		if (t->id == id)
			return t;
	}
	return NULL;
}

errno_t thread_sleep(uint64_t ns)
{
	waitq_t wq;
	waitq_init(&wq);
	uint64_t f = spin_lock_irqsave(&wq.lock);
	errno_t rc = waitq_sleep_why(&wq, &f, ns ? ns : 1, WAIT_WHY_SLEEP);
	spin_unlock_irqrestore(&wq.lock, f);
	return rc == ETIMEOUT ? EOK : rc;
}

void thread_init_boot(uint32_t cpu)
{
	cpu_t *c = cpu_current();
	thread_t *t = kzalloc(sizeof(*t));

	if (!t)
		panic("thread: no memory for the idle thread of cpu %u", cpu);
	t->id = __atomic_fetch_add(&thread_next_id, 1, __ATOMIC_RELAXED);
	fmt_snprintf(t->name, sizeof(t->name), "idle/%u", cpu);
	t->task = &kernel_task;
	t->lock = (spinlock_t)SPINLOCK_INIT("thread");
	t->state = THREAD_RUNNING;
	t->on_cpu = true;
	t->kernel = true;
	t->priority = 0;
	t->affinity = 1ull << cpu;
	t->cpu = cpu;
	t->rq_cpu = -1;
	t->refs = 2;
	t->kstack_top = c->stack_top;
	waitq_init(&t->joiners);
	list_init(&t->wait_node);
	thread_publish(t);
	c->current = c->idle = t;
	arch_cpu_set_kernel_stack(c, c->stack_top);
}

void thread_foreach(void (*fn)(thread_t *t, void *ctx), void *ctx)
{
	uint64_t f = spin_lock_irqsave(&thread_list_lock);

	list_foreach(&thread_list, it)
		fn(list_entry(it, thread_t, all_node), ctx);
	spin_unlock_irqrestore(&thread_list_lock, f);
}
