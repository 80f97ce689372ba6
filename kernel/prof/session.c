/*
 * Profiling sessions: the KBOX_PROF_* methods (abi/profile.h), served by
 * the kbox thread, and the sampling engine they share (per-CPU rings and
 * the arch source). The kbox thread begins, pauses, resumes and ends
 * sessions and parks DATA_READ calls; the drain thread (drain.c) fills
 * and finishes them. Engine start and stop are serialised by prof_ctl (a
 * sleeping mutex).
 *
 * Lock order: prof_ctl → prof_lock → the task table lock or a vm_space lock
 * (see internal.h).
 */
#include <abi/limits.h>
#include <abi/platform.h>
#include <arch/prof.h>
#include <kernel/ipc.h>
#include <kernel/kbox.h>
#include <kernel/mutex.h>
#include <kernel/ostack.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/tick.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/version.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>
#include "internal.h"

#define LOG_PREFIX "prof"

prof_engine_t prof_engine;
spinlock_t prof_lock = SPINLOCK_INIT("prof");
list_t prof_sessions = LIST_INIT(prof_sessions);
list_t prof_events = LIST_INIT(prof_events);
volatile unsigned prof_nsessions;
uint64_t prof_total_samples, prof_total_lost, prof_total_throttled, prof_total_unrouted;
uint64_t prof_total_missed;
static kmutex_t prof_ctl = KMUTEX_INIT(prof_ctl, "prof_ctl");


extern char __text_start[], __text_end[];

static void prof_ctl_lock(void)
{
	kmutex_lock(&prof_ctl);
}

static void prof_ctl_unlock(void)
{
	kmutex_unlock(&prof_ctl);
}

/* A session of conn that is not closed, or NULL. prof_lock held. */
static prof_session_t *prof_find(uint64_t conn)
{
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (s->conn == conn && !s->closed)
			return s;
	}
	return NULL;
}

static bool prof_live(const prof_session_t *s)
{
	return !s->closed && !s->ending && s->state != PROF_STATE_ENDED;
}

void prof_filter_update(void)
{
	bool system = false, off_system = false, off = false;
	uint32_t classes = 0;
	uint64_t targets[PROF_MAX_TARGETS] = { 0 }, off_targets[PROF_MAX_TARGETS] = { 0 };

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		bool on = prof_live(s) && s->state == PROF_STATE_RUNNING;
		bool offcpu = on && (s->flags & PROF_F_OFFCPU);
		if (on && (!s->target || s->slot < 0))
			system = true;       /* a task session without a slot: the drain filters */
		if (on && s->slot >= 0)
			targets[s->slot] = s->target;
		off_system |= offcpu && (!s->target || s->slot < 0);
		if (offcpu && s->slot >= 0)
			off_targets[s->slot] = s->target;
		off |= offcpu;
		classes |= on ? s->flags & PROF_F_TRACE : 0;
	}
	for (unsigned i = 0; i < PROF_MAX_TARGETS; i++) {
		prof_engine.targets[i] = targets[i];
		prof_engine.off_targets[i] = off_targets[i];
	}
	prof_engine.system = system;
	prof_engine.off_system = off_system;
	prof_offcpu_on = off;
	trace_set(classes);
}

/* A free slot in prof_engine.targets (none used by a listed session), or -1. */
static int prof_free_slot(void)
{
	bool used[PROF_MAX_TARGETS] = { false };

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (s->slot >= 0)
			used[s->slot] = true;
	}
	for (int i = 0; i < PROF_MAX_TARGETS; i++)
		if (!used[i])
			return i;
	return -1;
}

bool prof_session_lose(prof_session_t *s, const void *rec)
{
	if (((const prof_rec_t *)rec)->type != PROF_REC_SAMPLE) {
		s->lost_records++;       /* not a sample: lost counts samples only */
		return false;
	}
	s->lost++;
	s->lost_unreported++;
	return false;
}

/* ---------------------------------------------------------------- engine */

static void prof_rings_free(void)
{
	uint64_t f = spin_lock_irqsave(&prof_lock);
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		kfree(prof_engine.ring_mem[i]);
		prof_engine.ring_mem[i] = NULL;
		kfree(prof_engine.off_mem[i]);
		prof_engine.off_mem[i] = NULL;
	}
	spin_unlock_irqrestore(&prof_lock, f);
}

/* The sample ring (bytes) and the off-CPU ring of each CPU. */
static errno_t prof_rings_alloc(size_t bytes)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		void *m = kmalloc(bytes), *o = kmalloc(PROF_OFF_RING_BYTES);
		if (!m || !o) {
			kfree(m);
			kfree(o);
			prof_rings_free();
			return ENOMEM;
		}
		ring_init(&prof_engine.rings[i], m, bytes);
		ring_init(&prof_engine.off_rings[i], o, PROF_OFF_RING_BYTES);
		uint64_t f = spin_lock_irqsave(&prof_lock);
		prof_engine.ring_mem[i] = m;
		prof_engine.off_mem[i] = o;
		spin_unlock_irqrestore(&prof_lock, f);
	}
	return EOK;
}

/* Clear prof_engine.on and wait until no CPU is inside prof_hit. */
static void prof_quiesce(void)
{
	prof_gate_close(&prof_engine.on);
	for (unsigned i = 0; i < cpu_count; i++)
		while (prof_gate_busy(&prof_cpus[i].busy) || prof_gate_busy(&prof_cpus[i].off_busy))
			cpu_relax();
}

static void prof_engine_stop_locked(void)
{
	prof_stacks_want(false);
	prof_offcpu_on = false;
	trace_stop();
	prof_engine.on = false;
	arch_prof_stop();
	prof_quiesce();
	prof_rings_free();
}

/* Start the engine, or join it; *src and *hz become what runs. prof_ctl held. */
static errno_t prof_engine_start(unsigned *src, unsigned *hz, unsigned depth, unsigned budget)
{
	if (prof_engine.on) {
		*src = prof_engine.source;
		*hz = prof_engine.hz;
		if (depth > prof_engine.depth)
			prof_engine.depth = depth;
		prof_stacks_want(prof_engine.depth != 0);
		return EOK;
	}
	prof_source_desc_t d;
	if (!prof_source_desc(*src, &d) || !(d.flags & PROF_SRCF_AVAILABLE))
		return ENOTSUP;
	errno_t rc = prof_rings_alloc(depth ? PROF_RING_BYTES_CHAIN : PROF_RING_BYTES);
	if (rc == EOK && (rc = trace_start()) != EOK)
		prof_rings_free();
	if (rc != EOK)
		return rc;
	prof_engine.ticking = d.flags & PROF_SRCF_CLOCK;   /* else (pmc) a sample weighs its period */
	prof_engine.period = 0;                      /* until the rate is known: nominal weights */
	prof_sample_reset();
	prof_engine.depth = depth;
	prof_engine.budget = budget;
	prof_engine.window = time_cycles_per_sec() / PROF_THROTTLE_WINDOW_DIV;
	prof_engine.irq_cost = arch_prof_irq_cycles();
	prof_engine.clock = d.flags & PROF_SRCF_OWED;     /* rtc drops late ticks by itself */
	prof_engine.source = *src;
	prof_engine.on = true;
	rc = arch_prof_start(*src, *hz, hz);
	if (rc != EOK) {
		prof_engine.on = false;
		prof_quiesce();
		prof_rings_free();
		trace_stop();
		return rc;
	}
	prof_engine.hz = *hz;
	__atomic_store_n(&prof_engine.period, time_cycles_per_sec() / MAX(*hz, 1u), __ATOMIC_RELEASE);
	prof_stacks_want(depth != 0);
	return EOK;
}

void prof_engine_idle_check(void)
{
	prof_ctl_lock();
	bool live = false;
	uint64_t f = spin_lock_irqsave(&prof_lock);
	list_foreach(&prof_sessions, it)
		live |= prof_live(list_entry(it, prof_session_t, node));
	spin_unlock_irqrestore(&prof_lock, f);
	if (!live && prof_engine.on)
		prof_engine_stop_locked();
	prof_ctl_unlock();
}

/* ---------------------------------------------------------------- begin */

typedef struct prof_args {
	unsigned source, hz, flags, depth, budget;
} prof_args_t;

/* Check and complete BEGIN's arguments. */
static errno_t prof_args_get(const ipc_msg_t *m, prof_args_t *a)
{
	a->source = (unsigned)m->args[0];
	a->hz = m->args[1] ? (unsigned)m->args[1] : PROF_HZ_DEFAULT;
	a->flags = (unsigned)m->args[2];
	a->depth = (unsigned)m->args[3];
	a->budget = m->args[4] ? (unsigned)m->args[4] : PROF_BUDGET_DEFAULT;
	if (m->args[0] >= PROF_SRC_COUNT || m->args[1] > PROF_HZ_MAX || m->args[4] > PROF_BUDGET_MAX ||
	    m->args[2] & ~(uint64_t)(PROF_F_CALLCHAIN | PROF_F_PAUSED | PROF_F_OFFCPU | PROF_F_TRACE |
				     PROF_F_RECORDER) ||
	    m->args[3] > PROF_DEPTH_MAX)
		return EINVAL;
	if (a->source == PROF_SRC_DEFAULT)
		a->source = prof_source_default();
	if (!(a->flags & PROF_F_CALLCHAIN))
		a->depth = 0;
	else if (!a->depth)
		a->depth = PROF_DEPTH_DEFAULT;
	return EOK;
}

/*
 * A session without PERM_PROFILE may not set the engine beyond the
 * unprivileged caps (rate, throttle budget): EOK or ELIMIT.
 */
static errno_t prof_caps_check(const task_t *caller, const prof_args_t *a)
{
	if (caller->perms & PERM_PROFILE)
		return EOK;
	return a->hz > PROF_UNPRIV_HZ_MAX || a->budget > PROF_UNPRIV_BUDGET_MAX ? ELIMIT : EOK;
}

/* May caller profile target (NULL: the whole system)? */
static bool prof_allowed(task_t *caller, task_t *target)
{
	if (caller->perms & PERM_PROFILE)
		return true;
	return target && (target == caller || target->parent == caller);
}

/* Sessions of owner still open (not closed). prof_lock held. */
static uint32_t prof_owner_sessions(uint64_t owner)
{
	uint32_t n = 0;

	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		n += s->owner == owner && !s->closed;
	}
	return n;
}

uint32_t prof_task_sessions(uint64_t task_id)
{
	uint64_t f = spin_lock_irqsave(&prof_lock);
	uint32_t n = prof_owner_sessions(task_id);

	spin_unlock_irqrestore(&prof_lock, f);
	return n;
}

/* Does a live session take trace records? prof_lock held. */
static bool prof_tracing(void)
{
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (prof_live(s) && (s->flags & PROF_F_TRACE))
			return true;
	}
	return false;
}

/* Is another system session open (not ended)? prof_lock held. */
static bool prof_system_busy(void)
{
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		if (!s->target && !s->closed && s->state != PROF_STATE_ENDED)
			return true;
	}
	return false;
}

/* s's header record: its samples come from source at hz. */
static void prof_put_header(prof_session_t *s, unsigned source, unsigned hz)
{
	prof_rec_header_t h;

	prof_header_fill(&h, s, source, hz);
	prof_session_put(s, &h, sizeof(h));
}

void prof_header_fill(prof_rec_header_t *hp, const prof_session_t *s, unsigned source,
		      unsigned hz)
{
	prof_rec_header_t h;

	memset(&h, 0, sizeof(h));
	prof_rec_init(&h.h, PROF_REC_HEADER, sizeof(h), cpu_id(), time_cycles());
	h.magic = PROF_MAGIC;
	h.version = PROF_VERSION;
	h.source = source;
	h.hz = hz;
	h.ncpus = cpus_online;
	h.flags = s->flags;
	if (platform_sampling() == PLATFORM_TCG)
		h.flags |= PROF_F_TB_BIASED;
	if (platform_sampling() == PLATFORM_TCG_ICOUNT && cpus_online > 1 &&
	    platform_icount_uneven())
		h.flags |= PROF_F_ICOUNT_SMP;
	if (platform_icount_auto())
		h.flags |= PROF_F_ICOUNT_AUTO;
	h.depth = s->depth;
	h.tsc_hz = time_cycles_per_sec();
	h.target = s->target;
	h.ktext_start = s->redact ? 0 : (uint64_t)__text_start;
	h.ktext_end = s->redact ? 0 : (uint64_t)__text_end;
	strlcpy(h.kernel, VERNIER_VERSION, sizeof(h.kernel));
	prof_source_desc_t d;
	if (prof_source_desc(h.source, &d))
		strlcpy(h.source_name, d.name, sizeof(h.source_name));
	else if (h.source == PROF_SRC_TICK)
		strlcpy(h.source_name, PROF_SRC_TICK_NAME, sizeof(h.source_name));
	*hp = h;
}

/*
 * s's base of missed ticks: one PROF_REC_MISSED per CPU with its count
 * so far, and their sum. prof_lock held, the engine on.
 */
static void prof_put_missed_base(prof_session_t *s)
{
	prof_rec_missed_t m;

	for (unsigned i = 0; i < cpu_count; i++) {
		prof_rec_init(&m.h, PROF_REC_MISSED, sizeof(m), i, time_cycles());
		m.missed = prof_cpu_missed(i);
		s->missed_base += m.missed;
		prof_session_put(s, &m, sizeof(m));
	}
}

static void prof_describe_one(task_t *t, void *ctx)
{
	prof_describe_task(ctx, t);
}

static prof_session_t *prof_session_new(uint64_t conn, task_t *target, const prof_args_t *a)
{
	prof_session_t *s = kzalloc(sizeof(*s));

	if (!s)
		return NULL;
	size_t bytes = target ? PROF_TASK_SESSION_BYTES : PROF_SESSION_BYTES;
	void *buf = kmalloc(bytes);
	if (!buf) {
		kfree(s);
		return NULL;
	}
	prof_fifo_init(&s->out, buf, bytes);
	s->conn = conn;
	s->target = target ? target->id : 0;
	s->flags = a->flags;
	s->depth = a->depth;
	s->slot = -1;
	s->state = (a->flags & PROF_F_PAUSED) ? PROF_STATE_PAUSED : PROF_STATE_RUNNING;
	for (unsigned i = 0; i < cpu_count; i++)
		s->skipped_base += prof_cpus[i].skipped;
	return s;
}

void prof_session_free(prof_session_t *s)
{
	kfree(s->out.buf);
	kfree(s);
}

/*
 * Describe the tasks s covers and publish s, atomically under prof_lock:
 * a task created meanwhile is either described here or queues its event
 * after the session is listed (prof_nsessions was raised before), so
 * none is missed. EOK or EBUSY (conn has a session; a second system
 * session). Task sessions beyond PROF_MAX_TARGETS get no slot: the NMI
 * side then keeps every sample and the drain thread picks theirs.
 */
static errno_t prof_publish(prof_session_t *s, task_t *target)
{
	errno_t rc = EOK;
	uint64_t f = spin_lock_irqsave(&prof_lock);

	if (prof_find(s->conn) || (!target && prof_system_busy()))
		rc = EBUSY;
	if (rc == EOK && s->owner && prof_owner_sessions(s->owner) >= LIMIT_PROF_SESSIONS)
		rc = ELIMIT;
	if (rc == EOK && target)
		s->slot = prof_free_slot();
	if (rc == EOK) {
		if ((s->flags & PROF_F_TRACE) && !prof_tracing())
			trace_sync();        /* the drain starts at now: older is the recorder's */
		s->begin_tsc = time_cycles();
		prof_put_header(s, prof_engine.source, prof_engine.hz);
		prof_put_missed_base(s);
		if (target)
			prof_describe_task(s, target);
		else
			task_foreach(prof_describe_one, s);
		list_append(&prof_sessions, &s->node);
		if (target && target->state != TASK_ALIVE) {
			s->ending = true;
			s->end_reason = PROF_END_TARGET_EXIT;
		}
		prof_filter_update();
	}
	spin_unlock_irqrestore(&prof_lock, f);
	return rc;
}

/* ------------------------------------------------------------ the recorder */

/* trace_fn_t and trace_sample_fn_t: a recorder record into the session (its own yet). */
static void prof_recorder_trace(const prof_rec_trace_t *rec, void *ctx)
{
	prof_session_t *s = ctx;

	if (prof_session_put(s, rec, sizeof(*rec)))
		s->trace++;
}

static void prof_recorder_sample(const prof_rec_sample_t *rec, void *ctx)
{
	prof_session_t *s = ctx;

	if (prof_session_put(s, rec, sizeof(*rec)))
		prof_count_mode(s, rec->mode);
}

/* A session for the recorder's contents on conn: room for all of it, or NULL. */
static prof_session_t *prof_recorder_session(uint64_t conn)
{
	prof_session_t *s = kzalloc(sizeof(*s));
	/* A stream record per slot (a trace record, or a smaller sample); the tasks' besides. */
	size_t bytes = trace_recorder_bytes() / sizeof(trace_slot_t) * sizeof(prof_rec_trace_t) +
		       PROF_TASK_SESSION_BYTES;
	void *buf = s ? kmalloc(bytes) : NULL;

	if (!buf) {
		kfree(s);
		return NULL;
	}
	prof_fifo_init(&s->out, buf, bytes);
	s->conn = conn;
	s->flags = PROF_F_RECORDER | trace_recorder_classes();
	s->slot = -1;
	s->state = PROF_STATE_RUNNING;
	return s;
}

/*
 * Fill s, not listed yet (its own): the header and the tasks (under
 * prof_lock, as a session's description), then the recorder's records
 * and the END (without it: a long copy, and s is no one else's).
 */
static void prof_recorder_fill(prof_session_t *s)
{
	prof_rec_end_t e = { .reason = PROF_END_RECORDER };
	uint64_t f = spin_lock_irqsave(&prof_lock);

	prof_put_header(s, PROF_SRC_TICK, tick_hz());
	task_foreach(prof_describe_one, s);
	spin_unlock_irqrestore(&prof_lock, f);
	trace_recorder_copy(prof_recorder_trace, prof_recorder_sample, s, UINT64_MAX);
	prof_rec_init(&e.h, PROF_REC_END, sizeof(e), 0, time_cycles());
	e.samples = s->samples;
	e.lost_records = s->lost_records;
	prof_session_put(s, &e, sizeof(e));
	s->state = PROF_STATE_ENDED;
}

/* List the filled s (prof_lock); EBUSY: its connection has a session. */
static errno_t prof_recorder_publish(prof_session_t *s)
{
	uint64_t f = spin_lock_irqsave(&prof_lock);
	errno_t rc = prof_find(s->conn) ? EBUSY : EOK;

	if (rc == EOK) {
		__atomic_add_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);
		list_append(&prof_sessions, &s->node);
	}
	spin_unlock_irqrestore(&prof_lock, f);
	return rc;
}

/*
 * SYSTEM_BEGIN with PROF_F_RECORDER: a session holding what the flight
 * recorder keeps, ended at once (abi/profile.h). EPERM without the
 * profile permission, ENOTSUP without the recorder.
 */
static errno_t prof_recorder_begin(struct call *c, bool system, uint64_t ans[IPC_ARGS])
{
	task_t *caller = kcall_caller(c);

	if (!system)
		return EINVAL;
	if (!(caller->perms & PERM_PROFILE))
		return EPERM;
	if (!trace_recorder_bytes())
		return ENOTSUP;
	prof_session_t *s = prof_recorder_session(kcall_conn(c));
	if (!s)
		return ENOMEM;
	prof_recorder_fill(s);
	errno_t rc = prof_recorder_publish(s);
	if (rc != EOK) {
		prof_session_free(s);
		return rc;
	}
	prof_drain_kick();
	ans[0] = PROF_SRC_TICK;
	ans[1] = tick_hz();
	return EOK;
}

static errno_t prof_kbox_begin(struct call *c, bool system, uint64_t ans[IPC_ARGS])
{
	task_t *caller = kcall_caller(c), *target = system ? NULL : kcall_kbox_task(c);
	prof_args_t a;
	errno_t rc = prof_args_get(kcall_msg(c), &a);

	if (rc != EOK)
		return rc;
	if (a.flags & PROF_F_RECORDER)
		return prof_recorder_begin(c, system, ans);
	if (!prof_allowed(caller, target))
		return EPERM;
	if (prof_caps_check(caller, &a) != EOK)
		return ELIMIT;
	if (target && target->state != TASK_ALIVE)
		return ESRCH;
	prof_session_t *s = prof_session_new(kcall_conn(c), target, &a);
	if (!s)
		return ENOMEM;
	s->owner = (caller->perms & PERM_PROFILE) ? 0 : caller->id;
	s->redact = !(caller->perms & PERM_PROFILE);
	prof_ctl_lock();
	__atomic_add_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);   /* hooks queue events */
	rc = prof_engine_start(&a.source, &a.hz, a.depth, a.budget);
	if (rc == EOK)
		rc = prof_publish(s, target);
	prof_ctl_unlock();
	if (rc != EOK) {
		__atomic_sub_fetch(&prof_nsessions, 1, __ATOMIC_RELAXED);
		prof_session_free(s);
		prof_engine_idle_check();
		prof_drain_kick();           /* events queued meanwhile: free them */
		return rc;
	}
	prof_drain_kick();
	ans[0] = a.source;
	ans[1] = a.hz;
	return EOK;
}

/* ---------------------------------------------------------------- control */

static errno_t prof_kbox_end(prof_session_t *s)
{
	if (!s->ending && s->state != PROF_STATE_ENDED) {
		s->end_tsc = time_cycles();
		s->ending = true;
		s->end_reason = PROF_END_REQUEST;
	}
	return EOK;
}

static errno_t prof_kbox_pause(prof_session_t *s, bool pause)
{
	if (!prof_live(s))
		return EINVAL;
	s->state = pause ? PROF_STATE_PAUSED : PROF_STATE_RUNNING;
	return EOK;
}

static void prof_status_fill(const prof_session_t *s, prof_status_t *st)
{
	memset(st, 0, sizeof(*st));
	st->state = s->state == PROF_STATE_ENDED ? PROF_STATE_ENDED
		    : s->ending ? PROF_STATE_RUNNING : s->state;
	st->source = prof_engine.on ? prof_engine.source : 0;
	st->hz = prof_engine.on ? prof_engine.hz : 0;
	st->ncpus = cpus_online;
	st->samples = s->samples;
	st->user = s->user;
	st->kernel = s->kernel;
	st->idle = s->idle;
	st->lost = s->lost;
	st->throttled = s->throttled;
	st->pending = prof_fifo_used(&s->out);
	st->target = s->target;
	st->chains_lost = ostack_lost();
	st->offcpu_lost = __atomic_load_n(&prof_offcpu_lost, __ATOMIC_RELAXED);
	st->offcpu = s->offcpu;
	st->missed = s->missed;
	st->trace = s->trace;
	st->trace_lost = trace_lost();
	for (unsigned i = 0; i < cpu_count && prof_engine.on; i++) {
		st->sample_cycles += prof_cpus[i].cost;
		st->taken += prof_cpus[i].taken;
	}
}

errno_t prof_copy_to_caller(struct call *c, uint64_t dst, const void *src, size_t size)
{
	vm_space_t *space = task_space_get(kcall_caller(c));

	if (!space)
		return EFAULT;
	errno_t rc = vm_space_copy_out(space, dst, src, size);
	vm_space_put(space);
	return rc;
}

static errno_t prof_kbox_status(struct call *c)
{
	const ipc_msg_t *m = kcall_msg(c);
	prof_status_t st;
	errno_t rc = ENOENT;

	uint64_t f = spin_lock_irqsave(&prof_lock);
	prof_session_t *s = prof_find(kcall_conn(c));
	if (s) {
		prof_status_fill(s, &st);
		rc = EOK;
	}
	spin_unlock_irqrestore(&prof_lock, f);
	if (rc == EOK)
		rc = prof_copy_to_caller(c, m->args[0], &st, MIN(m->args[1], sizeof(st)));
	return rc;
}

/* Park a DATA_READ; the drain thread answers it. EOK means parked. */
static errno_t prof_kbox_read(struct call *c)
{
	const ipc_msg_t *m = kcall_msg(c);
	errno_t rc = ENOENT;

	if (m->args[1] < PROF_READ_MIN || m->args[0] >= USER_END ||
	    m->args[1] > USER_END - m->args[0])
		return EINVAL;
	uint64_t f = spin_lock_irqsave(&prof_lock);
	prof_session_t *s = prof_find(kcall_conn(c));
	if (s && s->read) {
		rc = EBUSY;
	} else if (s) {
		s->read = c;
		s->read_deadline = time_ns() + PROF_READ_TIMEOUT_MS * 1000000ull;
		rc = EOK;
	}
	spin_unlock_irqrestore(&prof_lock, f);
	return rc;
}

/* END, PAUSE, RESUME on the caller's session. */
static errno_t prof_kbox_control(struct call *c, uint64_t method)
{
	errno_t rc = ENOENT;
	uint64_t f = spin_lock_irqsave(&prof_lock);
	prof_session_t *s = prof_find(kcall_conn(c));

	if (s && method == KBOX_PROF_END)
		rc = prof_kbox_end(s);
	else if (s)
		rc = prof_kbox_pause(s, method == KBOX_PROF_PAUSE);
	prof_filter_update();
	spin_unlock_irqrestore(&prof_lock, f);
	return rc;
}

/*
 * Serve a KBOX_PROF_* call c (from the kbox thread): the method, its
 * args, the calling task and connection, and the kbox's task. Answers c
 * now or parks it (DATA_READ) to be answered by the drain thread.
 */
static void prof_kbox_serve(struct call *c)
{
	uint64_t method = kcall_msg(c)->method, ans[IPC_ARGS] = { 0 };
	errno_t rc;

	switch (method) {
	case KBOX_PROF_TASK_BEGIN:
	case KBOX_PROF_SYSTEM_BEGIN:
		rc = prof_kbox_begin(c, method == KBOX_PROF_SYSTEM_BEGIN, ans);
		break;
	case KBOX_PROF_END:
	case KBOX_PROF_PAUSE:
	case KBOX_PROF_RESUME:
		rc = prof_kbox_control(c, method);
		if (rc == EOK)
			prof_drain_kick();
		break;
	case KBOX_PROF_DATA_READ:
		rc = prof_kbox_read(c);
		if (rc == EOK) {
			prof_drain_kick();
			return;                  /* parked: answered by the drain thread */
		}
		break;
	case KBOX_PROF_STATUS:
		rc = prof_kbox_status(c);
		break;
	default:
		rc = ENOTSUP;
	}
	kcall_answer(c, rc, ans);
}

/* The caller's connection conn to a kbox was hung up: end its session. */
static void prof_conn_closed(uint64_t conn)
{
	uint64_t f = spin_lock_irqsave(&prof_lock);
	prof_session_t *s = prof_find(conn);

	if (s) {
		s->closed = true;
		prof_filter_update();
	}
	spin_unlock_irqrestore(&prof_lock, f);
	if (s)
		prof_drain_kick();
}

/* The KBOX_PROF_* methods (abi/profile.h: TASK_BEGIN is the first, STATUS the last). */
static const kbox_methods_t prof_kbox_methods = {
	.name = "prof",
	.first = KBOX_PROF_TASK_BEGIN,
	.last = KBOX_PROF_STATUS,
	.serve = prof_kbox_serve,
	.closed = prof_conn_closed,
};

void prof_kbox_init(void)
{
	kbox_register(&prof_kbox_methods);
}
