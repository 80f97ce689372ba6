/*
 * The kernel answerbox: one box (kbox_server) behind every task's kbox
 * phone and one kernel thread that serves it. Calls are taken in order;
 * the task methods are answered here, the others by the subsystem that
 * registered their range (kbox_register). A hung-up connection reaches
 * the thread as a notification queued behind its earlier calls and is
 * passed to every registered subsystem.
 *
 * Lock order: the box lock is taken alone (box_put, the thread's take).
 */
#include <kernel/kbox.h>
#include <kernel/printk.h>
#include <kernel/thread.h>
#include <lib/string.h>
#include "internal.h"

#define KBOX_RANGES_MAX 4

answerbox_t kbox_server;
static const kbox_methods_t *kbox_ranges[KBOX_RANGES_MAX];
static unsigned kbox_nranges;

void kbox_register(const kbox_methods_t *m)
{
	if (kbox_nranges == KBOX_RANGES_MAX)
		panic("kbox: no room for %s's methods", m->name);
	kbox_ranges[kbox_nranges] = m;
	__atomic_store_n(&kbox_nranges, kbox_nranges + 1, __ATOMIC_RELEASE);
}

/* The registered range holding method, or NULL. */
static const kbox_methods_t *kbox_range_of(uint64_t method)
{
	unsigned n = __atomic_load_n(&kbox_nranges, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (method >= kbox_ranges[i]->first && method <= kbox_ranges[i]->last)
			return kbox_ranges[i];
	return NULL;
}

/* Connection conn is gone: tell every registered subsystem. */
static void kbox_closed(uint64_t conn)
{
	unsigned n = __atomic_load_n(&kbox_nranges, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (kbox_ranges[i]->closed)
			kbox_ranges[i]->closed(conn);
}

call_t *kbox_bye_new(void)
{
	ipc_msg_t m = { .method = IPC_M_PHONE_HUNGUP };

	return call_new(NULL, -1, &m);
}

void kbox_hangup(call_t *bye, uint64_t conn, task_id_t by)
{
	bye->msg.args[0] = conn;
	bye->msg.args[1] = by;
	if (box_put(&kbox_server, &kbox_server.calls, bye, false, NULL) != EOK)
		call_free(bye);
}

const ipc_msg_t *kcall_msg(const call_t *c)
{
	return &c->msg;
}

task_t *kcall_caller(const call_t *c)
{
	return c->caller;
}

task_t *kcall_kbox_task(const call_t *c)
{
	return c->kbox_of;
}

uint64_t kcall_conn(const call_t *c)
{
	return c->conn;
}

void kcall_answer(call_t *c, errno_t rc, const uint64_t *args)
{
	memset(&c->answer, 0, sizeof(c->answer));
	c->answer.method = (uint64_t)rc;
	if (args)
		memcpy(c->answer.args, args, sizeof(c->answer.args));
	call_deliver_answer(c);
}

/* Answer a kbox call about task t. */
static void kbox_serve(call_t *c, task_t *t)
{
	const kbox_methods_t *m = kbox_range_of(c->msg.method);

	if (m) {
		m->serve(c);
		return;
	}
	memset(&c->answer, 0, sizeof(c->answer));
	switch (c->msg.method) {
	case KBOX_TASK_INFO:
		c->answer.method = EOK;
		c->answer.args[0] = t->id;
		c->answer.args[1] = t->nthreads;
		c->answer.args[2] = t->perms;
		c->answer.args[3] = task_parent_id(t);
		break;
	case KBOX_TASK_START:
		c->answer.method = task_start(t);
		break;
	default:
		c->answer.method = ENOTSUP;
	}
	call_deliver_answer(c);
}

/* The kernel thread behind every task's kernel answerbox. */
static void kbox_thread(void *arg)
{
	answerbox_t *b = &kbox_server;

	for (;;) {
		uint64_t f = spin_lock_irqsave(&b->wq.lock);
		while (list_empty(&b->calls))
			waitq_sleep_locked(&b->wq, &f, 0);
		call_t *c = list_entry(list_first(&b->calls), call_t, node);
		list_remove(&c->node);
		box_uncount(b);
		spin_unlock_irqrestore(&b->wq.lock, f);
		if (c->type == IPC_EV_NOTIFY) {          /* kbox_hangup() */
			kbox_closed(c->msg.args[0]);
			call_free(c);
			continue;
		}
		kbox_serve(c, c->kbox_of);
	}
}

void kbox_init(void)
{
	box_init(&kbox_server, &kernel_task);
	if (thread_create_kernel("kbox", kbox_thread, NULL, NULL) != EOK)
		panic("ipc: cannot start the kbox thread");
}
