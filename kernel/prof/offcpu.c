/*
 * Off-CPU records (issue 17; lib/include/abi/profile.h, PROF_REC_OFFCPU).
 * When a thread that a session with PROF_F_OFFCPU covers runs again, the
 * scheduler calls prof_offcpu_resume() on that thread's own stack, right
 * after the switch: the thread is where it waited, so its stack then is
 * the stack of the wait. The record goes into the CPU's off-CPU ring, a
 * second ring per CPU that only this hook writes, with interrupts off
 * (the sample ring's producer is the NMI: one producer per ring). The
 * drain thread routes the records (drain.c). A thread that was serving a
 * call while it waited (for the next server of a chain, a device, the
 * CPU) gets the call's origin block after its chain, as a sample does,
 * and is covered by a task session on that origin.
 */
#include <arch/callchain.h>
#include <kernel/origin.h>
#include <kernel/prof.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <lib/string.h>
#include "internal.h"

volatile bool prof_offcpu_on;
uint64_t prof_offcpu_lost;

/* Does a running session with PROF_F_OFFCPU cover t (its own, or work for a target)? */
static bool prof_offcpu_covers(const thread_t *t)
{
	return prof_engine.off_system || prof_in_targets(prof_engine.off_targets, t->task->id) ||
	       (origin_serving(&t->serve) &&
		prof_in_targets(prof_engine.off_targets, t->serve.rec.hops[0]));
}

/*
 * Fill r (room for max chain entries, and with ipc an origin block) for
 * t, off its CPU from out to in; the record's size.
 */
static size_t prof_offcpu_fill(prof_rec_offcpu_t *r, const thread_t *t, uint64_t out,
			       uint64_t in, size_t max, bool ipc)
{
	r->task = t->task->id;
	r->thread = t->id;
	r->start = out;
	r->cycles = in - out;
	r->why = t->wait_why % WAIT_WHY_COUNT;
	r->wait_task = r->why == WAIT_WHY_IPC ? t->wait_task : 0;
	r->wait_method = r->why == WAIT_WHY_IPC ? t->wait_method : 0;
	r->nkernel = 0;
	r->nchain = (uint16_t)(max ? arch_thread_stack(t, r->chain, max, &r->nkernel) : 0);
	size_t size = sizeof(*r) + r->nchain * sizeof(r->chain[0]);
	if (ipc && origin_sample(t, (prof_ipc_t *)((uint8_t *)r + size)))
		size += sizeof(prof_ipc_t);
	return size;
}

_Static_assert(sizeof(prof_rec_offcpu_t) + PROF_OFFCPU_CHAIN_MAX * sizeof(uint64_t) +
		       sizeof(prof_ipc_t) < PROF_OFF_RING_BYTES / 2 - sizeof(ring_hdr_t),
	       "an off-CPU record fits ring_max_payload (ring_reserve_inline checks no size)");

/* Put t's record into ring (interrupts off, the gate held). */
static void prof_offcpu_put(ring_t *ring, const thread_t *t, uint32_t cpu)
{
	uint64_t out = t->acct.last_switch_out, in = t->acct.last_switch_in;
	size_t max = prof_engine.depth < PROF_OFFCPU_CHAIN_MAX ? prof_engine.depth
		     : PROF_OFFCPU_CHAIN_MAX;

	if (!out || in <= out || !prof_offcpu_covers(t))
		return;
	size_t ipc = origin_serving(&t->serve) ? sizeof(prof_ipc_t) : 0;
	prof_rec_offcpu_t *r = ring_reserve_inline(ring, PROF_REC_OFFCPU, sizeof(*r) +
						   max * sizeof(r->chain[0]) + ipc);
	if (!r)
		return;                      /* counted in the ring's drops */
	size_t size = prof_offcpu_fill(r, t, out, in, max, ipc != 0);
	prof_rec_init(&r->h, PROF_REC_OFFCPU, size, cpu, in);
	ring_commit_inline(ring);
}

/*
 * The gate (internal.h) as prof_hit's: the engine's stopper clears
 * prof_engine.on and waits for off_busy before it frees the rings.
 */
void prof_offcpu_resume(thread_t *t)
{
	cpu_t *c = cpu_current();
	prof_cpu_t *p = &prof_cpus[c->id];

	if (t != c->idle && t->task && prof_gate_enter(&p->off_busy, &prof_engine.on) &&
	    prof_engine.off_mem[c->id])
		prof_offcpu_put(&prof_engine.off_rings[c->id], t, c->id);
	prof_gate_leave(&p->off_busy);
}

/* How many of rec's chain entries session s must not get (the first ones). */
static unsigned prof_offcpu_drop(const prof_session_t *s, const prof_rec_offcpu_t *rec)
{
	if (!(s->flags & PROF_F_CALLCHAIN))
		return rec->nchain;
	if (!s->redact)
		return 0;
	if (s->target && rec->task != s->target && rec->task != s->owner)
		return rec->nchain;          /* a server it may not profile: no stack at all */
	return rec->nkernel;
}

/*
 * s's view of an off-CPU record into buf (room for a whole record):
 * without call chains, no chain; for a session that may not see the
 * kernel's addresses, only the user part, and nothing of a server's
 * stack it may not profile; an origin block stays. Returns the record to
 * put (rec itself, or buf).
 */
const prof_rec_offcpu_t *prof_offcpu_view(const prof_session_t *s, const prof_rec_offcpu_t *rec,
					   prof_rec_offcpu_t *buf)
{
	unsigned drop = prof_offcpu_drop(s, rec);
	size_t body = sizeof(*rec) + rec->nchain * sizeof(rec->chain[0]);
	size_t tail = rec->h.size > body ? rec->h.size - body : 0;

	if (!drop)
		return rec;
	memcpy(buf, rec, sizeof(*buf));
	buf->nchain = (uint16_t)(rec->nchain - drop);
	buf->nkernel = 0;                    /* either way no kernel frame is left */
	memcpy(buf->chain, rec->chain + drop, buf->nchain * sizeof(buf->chain[0]));
	memcpy(buf->chain + buf->nchain, (const uint8_t *)rec + body, tail);
	buf->h.size = (uint16_t)(sizeof(*buf) + buf->nchain * sizeof(buf->chain[0]) + tail);
	return buf;
}
