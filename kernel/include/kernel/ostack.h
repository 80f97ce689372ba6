/*
 * Origin stacks (kernel/ipc/ostack.c): the user stack of a thread making
 * an IPC call, kept with the call, so the work a server does for it can
 * be drawn under the stack that asked for it. A service of IPC that a
 * consumer turns on: the statistical profiler says which tasks want
 * their stacks kept (ostack_want) and writes a kept stack into its
 * sample stream itself (its fields are read-only to it).
 *
 * A fixed pool of PROF_IPC_STACKS entries (no allocation in the IPC
 * path, memory bounded by construction), reference-counted by the calls
 * and serving threads that hold them. When the pool is empty a call
 * keeps no stack, counted (ostack_lost).
 */
#ifndef KERNEL_OSTACK_H
#define KERNEL_OSTACK_H

#include <abi/profile.h>
#include <kernel/types.h>

struct task;

typedef struct ostack {
	uint32_t refs;                   /* atomic; 0: free */
	uint64_t marks;                  /* atomic: the consumer's bits (ostack_mark) */
	uint64_t id;                     /* the call that kept it */
	uint64_t task, thread;           /* whose stack */
	uint16_t n;                      /* words of chain */
	uint64_t chain[PROF_IPC_STACK_MAX];
	struct ostack *next_free;
} ostack_t;

/* Which tasks want their calls' stacks kept: wanted(t) true; NULL: none. */
typedef bool (*ostack_filter_t)(const struct task *t);
extern ostack_filter_t volatile ostack_wanted;

/*
 * Keep stacks of the calls of tasks that wanted accepts from now on
 * (NULL: of none). Thread context; the caller serializes its own calls.
 */
void ostack_want(ostack_filter_t wanted);

/*
 * The current thread's user stack kept for call id, if ostack_wanted
 * accepts its task; NULL otherwise or when every entry is held (counted).
 * Thread context. The result is referenced (ostack_get/put; put from any
 * thread context).
 */
ostack_t *ostack_capture(uint64_t id);

/* ostack_capture(id) when some tasks want stacks (an inline check first). */
static inline ostack_t *ostack_for_call(uint64_t id)
{
	return ostack_wanted ? ostack_capture(id) : NULL;
}

void ostack_get(ostack_t *s);
void ostack_put(ostack_t *s);

/* The id samples name s by (prof_ipc_t.stack); 0 for NULL. */
static inline uint64_t ostack_id(const ostack_t *s)
{
	return s ? s->id : 0;
}

/*
 * Set mark bit (0..63) of s; true if this call set it (it was clear).
 * NMI-safe. The consumer's use: once per CPU ring, see kernel/prof/stack.c.
 */
bool ostack_mark(ostack_t *s, unsigned bit);

/* Clear mark bit of s (its use did not happen). NMI-safe. */
void ostack_unmark(ostack_t *s, unsigned bit);

/* Stacks not kept since boot: the pool was empty. Any context. */
uint64_t ostack_lost(void);

#endif
