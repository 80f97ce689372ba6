/*
 * The IPC path's inline parts of <kernel/origin.h>: the common cases of
 * beginning to serve a call and of dropping a served origin before a
 * wait, without a function call (they run on every IPC round trip: issue
 * 16 allows the attribution 3% of it). Only kernel/ipc/ipc.c includes
 * this; it needs task_t and thread_t, which <kernel/origin.h> cannot.
 */
#ifndef KERNEL_ORIGIN_IPC_H
#define KERNEL_ORIGIN_IPC_H

#include <kernel/origin.h>
#include <kernel/task.h>
#include <kernel/thread.h>

/*
 * The current thread takes call id (method, origin o, made by caller with
 * task id sender; caller NULL: a notification): origin_serve_begin(), done
 * here when the call is its caller's own work, no stack is kept, the
 * thread serves nothing still and its pair cache is the caller's. Thread
 * context.
 */
static inline void origin_serve_call(uint64_t id, uint64_t method, const origin_t *o,
				     task_t *caller, uint64_t sender)
{
	origin_serve_t *s = &thread_current()->serve;

	if (__builtin_expect(o->task || o->stack || !caller || s->task || s->stack ||
			     !s->count || s->count_origin != sender, 0)) {
		origin_serve_begin(id, method, o, caller);
		return;
	}
	__atomic_add_fetch(&s->count->calls, 1, __ATOMIC_RELAXED);
	s->rec.origin_thread = o->thread;   /* rec.call is 0 while task is NULL */
	s->rec.method = method;
	s->rec.nhops = s->rec.depth = 2;
	s->rec.hops[0] = sender;
	s->rec.hops[1] = s->self;
	s->ending = false;
	task_ref(caller);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->task = caller;                    /* charged from here (acct.c) */
	__atomic_store_n(&s->rec.call, id, __ATOMIC_RELAXED);
}

/*
 * Before the current thread waits for calls: drop the reference of an
 * origin it served (origin_serve_flush(false), inline). Thread context.
 */
static inline void origin_serve_wait(void)
{
	origin_serve_t *s = &thread_current()->serve;

	if (__builtin_expect(!s->unref, 1))
		return;
	task_unref(__atomic_exchange_n(&s->unref, NULL, __ATOMIC_RELAXED));
}

#endif
