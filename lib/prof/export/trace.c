/*
 * The trace export: a timeline in Chrome's trace-event JSON (the object
 * form, {"traceEvents":[...], "displayTimeUnit":"ns", "otherData":{...}}),
 * which Perfetto UI, chrome://tracing and speedscope open. It is drawn
 * from the records the report kept (prof_report_records): the kernel's
 * trace events (PROF_REC_TRACE, v7) and the samples. Times (ts, dur) are
 * microseconds since the stream's header (or its first record, if a
 * flight recorder's predate it), at its tsc_hz, in steps of 1/1024 us
 * (tr_q: exact in binary floating point).
 *
 *  - Process "CPUs" (pid TR_CPU_PID), one thread per CPU ("CPU n", tid
 *    n): an X slice "TASK:THREAD" (args task, thread, origin) for each
 *    time a thread ran there, between the CPU's SWITCH records; the idle
 *    thread (0) gets none.
 *  - One process per task (pid its id, its TASK record's name), one
 *    thread per thread (tid its id): X slices of its states, "running"
 *    (args cpu, and the origin task of the first call it served in that
 *    time), "runnable" and "waiting: WHY" (WAIT_WHY_NAMES), from SWITCH
 *    and WAKEUP; a thread that acts (CALL, RECEIVE, ...) while not known
 *    to run starts running there. IRQ and SYSCALL enter/exit pairs are X
 *    slices inside its running slices (cut at each switch, resumed when
 *    it runs again); samples are instants (cat "sample") with their
 *    symbolized stack, innermost first; HANGUP is an instant.
 *  - One flow (cat "ipc", id the call's, name "ipc SERVER.METHOD", the
 *    server "?" when a task session redacted it) per call whose CALL and
 *    ANSWERED records are both in the stream: "s" at CALL, "t" at each
 *    RECEIVE, FORWARD and ANSWER, "f" (binding the enclosing slice) at
 *    ANSWERED, each on the acting thread's track inside its running
 *    slice. otherData counts the flows written and those left out (start
 *    or end missing).
 *
 * The records are drawn in time order, by TSC (then stream order): the
 * kernel drains each CPU's samples and trace events from buffers of
 * their own, in chunks, and a deferred WAKEUP carries the time of the
 * wakeup (abi/profile.h), so stream order is not time order. An act
 * stamped before its thread's switch-in is drawn at the switch; a
 * running slice ends no earlier than its thread's latest act; a CPU's
 * slices never overlap. IRQs of the idle thread and idle samples are
 * not drawn. The events are kept (their texts in one buffer) and
 * written sorted by time, metadata first and at one time the longer
 * slice first, so every viewer meets a slice before the slices and flow
 * events inside it.
 */
#include "px.h"
#include <abi/profile.h>
#include <abi/wait.h>
#include <lib/profreport.h>
#include <lib/string.h>

/*
 * The CPUs' process id: far above the task ids the kernel hands out (it
 * counts them up from 1); a stream with a task at or above it moves the
 * CPUs' process just above its largest task id.
 */
#define TR_CPU_PID 1000000000ull
#define TR_CPUS 256                     /* CPU tracks kept */
#define TR_NEST 4                       /* IRQ/SYSCALL slices open at once per thread */
#define TR_FL_CALL 1u                   /* flows' bits: its CALL is in the stream */
#define TR_FL_ANSWERED 2u               /* ... its ANSWERED */

enum { TR_UNKNOWN, TR_RUNNING, TR_RUNNABLE, TR_WAITING };

/* An IRQ or SYSCALL slice open on a thread (its ENTER kind, the arg, since when). */
typedef struct tr_open {
	uint16_t kind;
	uint32_t arg;
	uint64_t since;
} tr_open_t;

typedef struct tr_thread {
	uint64_t task, thread;
	uint8_t state, nopen;           /* TR_* */
	uint16_t why;                   /* TR_WAITING: WAIT_WHY_* */
	uint32_t cpu;                   /* TR_RUNNING: where */
	uint64_t since;                 /* ns: the state's start */
	uint64_t origin;                /* TR_RUNNING: the first origin it served (0: none yet) */
	uint64_t last;                  /* TR_RUNNING: its latest act, ns (its slice ends no earlier) */
	tr_open_t open[TR_NEST];
} tr_thread_t;

typedef struct tr_cpu {
	bool on;                        /* a (non-idle) thread runs there */
	uint64_t task, thread, origin, since;
} tr_cpu_t;

/* A TRACE or SAMPLE record in the order drawn: by key (its TSC), then by its place in the stream. */
typedef struct tr_rec {
	uint64_t key;
	size_t seq;
	const void *rec;
} tr_rec_t;

/*
 * An event written: its text in tr_t.ev from off (to the next event's),
 * its time and duration (metadata: UINT64_MAX, first), the order made.
 */
typedef struct tr_ev {
	uint64_t ts, dur;
	size_t off, seq;
} tr_ev_t;

typedef struct tr {
	px_t *x;
	prof_rec_header_t h;
	bool have_h;
	uint64_t cpu_pid, max_task, last; /* last: the last record's time, ns */
	uint64_t base;                  /* time 0: the header's or an earlier record's TSC */
	uint32_t ncpus;                 /* CPU tracks: the largest CPU seen + 1 */
	px_buf_t o, ev, args;           /* the output; the events' texts; one event's args */
	tr_ev_t *evs;                   /* the events, sorted before they are written */
	size_t nevs, cap_evs;
	px_names_t names;               /* tasks' TASK and last LOAD records */
	char name[PX_NAME_MAX];         /* tr_task_name's */
	px_map_t flows;                 /* call id -> TR_FL_* */
	px_map_t calls;                 /* call id -> its CALL record */
	px_map_t threads;               /* (task, thread) -> index + 1 in th */
	px_map_t named;                 /* task id -> 1: its process_name is out */
	px_map_t funcs;                 /* (task or UINT64_MAX: kernel, addr) -> model func + 1 */
	tr_thread_t *th;
	size_t nth, cap_th;
	tr_cpu_t *cpus;
	tr_rec_t *recs;                 /* pass 1 lists them, pass 2 draws them sorted */
	size_t nrecs, cap_recs;
	uint64_t nflows, left_out, slices, samples;
} tr_t;

/* ---------------------------------------------------------------- small helpers */

/* The 8-byte value of key (len bytes) in m (added with 0 when new). */
static uint64_t *tr_val(tr_t *t, px_map_t *m, const void *key, size_t len)
{
	bool added;
	px_entry_t *e = px_map_get(t->x, m, key, len, &added);

	return e ? &e->val : NULL;
}

static uint64_t tr_get(tr_t *t, px_map_t *m, uint64_t key)
{
	uint64_t *v = tr_val(t, m, &key, sizeof(key));

	return v ? *v : 0;
}

static void tr_set(tr_t *t, px_map_t *m, uint64_t key, uint64_t val)
{
	uint64_t *v = tr_val(t, m, &key, sizeof(key));

	if (v)
		*v = val;
}

/*
 * A stream time (TSC) as ns since the base: the header, or the first
 * event a flight recorder kept from before it (0 before the base).
 */
static uint64_t tr_ns(const tr_t *t, uint64_t tsc)
{
	uint64_t hz = t->h.tsc_hz ? t->h.tsc_hz : 1;

	if (tsc <= t->base)
		return 0;
	return (uint64_t)((unsigned __int128)(tsc - t->base) * 1000000000u / hz);
}

/*
 * ns in units of 1/1024 us (rounded): the file's times are such units,
 * exact in binary floating point, so a reader's sums and differences
 * (speedscope's ts + dur, its ts - first) are exact too and a slice ends
 * exactly where the next one starts. ns a multiple of 125 maps exactly.
 */
static uint64_t tr_q(uint64_t ns)
{
	return (uint64_t)(((unsigned __int128)ns * 128 + 62) / 125);
}

/* ,"KEY":US of q (1/1024 us): its exact decimal, 10 places. */
static void tr_uq(tr_t *t, const char *key, uint64_t q)
{
	px_buf_printf(t->x, &t->ev, ",\"%s\":%llu.%010llu", key, (unsigned long long)(q >> 10),
		      (unsigned long long)(q & 1023) * 9765625ull);
}

/* ,"KEY":US in microseconds (ns: nanoseconds), as tr_q makes it. */
static void tr_us(tr_t *t, const char *key, uint64_t ns)
{
	tr_uq(t, key, tr_q(ns));
}

/* A task's name as the report gives it (valid until the next call). */
static const char *tr_task_name(tr_t *t, uint64_t task)
{
	return px_names_get(t->x, &t->names, task, t->name, sizeof(t->name));
}

/* ---------------------------------------------------------------- events */

/*
 * The start of an event at ns: {"ph":PH,"pid":..,"tid":..,"ts":.. (the
 * caller ends it before the next begins).
 */
static void tr_begin(tr_t *t, const char *ph, uint64_t pid, uint64_t tid, uint64_t ns)
{
	if (!px_reserve(t->x, (void **)&t->evs, &t->cap_evs, t->nevs, sizeof(tr_ev_t)))
		return;
	t->evs[t->nevs] = (tr_ev_t){ ns, *ph == 'M' ? UINT64_MAX : 0, t->ev.len, t->nevs };
	t->nevs++;
	px_buf_printf(t->x, &t->ev, "{\"ph\":\"%s\",\"pid\":%llu,\"tid\":%llu", ph,
		      (unsigned long long)pid, (unsigned long long)tid);
	tr_us(t, "ts", ns);
}

/* ,"name":NAME,"args":ARGS} where ARGS is t->args' text ({} when empty). */
static void tr_end(tr_t *t, const char *name)
{
	px_buf_str(t->x, &t->ev, ",\"name\":");
	px_json_str(t->x, &t->ev, name);
	px_buf_str(t->x, &t->ev, ",\"args\":{");
	px_buf_put(t->x, &t->ev, t->args.p, t->args.len);
	px_buf_str(t->x, &t->ev, "}}");
	t->args.len = 0;
}

/*
 * An X slice [from, to] named name, with t->args; its dur is the
 * difference of the two ends' file times, so ts + dur is to's exactly.
 */
static void tr_slice(tr_t *t, uint64_t pid, uint64_t tid, uint64_t from, uint64_t to,
		     const char *name)
{
	uint64_t dur = to > from ? to - from : 0;

	tr_begin(t, "X", pid, tid, from);
	if (t->nevs)
		t->evs[t->nevs - 1].dur = dur;
	tr_uq(t, "dur", tr_q(from + dur) - tr_q(from));
	tr_end(t, name);
	t->slices++;
}

/* A metadata event (M) name of pid/tid with args {"KEY":VALUE}, a string or a number. */
static void tr_meta(tr_t *t, const char *name, uint64_t pid, uint64_t tid, const char *key,
		    const char *str, long long num)
{
	tr_begin(t, "M", pid, tid, 0);
	px_buf_printf(t->x, &t->args, "\"%s\":", key);
	if (str)
		px_json_str(t->x, &t->args, str);
	else
		px_buf_printf(t->x, &t->args, "%lld", num);
	tr_end(t, name);
}

/* The CPUs' process and its threads' names, CPUs first. */
static void tr_cpu_meta(tr_t *t)
{
	char name[16];

	tr_meta(t, "process_name", t->cpu_pid, 0, "name", "CPUs", 0);
	tr_meta(t, "process_sort_index", t->cpu_pid, 0, "sort_index", NULL, -1);
	for (uint32_t c = 0; c < t->ncpus; c++) {
		fmt_snprintf(name, sizeof(name), "CPU %u", c);
		tr_meta(t, "thread_name", t->cpu_pid, c, "name", name, 0);
		tr_meta(t, "thread_sort_index", t->cpu_pid, c, "sort_index", NULL, c);
	}
}

/* A thread's track names: its task's process (once), then the thread. */
static void tr_thread_meta(tr_t *t, uint64_t task, uint64_t thread)
{
	const char *name = tr_task_name(t, task);

	if (!tr_get(t, &t->named, task)) {
		tr_set(t, &t->named, task, 1);
		tr_meta(t, "process_name", task, 0, "name", name, 0);
		tr_meta(t, "process_sort_index", task, 0, "sort_index", NULL, (long long)task);
	}
	t->x->line.len = 0;
	px_buf_printf(t->x, &t->x->line, "%s:%llu", name, (unsigned long long)thread);
	px_buf_put(t->x, &t->x->line, "", 1);
	tr_meta(t, "thread_name", task, thread, "name", t->x->line.err ? "?" : (char *)t->x->line.p, 0);
}

/* The state of thread (task, thread), made (and named) at first sight; NULL: idle or ENOMEM. */
static tr_thread_t *tr_thread(tr_t *t, uint64_t task, uint64_t thread)
{
	uint64_t key[2] = { task, thread };
	uint64_t *v = thread ? tr_val(t, &t->threads, key, sizeof(key)) : NULL;

	if (!v || *v)
		return v ? &t->th[*v - 1] : NULL;
	if (!px_reserve(t->x, (void **)&t->th, &t->cap_th, t->nth, sizeof(tr_thread_t)))
		return NULL;
	memset(&t->th[t->nth], 0, sizeof(tr_thread_t));
	t->th[t->nth].task = task;
	t->th[t->nth].thread = thread;
	*v = ++t->nth;
	tr_thread_meta(t, task, thread);
	return &t->th[*v - 1];
}

/* ---------------------------------------------------------------- thread states */

/* An open IRQ/SYSCALL slice's piece [its since, to]. */
static void tr_open_piece(tr_t *t, const tr_thread_t *th, const tr_open_t *op, uint64_t to)
{
	bool irq = op->kind == PROF_TR_IRQ_ENTER;
	char name[32];

	fmt_snprintf(name, sizeof(name), "%s %u", irq ? "irq" : "syscall", op->arg);
	px_buf_printf(t->x, &t->args, "\"%s\":%u", irq ? "vector" : "number", op->arg);
	tr_slice(t, th->task, th->thread, op->since, to, name);
}

/* ,"origin":ID,"origin_name":NAME into t->args when origin is set. */
static void tr_origin_args(tr_t *t, uint64_t origin)
{
	if (!origin)
		return;
	px_buf_printf(t->x, &t->args, ",\"origin\":%llu,\"origin_name\":", (unsigned long long)origin);
	px_json_str(t->x, &t->args, tr_task_name(t, origin));
}

/*
 * End the thread's current state at to, or later: not before it began
 * nor, running, before its latest act (a switch stamped before the last
 * event its thread recorded). Its slice (and its open slices' pieces);
 * returns where it ended.
 */
static uint64_t tr_state_end(tr_t *t, tr_thread_t *th, uint64_t to)
{
	static const char *const why[] = WAIT_WHY_NAMES;
	char name[32];

	to = to > th->since ? to : th->since;
	if (th->state == TR_RUNNING && th->last > to)
		to = th->last;
	if (th->state == TR_RUNNING) {
		for (unsigned i = 0; i < th->nopen; i++)
			tr_open_piece(t, th, &th->open[i], to);
		px_buf_printf(t->x, &t->args, "\"cpu\":%u", th->cpu);
		tr_origin_args(t, th->origin);
		tr_slice(t, th->task, th->thread, th->since, to, "running");
	} else if (th->state == TR_RUNNABLE) {
		tr_slice(t, th->task, th->thread, th->since, to, "runnable");
	} else if (th->state == TR_WAITING) {
		fmt_snprintf(name, sizeof(name), "waiting: %s",
			     why[th->why < WAIT_WHY_COUNT ? th->why : WAIT_WHY_COUNT]);
		tr_slice(t, th->task, th->thread, th->since, to, name);
	}
	return to;
}

/* The thread enters state at ns (or where its current state's slice ends, if later). */
static void tr_state(tr_t *t, tr_thread_t *th, unsigned state, uint64_t ns)
{
	th->since = tr_state_end(t, th, ns);
	th->state = (uint8_t)state;
	th->last = th->since;
}

/* The thread runs on cpu from ns, serving origin's call (0: none known). */
static void tr_run(tr_t *t, tr_thread_t *th, uint32_t cpu, uint64_t ns, uint64_t origin)
{
	tr_state(t, th, TR_RUNNING, ns);
	th->cpu = cpu;
	th->origin = origin;
	for (unsigned i = 0; i < th->nopen; i++)
		th->open[i].since = th->since;
}

/* A CPU's slice of the thread that ran there, to ns. */
static void tr_cpu_end(tr_t *t, uint32_t c, uint64_t ns)
{
	tr_cpu_t *cpu = &t->cpus[c];

	if (!cpu->on)
		return;
	t->x->line.len = 0;
	px_buf_printf(t->x, &t->x->line, "%s:%llu", tr_task_name(t, cpu->task),
		      (unsigned long long)cpu->thread);
	px_buf_put(t->x, &t->x->line, "", 1);
	px_buf_printf(t->x, &t->args, "\"task\":%llu,\"thread\":%llu",
		      (unsigned long long)cpu->task, (unsigned long long)cpu->thread);
	tr_origin_args(t, cpu->origin);
	tr_slice(t, t->cpu_pid, c, cpu->since, ns, t->x->line.err ? "?" : (char *)t->x->line.p);
	cpu->on = false;
}

/* CPU c runs (task, thread) from ns, or its last switch if later (thread 0: idle, no slice). */
static void tr_cpu_run(tr_t *t, uint32_t c, uint64_t task, uint64_t thread, uint64_t origin,
		       uint64_t ns)
{
	tr_cpu_t *cpu = c < TR_CPUS ? &t->cpus[c] : NULL;

	if (!cpu)
		return;
	ns = ns > cpu->since ? ns : cpu->since;         /* a CPU's slices never overlap */
	tr_cpu_end(t, c, ns);
	cpu->on = thread != 0;
	cpu->task = task;
	cpu->thread = thread;
	cpu->origin = origin;
	cpu->since = ns;
}

/* The first origin a running thread serves names its slices (and its CPU's). */
static void tr_note_origin(tr_t *t, tr_thread_t *th, uint64_t origin)
{
	tr_cpu_t *cpu = th->cpu < TR_CPUS ? &t->cpus[th->cpu] : NULL;

	if (!origin || th->origin)
		return;
	th->origin = origin;
	if (cpu && cpu->on && cpu->thread == th->thread && !cpu->origin)
		cpu->origin = origin;
}

/*
 * The thread acts on cpu at ns: it runs (from ns, if it was not known
 * to). Returns when its act is drawn: ns, or its running slice's start
 * when it was stamped before the switch that began it.
 */
static uint64_t tr_acting(tr_t *t, tr_thread_t *th, uint32_t cpu, uint64_t ns, uint64_t origin)
{
	if (th->state != TR_RUNNING) {
		tr_run(t, th, cpu, ns, 0);
		if (cpu < TR_CPUS && !t->cpus[cpu].on)
			tr_cpu_run(t, cpu, th->task, th->thread, 0, th->since);
	}
	tr_note_origin(t, th, origin);
	ns = ns > th->since ? ns : th->since;
	th->last = ns > th->last ? ns : th->last;
	return ns;
}

/* ---------------------------------------------------------------- records */

/* SWITCH: the CPU goes from thread (state arg, why) to thread2. */
static void tr_switch(tr_t *t, const prof_rec_trace_t *r, uint64_t ns)
{
	tr_thread_t *from, *to;

	tr_thread(t, r->task2, r->thread2);     /* made first: making from may move it */
	from = tr_thread(t, r->task, r->thread);
	to = tr_thread(t, r->task2, r->thread2);
	tr_cpu_run(t, r->h.cpu, r->task2, r->thread2, r->origin2, ns);
	if (from && r->arg == PROF_TS_EXITED) {
		tr_state(t, from, TR_UNKNOWN, ns);
		from->nopen = 0;
	} else if (from) {
		tr_state(t, from, r->arg == PROF_TS_WAITING ? TR_WAITING : TR_RUNNABLE, ns);
		from->why = r->why;
	}
	if (to)
		tr_run(t, to, r->h.cpu, ns, r->origin2);
}

/* WAKEUP: a waiting (or not yet seen) thread becomes runnable. */
static void tr_wakeup(tr_t *t, const prof_rec_trace_t *r, uint64_t ns)
{
	tr_thread_t *th = tr_thread(t, r->task, r->thread);

	if (th && (th->state == TR_WAITING || th->state == TR_UNKNOWN))
		tr_state(t, th, TR_RUNNABLE, ns);
}

/* ENTER: an IRQ or SYSCALL slice opens on the running thread. */
static void tr_enter(tr_thread_t *th, const prof_rec_trace_t *r, uint64_t ns)
{
	if (th->nopen < TR_NEST)
		th->open[th->nopen++] = (tr_open_t){ r->kind, r->arg, ns };
}

/* EXIT: the innermost open slice of its kind ends (and any inside it). */
static void tr_exit(tr_t *t, tr_thread_t *th, const prof_rec_trace_t *r, uint64_t ns)
{
	uint16_t kind = (uint16_t)(r->kind - 1);
	unsigned i = th->nopen;

	while (i > 0 && th->open[i - 1].kind != kind)
		i--;
	if (i == 0) {                   /* entered before the stream: from its running slice's start */
		tr_open_t op = { kind, r->arg, th->since };
		tr_open_piece(t, th, &op, ns);
		return;
	}
	for (unsigned j = th->nopen; j-- > i - 1;)
		tr_open_piece(t, th, &th->open[j], ns);
	th->nopen = (uint8_t)(i - 1);
}

/* A flow event of call r->call on the acting thread (only calls with both ends). */
static void tr_flow(tr_t *t, const prof_rec_trace_t *r, uint64_t ns, const char *ph)
{
	const prof_rec_trace_t *c = (const void *)(uintptr_t)tr_get(t, &t->calls, r->call);
	char label[64], name[72];

	if (tr_get(t, &t->flows, r->call) != (TR_FL_CALL | TR_FL_ANSWERED) || !c)
		return;
	prof_ipc_label(c->task2 ? tr_task_name(t, c->task2) : "?", c->method, label, sizeof(label));
	fmt_snprintf(name, sizeof(name), "ipc %s", label);
	tr_begin(t, ph, r->task, r->thread, ns);
	px_buf_printf(t->x, &t->ev, ",\"cat\":\"ipc\",\"id\":%llu%s,\"name\":",
		      (unsigned long long)r->call, *ph == 'f' ? ",\"bp\":\"e\"" : "");
	px_json_str(t->x, &t->ev, name);
	px_buf_str(t->x, &t->ev, "}");
}

/* HANGUP: an instant on the thread's track. */
static void tr_hangup(tr_t *t, const prof_rec_trace_t *r, uint64_t ns)
{
	tr_begin(t, "i", r->task, r->thread, ns);
	px_buf_str(t->x, &t->ev, ",\"s\":\"t\",\"cat\":\"ipc\"");
	px_buf_printf(t->x, &t->args, "\"task2\":%llu", (unsigned long long)r->task2);
	tr_end(t, "hangup");
}

/* The record of a thread's own act: it runs; then its slice, flow or instant. */
static void tr_act(tr_t *t, const prof_rec_trace_t *r, uint64_t ns)
{
	static const char *const ph[PROF_TR_COUNT] = {
		[PROF_TR_CALL] = "s", [PROF_TR_RECEIVE] = "t", [PROF_TR_FORWARD] = "t",
		[PROF_TR_ANSWER] = "t", [PROF_TR_ANSWERED] = "f",
	};
	tr_thread_t *th = tr_thread(t, r->task, r->thread);

	if (!th)
		return;
	ns = tr_acting(t, th, r->h.cpu, ns, r->origin);
	if (r->kind == PROF_TR_IRQ_ENTER || r->kind == PROF_TR_SYSCALL_ENTER)
		tr_enter(th, r, ns);
	else if (r->kind == PROF_TR_IRQ_EXIT || r->kind == PROF_TR_SYSCALL_EXIT)
		tr_exit(t, th, r, ns);
	else if (r->kind == PROF_TR_HANGUP)
		tr_hangup(t, r, ns);
	else if (r->kind < PROF_TR_COUNT && ph[r->kind])
		tr_flow(t, r, ns, ph[r->kind]);
}

static void tr_trace(tr_t *t, const prof_rec_trace_t *r)
{
	uint64_t ns = tr_ns(t, r->h.tsc);

	if (r->kind == PROF_TR_SWITCH)
		tr_switch(t, r, ns);
	else if (r->kind == PROF_TR_WAKEUP)
		tr_wakeup(t, r, ns);
	else
		tr_act(t, r, ns);
}

/* ---------------------------------------------------------------- samples */

/* Note each frame of the model under (its task, or the kernel, and its address). */
static void tr_funcs(tr_t *t)
{
	px_t *x = t->x;

	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		const px_stack_t *s = &x->stacks[i];
		for (uint32_t j = 0; j < s->n; j++) {
			const px_frame_t *f = &x->frames[s->first + j];
			uint64_t key[2] = { x->funcs[f->func].kernel ? UINT64_MAX : x->tasks[s->task].id,
					    f->addr };
			uint64_t *v = tr_val(t, &t->funcs, key, sizeof(key));
			if (v && !*v)
				*v = f->func + 1u;
		}
	}
}

/* A frame's name as the model has it (" [k]" after a kernel one), else its hex. */
static void tr_frame(tr_t *t, px_buf_t *b, bool kernel, uint64_t task, uint64_t addr)
{
	uint64_t key[2] = { kernel ? UINT64_MAX : task, addr };
	uint64_t *v = tr_val(t, &t->funcs, key, sizeof(key));
	const px_func_t *f = v && *v ? &t->x->funcs[*v - 1] : NULL;

	t->x->line.len = 0;
	if (f && f->name)
		px_buf_printf(t->x, &t->x->line, "%s%s", f->name, f->kernel ? " [k]" : "");
	else
		px_buf_printf(t->x, &t->x->line, "0x%llx", (unsigned long long)addr);
	px_buf_put(t->x, &t->x->line, "", 1);
	px_json_str(t->x, b, t->x->line.err ? "?" : (const char *)t->x->line.p);
}

/* A sample as an instant on its thread's track: its leaf the name, the stack in args. */
static void tr_sample(tr_t *t, const unsigned char *rec)
{
	prof_rec_sample_t s;
	uint64_t a;

	memcpy(&s, rec, sizeof(s));
	if (s.mode == PROF_MODE_IDLE || !tr_thread(t, s.task, s.thread))
		return;
	tr_begin(t, "i", s.task, s.thread, tr_ns(t, s.h.tsc));
	px_buf_str(t->x, &t->ev, ",\"s\":\"t\",\"cat\":\"sample\",\"name\":");
	tr_frame(t, &t->ev, s.mode != PROF_MODE_USER, s.task, s.pc);
	px_buf_printf(t->x, &t->ev, ",\"args\":{\"cpu\":%u,\"stack\":[", s.h.cpu);
	tr_frame(t, &t->ev, s.mode != PROF_MODE_USER, s.task, s.pc);
	for (uint16_t i = 0; i < s.nchain; i++) {
		memcpy(&a, rec + sizeof(s) + 8 * (size_t)i, 8);
		px_buf_str(t->x, &t->ev, ",");
		tr_frame(t, &t->ev, i < s.nkernel, s.task, a ? a - 1 : 0);
	}
	px_buf_str(t->x, &t->ev, "]}}");
	t->samples++;
}

/* ---------------------------------------------------------------- passes */

/* Pass 1, a trace record: its CPU, its tasks, its call's ends. */
static void tr_scan_trace(tr_t *t, const prof_rec_trace_t *r)
{
	uint64_t *bits = r->call ? tr_val(t, &t->flows, &r->call, 8) : NULL;

	if (r->h.cpu < TR_CPUS && r->h.cpu >= t->ncpus)
		t->ncpus = r->h.cpu + 1;
	if (r->task > t->max_task || r->task2 > t->max_task)
		t->max_task = r->task > r->task2 ? r->task : r->task2;
	if (bits && r->kind == PROF_TR_CALL) {
		*bits |= TR_FL_CALL;
		tr_set(t, &t->calls, r->call, (uint64_t)(uintptr_t)r);
	} else if (bits && r->kind == PROF_TR_ANSWERED) {
		*bits |= TR_FL_ANSWERED;
	}
}

/* Pass 1: list a TRACE or SAMPLE record to draw. */
static void tr_list(tr_t *t, const prof_rec_t *h)
{
	if (!px_reserve(t->x, (void **)&t->recs, &t->cap_recs, t->nrecs, sizeof(tr_rec_t)))
		return;
	t->recs[t->nrecs] = (tr_rec_t){ h->tsc, t->nrecs, h };
	t->nrecs++;
}

/* prof_record_fn_t, pass 1: the header, names, programs, CPUs, flows, the records to draw. */
static errno_t tr_scan(void *ctx, const void *rec, size_t len)
{
	tr_t *t = ctx;
	const prof_rec_t *h = rec;
	const prof_rec_task_t *k = rec;

	px_names_note(t->x, &t->names, rec, len);
	if (h->type == PROF_REC_HEADER && !t->have_h) {
		memcpy(&t->h, rec, len < sizeof(t->h) ? len : sizeof(t->h));
		t->have_h = true;
		t->base = t->h.h.tsc < t->base ? t->h.h.tsc : t->base;
	} else if (h->type == PROF_REC_TASK) {
		t->max_task = k->task > t->max_task ? k->task : t->max_task;
	} else if (h->type == PROF_REC_TRACE) {
		tr_scan_trace(t, rec);
	}
	if (h->type == PROF_REC_TRACE || h->type == PROF_REC_SAMPLE) {
		tr_list(t, rec);
		t->base = h->tsc < t->base ? h->tsc : t->base;
	}
	if (h->type == PROF_REC_SAMPLE) {
		uint64_t task = ((const prof_rec_sample_t *)rec)->task;
		t->max_task = task > t->max_task ? task : t->max_task;
	}
	if (h->type != PROF_REC_HEADER && h->tsc > t->last)
		t->last = h->tsc;
	return t->x->err;
}

/* Order of the records drawn: key, then place in the stream. */
static int tr_rec_cmp(const void *a, const void *b, void *ctx)
{
	const tr_rec_t *p = a, *q = b;

	(void)ctx;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Pass 2: the timeline, record by record in time order. */
static void tr_draw(tr_t *t)
{
	prof_sort(t->recs, t->nrecs, sizeof(tr_rec_t), tr_rec_cmp, NULL);
	for (size_t i = 0; i < t->nrecs && !t->x->err; i++) {
		const prof_rec_t *h = t->recs[i].rec;
		if (h->type == PROF_REC_TRACE)
			tr_trace(t, t->recs[i].rec);
		else
			tr_sample(t, t->recs[i].rec);
	}
}

/* The slices still open at the end of the stream end there. */
static void tr_close(tr_t *t)
{
	for (size_t i = 0; i < t->nth; i++)
		tr_state_end(t, &t->th[i], t->last);
	for (uint32_t c = 0; c < t->ncpus; c++)
		tr_cpu_end(t, c, t->last);
}

/* The calls with both ends (flows) and those left out. */
static void tr_count_flows(tr_t *t)
{
	for (size_t i = 0; i < t->flows.cap; i++) {
		const px_entry_t *e = px_map_at(&t->flows, i);
		if (e && e->val == (TR_FL_CALL | TR_FL_ANSWERED))
			t->nflows++;
		else if (e)
			t->left_out++;
	}
}

/* Order of events: time, the longer first (a slice before those inside it), then as made. */
static int tr_ev_cmp(const void *a, const void *b, void *ctx)
{
	const tr_ev_t *p = a, *q = b;

	(void)ctx;
	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	if (p->dur != q->dur)
		return p->dur > q->dur ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* The events in order into the output (each one's text ends where the next one made starts). */
static void tr_events_out(tr_t *t)
{
	size_t *end = px_alloc(t->x, t->nevs * sizeof(size_t));

	if (!end)
		return;
	for (size_t i = 0; i < t->nevs; i++)
		end[i] = i + 1 < t->nevs ? t->evs[i + 1].off : t->ev.len;
	prof_sort(t->evs, t->nevs, sizeof(tr_ev_t), tr_ev_cmp, NULL);
	for (size_t i = 0; i < t->nevs && !t->x->err; i++) {
		const tr_ev_t *e = &t->evs[i];
		px_buf_str(t->x, &t->o, i ? ",\n" : "\n");
		px_buf_put(t->x, &t->o, t->ev.p + e->off, end[e->seq] - e->off);
		px_buf_maybe_flush(t->x, &t->o);
	}
	px_release(t->x, end);
}

/* The end of the file: the metadata object (c: the report's counts). */
static void tr_tail(tr_t *t, const prof_counts_t *c)
{
	px_buf_str(t->x, &t->o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"exporter\":\"vprof\","
		   "\"stream\":");
	px_json_str(t->x, &t->o, t->x->o->title ? t->x->o->title : "stream");
	px_buf_printf(t->x, &t->o, ",\"tsc_hz\":%llu,\"trace_events\":%llu,\"unknown_kinds\":%llu,"
		      "\"flows\":%llu,\"flows_left_out\":%llu,\"slices\":%llu,\"samples\":%llu}}\n",
		      (unsigned long long)t->h.tsc_hz, (unsigned long long)c->trace,
		      (unsigned long long)c->trace_unknown, (unsigned long long)t->nflows,
		      (unsigned long long)t->left_out, (unsigned long long)t->slices,
		      (unsigned long long)t->samples);
}

static void tr_free(tr_t *t)
{
	px_names_free(t->x, &t->names);
	px_map_free(t->x, &t->flows);
	px_map_free(t->x, &t->calls);
	px_map_free(t->x, &t->threads);
	px_map_free(t->x, &t->named);
	px_map_free(t->x, &t->funcs);
	px_release(t->x, t->th);
	px_release(t->x, t->cpus);
	px_release(t->x, t->evs);
	px_release(t->x, t->recs);
	px_buf_free(t->x, &t->o);
	px_buf_free(t->x, &t->ev);
	px_buf_free(t->x, &t->args);
}

/* After pass 1: the CPUs' pid and tracks, the end time, the model's functions, the flows. */
static void tr_prepare(tr_t *t, const prof_counts_t *c)
{
	t->cpu_pid = t->max_task >= TR_CPU_PID ? t->max_task + 1 : TR_CPU_PID;
	if (t->h.ncpus > t->ncpus)
		t->ncpus = t->h.ncpus < TR_CPUS ? t->h.ncpus : TR_CPUS;
	t->last = tr_ns(t, c->tsc_last > t->last ? c->tsc_last : t->last);
	tr_funcs(t);
	tr_count_flows(t);
}

/* The timeline after pass 1: CPUs' names, the records, what stays open, the tail. */
static errno_t tr_write(tr_t *t)
{
	prof_counts_t c;

	prof_report_counts(t->x->r, &c);
	tr_prepare(t, &c);
	tr_cpu_meta(t);
	tr_draw(t);
	tr_close(t);
	if (t->x->err)
		return t->x->err;
	px_buf_str(t->x, &t->o, "{\"traceEvents\":[");
	tr_events_out(t);
	tr_tail(t, &c);
	px_buf_flush(t->x, &t->o);
	return EOK;
}

/* Write the trace-event JSON timeline of the report's kept records to x->out. */
void px_trace(px_t *x)
{
	tr_t t;

	memset(&t, 0, sizeof(t));
	t.x = x;
	t.base = UINT64_MAX;
	t.cpus = px_alloc(x, TR_CPUS * sizeof(tr_cpu_t));
	if (t.cpus)
		memset(t.cpus, 0, TR_CPUS * sizeof(tr_cpu_t));
	errno_t err = t.cpus ? prof_report_records(x->r, tr_scan, &t) : ENOMEM;
	if (err == EOK && t.have_h)
		err = tr_write(&t);
	if (err != EOK && !x->err)
		x->err = err;
	tr_free(&t);
}
