/*
 * Origin stacks (abi/profile.h, PROF_REC_CALL): with call chains on, the
 * user stack of a thread making an IPC call is kept with the call, so
 * samples of the server that serves it can be drawn under the stack that
 * asked for the work.
 *
 * A fixed pool of PROF_IPC_STACKS entries (no allocation in the IPC path,
 * memory bounded by construction): taken in thread context under
 * prof_stack_lock, reference-counted by the calls and serving threads
 * that hold them, emitted at most once into each CPU's sample ring, by
 * the first sample on that CPU that names them (NMI context: an atomic
 * bit per CPU, no lock). Once per CPU, not once in all: the drain takes
 * the rings one after another, so a record in CPU 1's ring would reach a
 * session after a sample naming it from CPU 0's ring (ipcstream.t saw
 * one such sample in 315); a ring is FIFO, so its own copy always comes
 * first. Readers keep the first record of an id.
 * When the pool is empty the call keeps no stack, counted in
 * prof_stacks_lost.
 */
#include <arch/callchain.h>
#include <kernel/prof.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <lib/ring.h>
#include "internal.h"

typedef struct prof_stack {
	uint32_t refs;                   /* atomic; 0: free */
	uint64_t emitted;                /* atomic: bit c set when in CPU c's ring */
	uint64_t id;                     /* the call that kept it */
	uint64_t task, thread;
	uint16_t n;
	uint64_t chain[PROF_IPC_STACK_MAX];
	struct prof_stack *next_free;
} prof_stack_t;

volatile bool prof_stacks_on;
uint64_t prof_stacks_lost;

static prof_stack_t prof_stack_pool[PROF_IPC_STACKS];
static prof_stack_t *prof_stack_free;
static bool prof_stack_ready;
static spinlock_t prof_stack_lock = SPINLOCK_INIT("prof_stack");

/* A free entry, or NULL when all are held. prof_stack_lock held. */
static prof_stack_t *prof_stack_take(void)
{
	if (!prof_stack_ready) {
		for (unsigned i = 0; i < PROF_IPC_STACKS; i++) {
			prof_stack_pool[i].next_free = prof_stack_free;
			prof_stack_free = &prof_stack_pool[i];
		}
		prof_stack_ready = true;
	}
	prof_stack_t *s = prof_stack_free;
	if (s)
		prof_stack_free = s->next_free;
	return s;
}

/* Does a running session with call chains cover task t? */
static bool prof_stack_wanted(const task_t *t)
{
	if (!prof_engine.on || !prof_engine.depth)
		return false;
	if (prof_engine.system)
		return true;
	for (unsigned i = 0; i < PROF_MAX_TARGETS; i++)
		if (prof_engine.targets[i] == t->id)
			return true;
	return false;
}

struct prof_stack *prof_stack_capture(uint64_t id)
{
	thread_t *th = thread_current();

	if (!prof_stack_wanted(th->task))
		return NULL;
	uint64_t f = spin_lock_irqsave(&prof_stack_lock);
	prof_stack_t *s = prof_stack_take();
	if (!s)
		prof_stacks_lost++;
	spin_unlock_irqrestore(&prof_stack_lock, f);
	if (!s)
		return NULL;
	s->id = id;
	s->task = th->task->id;
	s->thread = th->id;
	s->n = (uint16_t)arch_user_stack(th, s->chain, PROF_IPC_STACK_MAX);
	__atomic_store_n(&s->emitted, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->refs, 1, __ATOMIC_RELEASE);
	return s;
}

void prof_stack_get(struct prof_stack *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

void prof_stack_put(struct prof_stack *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	uint64_t f = spin_lock_irqsave(&prof_stack_lock);
	s->next_free = prof_stack_free;
	prof_stack_free = s;
	spin_unlock_irqrestore(&prof_stack_lock, f);
}

/* Put s into r as a PROF_REC_CALL (it was not there). NMI-safe. */
static void prof_stack_put_rec(prof_stack_t *s, ring_t *r, uint32_t cpu, uint64_t now)
{
	uint64_t buf[sizeof(prof_rec_call_t) / 8 + PROF_IPC_STACK_MAX];
	prof_rec_call_t *c = (prof_rec_call_t *)buf;

	size_t size = sizeof(*c) + s->n * sizeof(uint64_t);
	c->stack = s->id;
	c->task = s->task;
	c->thread = s->thread;
	c->nchain = s->n;
	c->reserved[0] = c->reserved[1] = c->reserved[2] = 0;
	for (unsigned i = 0; i < s->n; i++)
		c->chain[i] = s->chain[i];
	prof_rec_init(&c->h, PROF_REC_CALL, size, cpu, now);
	if (ring_put(r, PROF_REC_CALL, c, size) != EOK)       /* a later sample tries again */
		__atomic_fetch_and(&s->emitted, ~(1ull << (cpu % 64)), __ATOMIC_RELAXED);
}

uint64_t prof_stack_id(const struct prof_stack *s)
{
	return s ? s->id : 0;
}

void prof_stack_emit(struct prof_stack *s, ring_t *r, uint32_t cpu, uint64_t now)
{
	uint64_t bit = 1ull << (cpu % 64);

	if (!(__atomic_load_n(&s->emitted, __ATOMIC_RELAXED) & bit) &&
	    !(__atomic_fetch_or(&s->emitted, bit, __ATOMIC_ACQ_REL) & bit))
		prof_stack_put_rec(s, r, cpu, now);
}
