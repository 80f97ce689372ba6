/*
 * The drain thread: every PROF_DRAIN_NS while sessions exist it moves the
 * records of every CPU's ring and the queued task events into the
 * sessions that want them, turns ring drops into LOST records, finishes
 * sessions that ended (END record), answers DATA_READ calls that have
 * enough data or whose wait timed out, and frees sessions whose
 * connection closed. It is the rings' only consumer.
 *
 * Lock order: prof_lock → a vm_space lock is never needed here: copies
 * to the profiler happen with prof_lock dropped (see internal.h).
 */
#include <kernel/ipc.h>
#include <kernel/kbox.h>
#include <kernel/printk.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/vm.h>
#include <kernel/waitq.h>
#include <lib/string.h>
#include "internal.h"

#define LOG_PREFIX "prof"

static waitq_t prof_drain_wq;
static volatile bool prof_kicked;

void prof_drain_kick(void)
{
	prof_kicked = true;
	waitq_wake_all(&prof_drain_wq);
}

/* Put a LOST record first if s dropped records it has not reported. */
static void prof_report_lost(prof_session_t *s)
{
	prof_rec_lost_t l;

	if (!s->lost_unreported)
		return;
	memset(&l, 0, sizeof(l));
	prof_rec_init(&l.h, PROF_REC_LOST, sizeof(l), 0, time_cycles());
	l.count = s->lost_unreported;
	if (prof_fifo_put(&s->out, &l, sizeof(l)))
		s->lost_unreported = 0;
}

static bool prof_takes(const prof_session_t *s)
{
	return !s->closed && !s->ending && s->state == PROF_STATE_RUNNING;
}

/*
 * Whether s gets a sample taken at tsc: while it takes samples, and once
 * its end was asked for, those taken before (still in a ring then).
 */
static bool prof_takes_sample(const prof_session_t *s, uint64_t tsc)
{
	return prof_takes(s) || (!s->closed && s->ending && s->state == PROF_STATE_RUNNING &&
				 tsc <= s->end_tsc);
}

/* Ring drops go to every session still running or ending (not timed). */
static bool prof_takes_drops(const prof_session_t *s)
{
	return !s->closed && s->state == PROF_STATE_RUNNING;
}

void prof_count_mode(prof_session_t *s, unsigned mode)
{
	s->samples++;
	if (mode == PROF_MODE_USER)
		s->user++;
	else if (mode == PROF_MODE_KERNEL)
		s->kernel++;
	else
		s->idle++;
}

/* A session's copy of a sample or off-CPU record (drain thread only, prof_lock held). */
static union {
	prof_rec_sample_t s;
	prof_rec_offcpu_t off;
	uint8_t bytes[sizeof(prof_rec_sample_t) + (PROF_DEPTH_MAX + PROF_TOP_WORDS) * 8 +
		      sizeof(prof_ipc_t)];
	uint8_t off_bytes[sizeof(prof_rec_offcpu_t) + PROF_OFFCPU_CHAIN_MAX * 8 +
			  sizeof(prof_ipc_t)];
} prof_copy;

/* The origin block after body bytes of record h, or NULL if it has none. */
static const prof_ipc_t *prof_rec_ipc(const prof_rec_t *h, size_t body)
{
	if (h->size < body + sizeof(prof_ipc_t))
		return NULL;
	return (const prof_ipc_t *)((const uint8_t *)h + body);
}

/* The origin block at the end of a sample (v3), or NULL if it has none. */
static const prof_ipc_t *prof_sample_ipc(const prof_rec_sample_t *smp)
{
	return prof_rec_ipc(&smp->h, sizeof(*smp) +
			    ((size_t)smp->nchain + smp->ntop) * sizeof(uint64_t));
}

/* The origin block after an off-CPU record's chain, or NULL if it has none. */
static const prof_ipc_t *prof_offcpu_ipc(const prof_rec_offcpu_t *rec)
{
	return prof_rec_ipc(&rec->h, sizeof(*rec) + (size_t)rec->nchain * sizeof(uint64_t));
}

/* What of a sample a session gets. */
typedef struct prof_view {
	bool pc;                     /* its address */
	uint16_t first, n;           /* chain[first, first + n) */
	bool top;                    /* the stack top words */
} prof_view_t;

/* The copy of smp that view v leaves (its origin block kept); its size. */
static size_t prof_view_build(const prof_rec_sample_t *smp, prof_view_t v)
{
	prof_rec_sample_t *r = &prof_copy.s;
	const prof_ipc_t *ipc = prof_sample_ipc(smp);
	uint16_t ntop = v.top ? smp->ntop : 0;

	*r = *smp;
	r->pc = v.pc ? smp->pc : 0;
	r->nchain = v.n;
	r->nkernel = v.first ? 0 : MIN(smp->nkernel, v.n);
	r->ntop = ntop;
	memcpy(r->chain, smp->chain + v.first, v.n * sizeof(uint64_t));
	memcpy(r->chain + v.n, smp->chain + smp->nchain, ntop * sizeof(uint64_t));
	size_t size = sizeof(*r) + ((size_t)v.n + ntop) * sizeof(uint64_t);
	if (ipc)
		memcpy((uint8_t *)r + size, ipc, sizeof(*ipc));
	r->h.size = (uint16_t)(size + (ipc ? sizeof(*ipc) : 0));
	return r->h.size;
}

/*
 * What session s may see of smp. Without PERM_PROFILE: a kernel or idle
 * sample keeps its task, thread and mode but no address (pc 0, one
 * "[kernel]" entry for the tools) and no kernel call chain entries or
 * stack top words; its user entries (the owner's own code) stay. Work
 * another task did for s's target comes as its origin only (pc 0, no
 * chain: "[ipc SERVER.METHOD]") unless s's owner is that task or may
 * profile any. Without a call chain: no chain and no top words.
 */
static prof_view_t prof_view(const prof_session_t *s, const prof_rec_sample_t *smp)
{
	bool chain = s->flags & PROF_F_CALLCHAIN;
	uint16_t k = MIN(smp->nkernel, smp->nchain);
	prof_view_t v = { true, 0, chain ? smp->nchain : 0, chain };

	if (s->redact && s->target && smp->task != s->target && smp->task != s->owner)
		return (prof_view_t){ false, 0, 0, false };
	if (s->redact && (smp->mode != PROF_MODE_USER || smp->nkernel))
		v = (prof_view_t){ false, k, chain ? (uint16_t)(smp->nchain - k) : 0, false };
	return v;
}

/* Does session s take sample smp: of its target, or work done for it? */
static bool prof_session_wants(const prof_session_t *s, const prof_rec_sample_t *smp)
{
	if (!prof_takes_sample(s, smp->h.tsc))
		return false;
	if (!s->target || s->target == smp->task)
		return true;
	const prof_ipc_t *ipc = prof_sample_ipc(smp);
	return ipc && ipc->nhops && ipc->hops[0] == s->target;
}

typedef struct prof_server_ctx {
	prof_session_t *s;
	uint64_t id;
} prof_server_ctx_t;

/* task_foreach: describe the server to the session (task table lock held). */
static void prof_name_one(task_t *t, void *arg)
{
	prof_server_ctx_t *c = arg;
	prof_rec_task_t r;

	if (t->id != c->id)
		return;
	if (c->s->redact && t->id != c->s->owner) {
		prof_task_record(t, &r);
		prof_session_put(c->s, &r, sizeof(r));
	} else {
		prof_describe_task(c->s, t);
	}
}

/*
 * Before the first sample of server task id doing work for s's target,
 * s gets id's TASK record (and its LOAD record, for symbols, if s may
 * profile it): a task session's stream has no other word of its
 * servers. Remembers the last PROF_SERVERS_KNOWN (a server forgotten is
 * named again). prof_lock held (then the task table lock, in
 * task_foreach: no reference is taken, so none is dropped here).
 */
static void prof_name_server(prof_session_t *s, uint64_t id)
{
	uint32_t n = MIN(s->nservers, (uint32_t)PROF_SERVERS_KNOWN);
	prof_server_ctx_t c = { s, id };

	for (uint32_t i = 0; i < n; i++)
		if (s->servers[i] == id)
			return;
	s->servers[s->nservers++ % PROF_SERVERS_KNOWN] = id;
	task_foreach(prof_name_one, &c);
}

/* Give one sample to the sessions that want it. prof_lock held. */
static void prof_route_sample(const prof_rec_sample_t *smp)
{
	bool routed = false;

	prof_total_samples++;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!prof_session_wants(s, smp))
			continue;
		routed = true;
		prof_report_lost(s);
		if (s->target && smp->task != s->target)
			prof_name_server(s, smp->task);
		prof_view_t v = prof_view(s, smp);
		const void *rec = smp;
		size_t size = smp->h.size;
		if (!v.pc || v.first || v.n != smp->nchain || (!v.top && smp->ntop))
			size = prof_view_build(smp, v), rec = &prof_copy.s;
		if (prof_session_put(s, rec, size))
			prof_count_mode(s, smp->mode);
	}
	if (!routed)
		prof_total_unrouted++;
}

/*
 * An origin's stack goes to the sessions with call chains that may see
 * that task's user stack: system sessions, and task sessions on it.
 * prof_lock held.
 */
static void prof_route_call(const prof_rec_call_t *rec)
{
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!prof_takes_sample(s, rec->h.tsc) || !(s->flags & PROF_F_CALLCHAIN) ||
		    (s->target && s->target != rec->task))
			continue;
		prof_session_put(s, rec, rec->h.size);
	}
}

/* Give a record to every session that takes samples. prof_lock held. */
static void prof_route_all(const prof_rec_t *h)
{
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (prof_takes(s))
			prof_session_put(s, h, h->size);
	}
}

/* Ring drops of one CPU become lost samples of every running session. */
static void prof_route_drops(ring_t *r)
{
	uint64_t recs, bytes;

	ring_take_dropped(r, &recs, &bytes);
	if (!recs)
		return;
	bool routed = false;
	prof_total_lost += recs;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (prof_takes_drops(s)) {
			s->lost += recs;
			s->lost_unreported += recs;
			routed = true;
		}
	}
	if (!routed)
		prof_total_unrouted += recs;
}

/*
 * An off-CPU record goes to the running sessions with PROF_F_OFFCPU that
 * cover its task (system sessions: all), as each may see it
 * (prof_offcpu_view); a task session is told the name of the server an
 * IPC wait was for (its "[off-cpu: wait SERVER.METHOD]"). prof_lock held.
 */
static void prof_route_offcpu(const prof_rec_offcpu_t *rec)
{
	const prof_ipc_t *ipc = prof_offcpu_ipc(rec);

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!prof_takes_sample(s, rec->h.tsc) || !(s->flags & PROF_F_OFFCPU) ||
		    (s->target && s->target != rec->task && (!ipc || ipc->hops[0] != s->target)))
			continue;
		if (s->target && rec->task != s->target)
			prof_name_server(s, rec->task);
		if (s->target && rec->why == WAIT_WHY_IPC && rec->wait_task != s->target)
			prof_name_server(s, rec->wait_task);
		const prof_rec_offcpu_t *v = prof_offcpu_view(s, rec, &prof_copy.off);
		if (prof_session_put(s, v, v->h.size))
			s->offcpu++;
	}
}

/* The PROF_F_TRACE_* class of a trace record's kind. */
static uint32_t prof_trace_class(unsigned kind)
{
	if (kind == PROF_TR_SWITCH || kind == PROF_TR_WAKEUP)
		return PROF_F_TRACE_SCHED;
	if (kind == PROF_TR_IRQ_ENTER || kind == PROF_TR_IRQ_EXIT)
		return PROF_F_TRACE_IRQ;
	if (kind == PROF_TR_SYSCALL_ENTER || kind == PROF_TR_SYSCALL_EXIT)
		return PROF_F_TRACE_SYSCALL;
	return PROF_F_TRACE_IPC;
}

/* Does task session s cover a side of rec (its task, or a call it originated)? */
static bool prof_trace_covers(const prof_session_t *s, const prof_rec_trace_t *rec)
{
	uint64_t t = s->target;

	return rec->task == t || rec->origin == t || rec->task2 == t || rec->origin2 == t;
}

/* May s see a side (task, working for origin) as it is? Else it is zeroed. */
static bool prof_trace_side_ok(const prof_session_t *s, uint64_t task, uint64_t origin)
{
	return !s->redact || !s->target || task == s->target || task == s->owner ||
	       origin == s->target;
}

/*
 * s's view of rec into buf: a side s may not see (redaction: another
 * task's thread, not working for its target) becomes 0; the other side
 * of an IPC event (the callee or caller) stays, as a sample names the
 * server. Returns the record to put.
 */
static const prof_rec_trace_t *prof_trace_view(const prof_session_t *s,
					      const prof_rec_trace_t *rec, prof_rec_trace_t *buf)
{
	bool ipc = prof_trace_class(rec->kind) == PROF_F_TRACE_IPC;
	bool one = prof_trace_side_ok(s, rec->task, rec->origin);
	bool two = ipc || prof_trace_side_ok(s, rec->task2, rec->origin2);

	if (one && two)
		return rec;
	*buf = *rec;
	if (!one)
		buf->task = buf->thread = buf->origin = 0;
	if (!two)
		buf->task2 = buf->thread2 = buf->origin2 = 0;
	return buf;
}

/*
 * A trace record goes to the running sessions that asked for its class
 * and cover it (system sessions: all), as each may see it; a task
 * session is told the names of the other tasks it sees. prof_lock held.
 */
static void prof_route_trace(const prof_rec_trace_t *rec, void *ctx)
{
	uint32_t cls = prof_trace_class(rec->kind);
	prof_rec_trace_t buf;

	(void)ctx;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!prof_takes_sample(s, rec->h.tsc) || !(s->flags & cls) ||
		    rec->h.tsc < s->begin_tsc || (s->target && !prof_trace_covers(s, rec)))
			continue;
		const prof_rec_trace_t *v = prof_trace_view(s, rec, &buf);
		if (s->target && v->task && v->task != s->target)
			prof_name_server(s, v->task);
		if (s->target && v->task2 && v->task2 != s->target)
			prof_name_server(s, v->task2);
		if (prof_session_put(s, v, sizeof(*v)))
			s->trace++;
	}
}

/*
 * Route CPU i's trace records; what its ring dropped counts in the
 * lost_records (the END record's) of every running session tracing.
 */
static void prof_drain_trace(unsigned i)
{
	bool wanted = false;

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		wanted |= prof_takes_drops(s) && (s->flags & PROF_F_TRACE);
	}
	uint64_t dropped = trace_drain(i, prof_route_trace, NULL, !wanted);
	if (!dropped)
		return;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (prof_takes_drops(s) && (s->flags & PROF_F_TRACE))
			s->lost_records += (uint32_t)dropped;
	}
}

/* Route CPU i's off-CPU records; its ring's drops count as lost ones. */
static void prof_drain_offcpu(unsigned i)
{
	ring_t *r = &prof_engine.off_rings[i];
	uint64_t recs, bytes;
	ring_rec_t rec;

	if (!prof_engine.off_mem[i])
		return;
	while (ring_peek(r, &rec) == EOK) {
		if (rec.type == PROF_REC_OFFCPU)
			prof_route_offcpu(rec.data);
		ring_release_peeked(r, &rec);
	}
	ring_take_dropped(r, &recs, &bytes);
	prof_offcpu_lost += recs;
}

static void prof_drain_rings(void)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		ring_t *r = &prof_engine.rings[i];
		ring_rec_t rec;
		if (!prof_engine.ring_mem[i])
			continue;
		while (ring_peek(r, &rec) == EOK) {
			if (rec.type == PROF_REC_SAMPLE)
				prof_route_sample(rec.data);
			else if (rec.type == PROF_REC_CALL)
				prof_route_call(rec.data);
			else
				prof_route_all(rec.data);
			ring_release_peeked(r, &rec);
		}
		prof_route_drops(r);
		prof_drain_offcpu(i);
		prof_drain_trace(i);
	}
}

/* Throttle totals: what each CPU skipped since each session began. */
static void prof_update_throttled(void)
{
	uint64_t skipped = 0;

	for (unsigned i = 0; i < cpu_count; i++)
		skipped += prof_cpus[i].skipped;
	prof_total_throttled = skipped;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!s->closed && s->state != PROF_STATE_ENDED)
			s->throttled = skipped - s->skipped_base;
	}
}

/*
 * Missed ticks: each CPU whose count changed since the last pass gets a
 * PROF_REC_MISSED in every session that takes samples; the totals
 * (system.profiler's since boot, each live session's since its begin)
 * follow. prof_lock held.
 */
static void prof_update_missed(void)
{
	uint64_t all = 0;
	prof_rec_missed_t m;

	for (unsigned i = 0; i < cpu_count; i++) {
		prof_cpu_t *p = &prof_cpus[i];
		uint64_t now = prof_engine.ring_mem[i] ? prof_cpu_missed(i) : p->missed_sent;
		all += now;
		if (now == p->missed_sent)
			continue;
		prof_total_missed += now > p->missed_sent ? now - p->missed_sent : 0;
		p->missed_sent = now;
		prof_rec_init(&m.h, PROF_REC_MISSED, sizeof(m), i, time_cycles());
		m.missed = now;
		prof_route_all(&m.h);
	}
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!s->closed && s->state != PROF_STATE_ENDED && all >= s->missed_base)
			s->missed = all - s->missed_base;
	}
}

/* One event to the sessions that want it; the target's exit ends its sessions. */
static void prof_route_event(prof_event_t *e)
{
	const prof_rec_t *h = (const prof_rec_t *)e->rec;

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (s->closed || s->state == PROF_STATE_ENDED || (s->target && s->target != e->task))
			continue;
		prof_session_put(s, h, e->size);
		if (h->type == PROF_REC_EXIT && s->target == e->task && !s->ending) {
			s->end_tsc = h->tsc;
			s->ending = true;
			s->end_reason = PROF_END_TARGET_EXIT;
		}
	}
}

/* Take the queued events (prof_lock held); route them. Returns them for freeing. */
static void prof_drain_events(list_t *done)
{
	list_foreach_safe(&prof_events, it, tmp) {
		list_remove(it);
		prof_route_event(list_entry(it, prof_event_t, node));
		list_append(done, it);
	}
}

/* Sessions that are ending get their END record. Returns true if any ended. */
static bool prof_finish_sessions(void)
{
	bool any = false;

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		prof_rec_end_t e;
		if (!s->ending || s->state == PROF_STATE_ENDED)
			continue;
		prof_report_lost(s);
		memset(&e, 0, sizeof(e));
		prof_rec_init(&e.h, PROF_REC_END, sizeof(e), 0, time_cycles());
		e.samples = s->samples;
		e.lost = s->lost;
		e.throttled = s->throttled;
		e.reason = s->end_reason;
		e.lost_records = s->lost_records;
		if (prof_fifo_put(&s->out, &e, sizeof(e))) {
			s->state = PROF_STATE_ENDED;
			any = true;
		}
	}
	return any;
}

/* Closed sessions move to dead (prof_lock held). */
static void prof_collect_closed(list_t *dead)
{
	list_foreach_safe(&prof_sessions, it, tmp) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!s->closed)
			continue;
		list_remove(it);
		list_append(dead, it);
		__atomic_sub_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);
	}
}

static void prof_free_dead(list_t *dead, list_t *events)
{
	list_foreach_safe(dead, it, tmp) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		list_remove(it);
		if (s->read)
			kcall_answer(s->read, EHANGUP, NULL);
		prof_session_free(s);
	}
	list_foreach_safe(events, it, tmp) {
		list_remove(it);
		kfree(list_entry(it, prof_event_t, node));
	}
}

/* One pass over rings, events and sessions. Returns true if a session ended or closed. */
static bool prof_drain_pass(void)
{
	list_t dead = LIST_INIT(dead), events = LIST_INIT(events);
	uint64_t f = spin_lock_irqsave(&prof_lock);

	prof_drain_rings();
	prof_update_throttled();
	prof_update_missed();
	prof_drain_events(&events);
	bool changed = prof_finish_sessions();
	prof_collect_closed(&dead);
	changed |= !list_empty(&dead);
	spin_unlock_irqrestore(&prof_lock, f);
	prof_free_dead(&dead, &events);
	return changed;
}

/* ---------------------------------------------------------------- reads */

static bool prof_read_ready(const prof_session_t *s, uint64_t now)
{
	const ipc_msg_t *m;

	if (!s->read || s->closed)
		return false;
	m = kcall_msg(s->read);
	return prof_fifo_used(&s->out) >= MIN(m->args[1], PROF_STAGE_BYTES) / 2 ||
	       now >= s->read_deadline ||
	       s->state == PROF_STATE_ENDED;
}

/*
 * Copy a read's records straight from the session's FIFO to the caller
 * (no lock: only this thread consumes or frees a session, and the FIFO's
 * writers never write over bytes not yet consumed).
 */
static errno_t prof_copy_span(struct call *c, const prof_fifo_span_t *sp)
{
	uint64_t dst = kcall_msg(c)->args[0];
	errno_t rc = prof_copy_to_caller(c, dst, sp->p[0], sp->n[0]);

	if (rc == EOK && sp->n[1])
		rc = prof_copy_to_caller(c, dst + sp->n[0], sp->p[1], sp->n[1]);
	return rc;
}

/* Answer one ready read; false if none was ready. */
static bool prof_answer_one(uint64_t now)
{
	struct call *c = NULL;
	prof_session_t *s = NULL;
	prof_fifo_span_t sp = { { NULL, NULL }, { 0, 0 } };
	size_t n = 0;
	uint32_t state = 0;
	uint64_t f = spin_lock_irqsave(&prof_lock);

	list_foreach(&prof_sessions, it) {
		s = list_entry(it, prof_session_t, node);
		if (prof_read_ready(s, now)) {
			c = s->read;
			s->read = NULL;
			n = prof_fifo_front(&s->out, MIN(kcall_msg(c)->args[1], PROF_STAGE_BYTES),
					    &sp);
			state = s->state;
			break;
		}
	}
	spin_unlock_irqrestore(&prof_lock, f);
	if (!c)
		return false;
	errno_t rc = prof_copy_span(c, &sp);
	f = spin_lock_irqsave(&prof_lock);
	if (rc == EOK)
		prof_fifo_consume(&s->out, n);
	bool left = prof_fifo_used(&s->out) > 0;
	spin_unlock_irqrestore(&prof_lock, f);
	uint64_t ans[IPC_ARGS] = { rc == EOK ? n : 0,
				   state == PROF_STATE_ENDED && left ? PROF_STATE_RUNNING : state };
	kcall_answer(c, rc, ans);
	return true;
}

/*
 * Note: a session freed by prof_free_dead() is never looked at here: only
 * this thread frees sessions, and it does not do so while answering.
 */
static void prof_answer_reads(void)
{
	uint64_t now = time_ns();

	while (prof_answer_one(now))
		;
}

static void prof_drain_sleep(void)
{
	uint64_t f = spin_lock_irqsave(&prof_drain_wq.lock);

	if (!prof_kicked)
		waitq_sleep_locked(&prof_drain_wq, &f,
				   prof_nsessions ? PROF_DRAIN_NS : 0);
	prof_kicked = false;
	spin_unlock_irqrestore(&prof_drain_wq.lock, f);
}

static void prof_drain_thread(void *arg)
{
	(void)arg;
	for (;;) {
		prof_drain_sleep();
		bool changed = prof_drain_pass();
		prof_answer_reads();
		if (changed)
			prof_engine_idle_check();
	}
}

void prof_drain_init(void)
{
	waitq_init(&prof_drain_wq);
	if (thread_create_kernel("profd", prof_drain_thread, NULL, NULL) != EOK)
		panic("prof: cannot start the drain thread");
}
