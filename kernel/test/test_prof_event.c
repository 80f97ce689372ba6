/*
 * ktest: the profiler's task events (kernel/prof/event.c) wait in
 * prof_events only while a session may take them.
 *
 * The hooks (prof_task_created, _loaded, _exited) check prof_nsessions
 * without a lock, then build and queue the record. If the drain thread
 * collects the last session in between, it goes to sleep until the next
 * session is begun and the record waited in the queue, a kernel heap
 * object held for as long as nobody profiles: failinj.t's leak check saw
 * it as 128 bytes of heap more after ipctest (a TASK or LOAD record of the
 * helper spawned just after the profiling-sessions helper exited), given
 * back during the next run. The race is replayed here by queueing with
 * no session counted, as such a hook does. Also: the samples' consumers
 * (prof_consumer_add) are bounded.
 */
#include <kernel/ktest.h>
#include <kernel/prof.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <lib/string.h>
#include "../prof/internal.h"

#define EV_TASK 0xfeedfacecafe0001ull    /* no task has this id */

/* Take the queued event of task id out of prof_events; whether there was one. */
static bool ev_take(uint64_t id)
{
	prof_event_t *found = NULL;
	uint64_t f = spin_lock_irqsave(&prof_lock);

	list_foreach(&prof_events, it) {
		prof_event_t *e = list_entry(it, prof_event_t, node);
		if (e->task == id) {
			list_remove(it);
			found = e;
			break;
		}
	}
	spin_unlock_irqrestore(&prof_lock, f);
	kfree(found);
	return found != NULL;
}

/* An EXIT record of task id, queued as a hook does. */
static void ev_queue(uint64_t id)
{
	prof_rec_exit_t r;

	memset(&r, 0, sizeof(r));
	prof_rec_init(&r.h, PROF_REC_EXIT, sizeof(r), 0, 0);
	r.task = id;
	prof_event_queue(id, &r, sizeof(r));
}

KTEST(prof_event_late, "prof: a task event queued after the last session ended is not kept")
{
	KT_CHECK(!prof_sessions_open(), "a profiling session is open");
	__atomic_add_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);      /* a session counts */
	ev_queue(EV_TASK);
	bool queued = ev_take(EV_TASK);
	__atomic_sub_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);      /* collected */
	ev_queue(EV_TASK + 1);          /* its hook saw the session before that */
	bool kept = ev_take(EV_TASK + 1);
	KT_CHECK(queued, "an event was not queued while a session counted");
	KT_CHECK(!kept, "an event was queued with no session to take it");
	return true;
}

/* A consumer that does nothing: it only takes a slot. */
static void ev_consumer_none(const struct int_frame *f)
{
	(void)f;
}

/*
 * The sample consumers are bounded: after profil's (registered at boot)
 * PROF_CONSUMERS - 1 more fit, the next is refused with ELIMIT. The ones
 * added here stay (no session in this kernel wants them run).
 */
KTEST(prof_consumer_bound, "prof: sample consumers beyond PROF_CONSUMERS get ELIMIT")
{
	unsigned added = 0;
	errno_t rc = EOK;

	while (added <= PROF_CONSUMERS && (rc = prof_consumer_add(ev_consumer_none)) == EOK)
		added++;
	KT_CHECK(rc == ELIMIT, "the add after %u got %d, not ELIMIT", added, rc);
	KT_CHECK(added == PROF_CONSUMERS - 1, "%u fitted beside profil's, want %u", added,
		 PROF_CONSUMERS - 1);
	return true;
}
