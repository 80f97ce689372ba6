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
 * thread itself on its own CPU, with interrupts off; serve.call is
 * cleared first and set last, so a sampler on that CPU that reads call,
 * then the fields, then call again, knows whether what it read is whole.
 */
#ifndef KERNEL_ORIGIN_H
#define KERNEL_ORIGIN_H

#include <abi/profile.h>
#include <kernel/types.h>

struct task;
struct thread;

/* Where a call's work goes: its origin and the tasks it went through. */
typedef struct origin {
	struct task *task;              /* referenced; NULL: none (notifications) */
	uint64_t thread;                /* the origin thread's id */
	uint16_t nhops, depth;          /* as prof_ipc_t */
	uint64_t hops[PROF_IPC_HOPS];   /* task ids, origin first */
} origin_t;

struct origin_pair;

/* A thread's serving state (thread_t.serve). */
typedef struct origin_serve {
	volatile uint64_t call;         /* the call served; 0: none */
	uint32_t method;
	origin_t o;                     /* hops end with the serving task */
	struct origin_pair *pair;       /* its (origin, server) totals */
} origin_serve_t;

/*
 * The origin of a call the current thread makes now: the origin of the
 * call it serves, else itself. Takes a reference on o->task.
 */
void origin_of_caller(origin_t *o);

/* Drop o's reference (o->task becomes NULL). */
void origin_put(origin_t *o);

/*
 * The current thread takes call id (method, origin o) from its box: it
 * serves it from now on (the cycles so far are charged first). Thread
 * context, any interrupt state.
 */
void origin_serve_begin(uint64_t id, uint32_t method, const origin_t *o);

/* The current thread serves nothing from now on (a notification, exit). */
void origin_serve_end(void);

/* The current thread answered or forwarded call id: ends serving it. */
void origin_serve_done(uint64_t id);

/*
 * Count d cycles of t, which serves a call, to the origin, the server and
 * their pair. The accounting calls it for every charge of a serving
 * thread. Interrupts off; lock-free.
 */
void origin_charge(struct thread *t, uint64_t d);

/*
 * The sampled thread's origin as a sample carries it, read NMI-safely on
 * t's own CPU: true and *out, or false (serving nothing, or caught
 * mid-update: the sample goes without it).
 */
bool origin_sample(const struct thread *t, prof_ipc_t *out);

/* Copy up to max pairs, most cycles first, "other" last; returns how many. */
size_t origin_pairs(void *out, size_t max);

#endif
