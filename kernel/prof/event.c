/*
 * Task events for the profiler's streams: a task was created, loaded its
 * program, exited. The hooks run in thread context (or with interrupts
 * off in the reaper) and queue a whole record for the drain thread, which
 * gives it to every session that wants it; with no session they do
 * nothing. prof_describe_task() writes the same records for tasks that
 * already exist when a session begins, so every sample symbolizes.
 */
#include <kernel/binary.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <lib/string.h>
#include "internal.h"

#define PROF_LOAD_MAX (sizeof(prof_rec_load_t) + 136)
/* A LOAD record carries binary_t.path whole, NUL included, padded to 8. */
_Static_assert(ALIGN_UP(sizeof(prof_rec_load_t) + sizeof(((binary_t *)0)->path), 8) <=
	       PROF_LOAD_MAX, "PROF_LOAD_MAX must hold a LOAD record of the longest path");

/* t's TASK record into r (its name, parent); its size. */
size_t prof_task_record(task_t *t, prof_rec_task_t *r)
{
	memset(r, 0, sizeof(*r));
	prof_rec_init(&r->h, PROF_REC_TASK, sizeof(*r), cpu_id(), time_cycles());
	r->task = t->id;
	r->parent = t->parent ? t->parent->id : 0;
	strlcpy(r->name, t == &kernel_task ? "kernel" : t->name, sizeof(r->name));
	return sizeof(*r);
}

/* The LOAD record of t into r (PROF_LOAD_MAX bytes); 0 if t runs no program. */
static size_t prof_load_rec(task_t *t, prof_rec_load_t *r)
{
	binary_t *b = t->binary;

	if (!b)
		return 0;
	binary_mark_named(b);            /* its symbols stay while sessions are open */
	size_t len = strlen(b->path) + 1;
	size_t size = ALIGN_UP(sizeof(*r) + len, 8);
	memset(r, 0, size);
	prof_rec_init(&r->h, PROF_REC_LOAD, size, cpu_id(), time_cycles());
	r->task = t->id;
	r->text_start = b->plan.text_start;
	r->text_end = b->plan.text_end;
	r->hash = b->hash;
	memcpy(r->path, b->path, len);
	return size;
}

void prof_describe_task(prof_session_t *s, task_t *t)
{
	uint64_t buf[PROF_LOAD_MAX / 8 + 1];
	prof_rec_task_t tr;

	prof_session_put(s, &tr, prof_task_record(t, &tr));
	size_t n = prof_load_rec(t, (prof_rec_load_t *)buf);
	if (n)
		prof_session_put(s, buf, n);
}

/*
 * Queue a copy of rec (size bytes) about task for the drain thread. The
 * hooks look at prof_nsessions without the lock; the last session may
 * have been collected since (the drain thread then sleeps until the next
 * session is begun), so with no session left the record is dropped here,
 * under prof_lock, instead of waiting in the queue for a later session.
 */
void prof_event_queue(uint64_t task, const void *rec, size_t size)
{
	prof_event_t *e = kmalloc(sizeof(*e) + size);

	if (!e)
		return;                      /* rare; the stream shows the task unnamed */
	e->task = task;
	e->size = size;
	memcpy(e->rec, rec, size);
	uint64_t f = spin_lock_irqsave(&prof_lock);
	bool wanted = __atomic_load_n(&prof_nsessions, __ATOMIC_RELAXED) != 0;
	if (wanted)
		list_append(&prof_events, &e->node);
	spin_unlock_irqrestore(&prof_lock, f);
	if (!wanted)
		kfree(e);
}

bool prof_sessions_open(void)
{
	return __atomic_load_n(&prof_nsessions, __ATOMIC_RELAXED) != 0;
}

void prof_task_created(task_t *t)
{
	prof_rec_task_t r;

	if (__atomic_load_n(&prof_nsessions, __ATOMIC_RELAXED))
		prof_event_queue(t->id, &r, prof_task_record(t, &r));
}

void prof_task_loaded(task_t *t)
{
	uint64_t buf[PROF_LOAD_MAX / 8 + 1];

	if (!__atomic_load_n(&prof_nsessions, __ATOMIC_RELAXED))
		return;
	size_t n = prof_load_rec(t, (prof_rec_load_t *)buf);
	if (n)
		prof_event_queue(t->id, buf, n);
}

void prof_task_exited(task_t *t)
{
	prof_rec_exit_t r;

	if (!__atomic_load_n(&prof_nsessions, __ATOMIC_RELAXED))
		return;
	memset(&r, 0, sizeof(r));
	prof_rec_init(&r.h, PROF_REC_EXIT, sizeof(r), cpu_id(), time_cycles());
	r.task = t->id;
	r.status = (uint64_t)(int64_t)t->status;
	prof_event_queue(t->id, &r, sizeof(r));
}
