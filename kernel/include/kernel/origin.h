/*
 * Whose work is it: the origin of IPC calls and the serving state of
 * threads (IPC-aware accounting and profiling, docs/ARCHITECTURE.md
 * "Where a task's time goes").
 *
 * Every call carries an origin: the task and thread that began the chain
 * of work and the tasks it went through (hops, origin first). A call made
 * by a thread that serves a call inherits that call's origin; a thread
 * serving nothing is its own origin. A thread serves a call from the
 * moment it takes it from its answerbox until it answers or forwards it,
 * takes another call or a notification, or exits. While it serves, every
 * cycle the boundary accounting charges to it (user and kernel) is also
 * counted as imposed on the origin task and served by its own task, and
 * summed for the (origin, server) pair.
 *
 * NMI-safe reading: a thread's serving state is written only by the
 * thread itself on its own CPU; serve.rec.call is cleared first and set
 * last, so a sampler on that CPU (which interrupts the writer, never
 * runs beside it) that reads call, then the fields, then call again,
 * knows whether what it read is whole. The accounting reads serve.task,
 * which one exchange clears (origin.c).
 */
#ifndef KERNEL_ORIGIN_H
#define KERNEL_ORIGIN_H

#include <abi/profile.h>
#include <kernel/ostack.h>
#include <kernel/types.h>

struct task;
struct thread;

/*
 * Where a call's work goes: its origin and the tasks it went through. In
 * a call, task NULL means the caller itself (the call holds the caller
 * already; hops are then not filled in), or nothing for a notification.
 */
typedef struct origin {
	struct task *task;              /* referenced, or NULL (above) */
	uint64_t thread;                /* the origin thread's id */
	ostack_t *stack;                /* the origin's stack, referenced */
	uint16_t nhops, depth;          /* as prof_ipc_t */
	uint64_t hops[PROF_IPC_HOPS];   /* task ids, origin first; last (call_new) */
} origin_t;

/* An (origin, server) pair's totals (origin.c's table: never freed). */
typedef struct origin_count {
	uint64_t cycles, calls;         /* atomic */
} origin_count_t;

/*
 * A thread's serving state (thread_t.serve). rec is the origin as a
 * sample carries it (rec.call: the call served, 0: none; never set while
 * task is NULL), so the sampler copies it whole. While task is set, the
 * accounting adds the thread's cycles to task's imposed cycles, its own
 * task's served cycles and count->cycles (acct.c). Serving ends at the
 * next accounting boundary after the answer (ending): the answer's own
 * system call is work for the call too. That boundary moves task to
 * unref, whose reference the thread drops before it waits for calls
 * again. count is the pair of (count_origin, this thread's task), kept
 * between calls: a server mostly serves the same clients again. A call
 * answered or forwarded by another thread of the task than the one that
 * took it: that thread sets the taker's gone to ~the call's id, and the
 * taker's next entry to the kernel ends its serving as if it had answered.
 */
typedef struct origin_serve {
	prof_ipc_t rec;                 /* hops end with the serving task */
	struct task *task;              /* the origin, referenced */
	ostack_t *stack;                /* its stack (rec.stack), referenced */
	bool ending;                    /* stop charging at the next boundary */
	origin_count_t *count;          /* the pair's totals, or NULL */
	uint64_t count_origin;          /* the origin task id of count */
	uint64_t self;                  /* this thread's task id, once count is set */
	struct task *unref;             /* a served origin's reference to drop */
	uint64_t gone;                  /* ~id of a call it took that another thread
					   answered or forwarded (written by that thread) */
} origin_serve_t;

/* The call s serves, 0 if none (any context; the sampler: s's own CPU). */
static inline uint64_t origin_serving(const origin_serve_t *s)
{
	return __atomic_load_n(&s->rec.call, __ATOMIC_RELAXED);
}

/*
 * The origin of a call the current thread makes while it serves s->call:
 * that call's, references taken on o->task and o->stack.
 */
void origin_inherit(origin_t *o, const origin_serve_t *s);

/*
 * The origin of call id, which the current thread (thread tid, serving
 * state s) makes now: the origin of the call it serves, else itself
 * (o->task stays NULL: the call's caller; o->stack its stack if a session
 * wants it). o is zeroed.
 */
static inline void origin_of_caller(origin_t *o, uint64_t id, uint64_t tid,
				    const origin_serve_t *s)
{
	if (origin_serving(s)) {
		origin_inherit(o, s);
		return;
	}
	o->thread = tid;
	o->stack = ostack_for_call(id);
}

void task_unref(struct task *t);

/* Drop o's references (o is going away). */
static inline void origin_put(const origin_t *o)
{
	if (o->task)
		task_unref(o->task);
	if (o->stack)
		ostack_put(o->stack);
}

/*
 * The current thread takes call id (method, origin o, made by caller;
 * caller NULL: a notification) from its box: it serves it from now on.
 * The cycles since the last accounting boundary (waking up to take it)
 * count for it too. Thread context. (ipc.c calls origin_serve_take() of
 * <kernel/origin_ipc.h>, which does the common case inline.)
 */
void origin_serve_begin(uint64_t id, uint64_t method, const origin_t *o,
			struct task *caller);

/*
 * The current thread serves nothing from now on (a notification): the
 * cycles up to the next accounting boundary still count for what it
 * served.
 */
void origin_serve_end(void);

/* Drop s's stack (rec.call is 0: the sampler no longer reads it). */
void origin_serve_drop_stack(origin_serve_t *s);

/*
 * Another thread of the current task may serve call id, which the current
 * thread answered or forwarded: that thread stops serving it at its next
 * accounting boundary (origin_serve_t.gone). Thread context; takes the
 * task's lock.
 */
void origin_serve_gone(uint64_t id);

/*
 * s, the current thread's, answered or forwarded call id: it ends serving
 * it (as above), or the thread that took it does (origin_serve_gone).
 */
static inline void origin_serve_done(origin_serve_t *s, uint64_t id)
{
	if (origin_serving(s) != id) {
		origin_serve_gone(id);
		return;
	}
	__atomic_store_n(&s->rec.call, 0, __ATOMIC_RELAXED);
	s->ending = s->task != NULL;
	if (s->stack)
		origin_serve_drop_stack(s);
}

/*
 * Drop the references serving left (the current thread is about to wait
 * for calls, or exits). exiting: also end serving at once. Thread context.
 */
void origin_serve_flush(bool exiting);

/*
 * The sampled thread's origin as a sample carries it, read NMI-safely on
 * t's own CPU: true and *out, or false (serving nothing, or caught
 * mid-update: the sample goes without it).
 */
bool origin_sample(const struct thread *t, prof_ipc_t *out);

/* Copy up to max pairs, most cycles first, "other" last; returns how many. */
size_t origin_pairs(void *out, size_t max);

#endif
