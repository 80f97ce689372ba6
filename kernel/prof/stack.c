/*
 * Origin stacks in the sample stream (abi/profile.h, PROF_REC_CALL): the
 * profiler is a consumer of IPC's origin stacks (kernel/ostack.h). While
 * a session with call chains runs, prof_stacks_want tells IPC which
 * tasks' calls keep their stacks; a kept stack is written at most once
 * into each CPU's sample ring, by the first sample on that CPU that names
 * it (NMI context: the stack's mark bit for the CPU, no lock). Once per
 * CPU, not once in all: the drain takes the rings one after another, so
 * a record in CPU 1's ring would reach a session after a sample naming it
 * from CPU 0's ring (ipcstream.t saw one such sample in 315); a ring is
 * FIFO, so its own copy always comes first. Readers keep the first
 * record of an id.
 */
#include <kernel/ostack.h>
#include <kernel/prof.h>
#include <kernel/task.h>
#include <lib/ring.h>
#include "internal.h"

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

void prof_stacks_want(bool on)
{
	ostack_want(on ? prof_stack_wanted : NULL);
}

/* Put s into r as a PROF_REC_CALL (it was not there). NMI-safe. */
static void prof_stack_put_rec(const ostack_t *s, ring_t *r, uint32_t cpu, uint64_t now)
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
		ostack_unmark((ostack_t *)s, cpu);
}

void prof_stack_emit(ostack_t *s, ring_t *r, uint32_t cpu, uint64_t now)
{
	if (ostack_mark(s, cpu))
		prof_stack_put_rec(s, r, cpu, now);
}
