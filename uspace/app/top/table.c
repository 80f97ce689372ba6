/*
 * top: the views (their columns) and their rows between two snapshots,
 * and sorting them. Pure (no system calls): also built on the host.
 */
#define _GNU_SOURCE             /* qsort_r on the host's libc */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "top.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const top_col_t task_cols[] = {
	{ "ID", 5, TOP_K_INT, false },
	{ "THR", 4, TOP_K_INT, true },
	{ "%CPU", 6, TOP_K_PERMILLE, true },
	{ "IMP%", 6, TOP_K_PERMILLE, true },    /* others serving its calls */
	{ "TOTAL%", 7, TOP_K_PERMILLE, true },  /* %CPU + IMP% */
	{ "USER", 9, TOP_K_MS, true },
	{ "KERNEL", 9, TOP_K_MS, true },
	{ "RES", 7, TOP_K_BYTES, true },
	{ "VIRT", 7, TOP_K_BYTES, true },
	{ "NAME", 0, TOP_K_TEXT, false },
};

static const top_col_t ipc_cols[] = {
	{ "ID", 5, TOP_K_INT, false },
	{ "CALLS>", 7, TOP_K_COUNT, true },
	{ "/s", 5, TOP_K_COUNT, true },
	{ "CALLS<", 7, TOP_K_COUNT, true },
	{ "/s", 5, TOP_K_COUNT, true },
	{ "ANSW>", 7, TOP_K_COUNT, true },
	{ "ANSW<", 7, TOP_K_COUNT, true },
	{ "IRQ", 6, TOP_K_COUNT, true },
	{ "/s", 5, TOP_K_COUNT, true },
	{ "FWD", 5, TOP_K_COUNT, true },
	{ "NAME", 0, TOP_K_TEXT, false },
};

static const top_col_t vec_cols[] = {
	{ "VEC", 4, TOP_K_INT, false },
	{ "COUNT", 8, TOP_K_COUNT, true },
	{ "DELTA", 7, TOP_K_COUNT, true },
	{ "CYCLES", 8, TOP_K_COUNT, true },
	{ "%CPU", 6, TOP_K_PERMILLE, true },
	{ "DESCRIPTION", 0, TOP_K_TEXT, false },
};

static const top_col_t cpu_cols[] = {
	{ "CPU", 4, TOP_K_INT, false },
	{ "ON", 3, TOP_K_INT, true },
	{ "MHZ", 6, TOP_K_INT, true },
	{ "%BUSY", 6, TOP_K_PERMILLE, true },
	{ "%IDLE", 6, TOP_K_PERMILLE, true },
	{ "%IRQ", 6, TOP_K_PERMILLE, true },
	{ "BUSY", 10, TOP_K_MS, true },
	{ "IDLE", 10, TOP_K_MS, true },
	{ "IRQ", 9, TOP_K_MS, true },
	{ "CSW/s", 7, TOP_K_COUNT, true },
	{ "INT/s", 7, TOP_K_COUNT, true },
};

static const top_col_t thread_cols[] = {
	{ "TID", 5, TOP_K_INT, false },
	{ "TASK", 5, TOP_K_INT, false },
	{ "S", 2, TOP_K_STATE, false },
	{ "PRI", 4, TOP_K_INT, true },
	{ "CPU", 4, TOP_K_INT, false },
	{ "%CPU", 6, TOP_K_PERMILLE, true },
	{ "%RDY", 6, TOP_K_PERMILLE, true },
	{ "%SLP", 6, TOP_K_PERMILLE, true },
	{ "%IPC", 6, TOP_K_PERMILLE, true },
	{ "%OTH", 6, TOP_K_PERMILLE, true },
	{ "USER", 9, TOP_K_MS, true },
	{ "KERNEL", 9, TOP_K_MS, true },
	{ "CSW", 7, TOP_K_COUNT, true },
	{ "WAIT", 18, TOP_K_WAIT, false },
	{ "NAME", 0, TOP_K_TEXT, false },
};

static const top_viewdef_t views[TOP_VIEW_COUNT] = {
	[TOP_VIEW_TASKS] = { "tasks", 't', task_cols, ARRAY_SIZE(task_cols), 2 },
	[TOP_VIEW_IPC] = { "IPC", 'i', ipc_cols, ARRAY_SIZE(ipc_cols), 1 },
	[TOP_VIEW_VECTORS] = { "interrupts and exceptions", 'e', vec_cols,
			       ARRAY_SIZE(vec_cols), 0 },
	[TOP_VIEW_CPUS] = { "CPUs", 'c', cpu_cols, ARRAY_SIZE(cpu_cols), 0 },
	[TOP_VIEW_THREADS] = { "threads", 'T', thread_cols,
			       ARRAY_SIZE(thread_cols), 5 },
};

const top_viewdef_t *top_view(top_view_t v)
{
	return &views[v < TOP_VIEW_COUNT ? v : TOP_VIEW_TASKS];
}

/* Room for n rows in t (they are then filled from row 0). */
static errno_t table_reserve(top_table_t *t, size_t n)
{
	t->nrows = 0;
	if (n <= t->cap)
		return EOK;
	top_row_t *rows = realloc(t->rows, n * sizeof(*rows));
	if (!rows)
		return ENOMEM;
	t->rows = rows;
	t->cap = n;
	return EOK;
}

/* The next row of t, zeroed, with text copied from name. */
static top_row_t *table_add(top_table_t *t, const char *name)
{
	top_row_t *r = &t->rows[t->nrows++];

	memset(r, 0, sizeof(*r));
	if (name) {
		memcpy(r->text, name, sizeof(r->text));
		r->text[sizeof(r->text) - 1] = '\0';
	}
	return r;
}

/* The same task in p->prev, or an all-zero one (new in the interval). */
static const sysinfo_task_t *prev_task(const top_pair_t *p, uint64_t id)
{
	static const sysinfo_task_t zero;
	const sysinfo_task_t *o = top_find_task(p->prev, id);

	return o ? o : &zero;
}

static void rows_tasks(top_table_t *t, const top_pair_t *p)
{
	const top_snap_t *s = p->cur;

	for (size_t i = 0; i < s->ntasks; i++) {
		const sysinfo_task_t *k = &top_tasks(s)[i];
		const sysinfo_task_t *o = prev_task(p, k->id);
		uint64_t d = top_delta(k->user_cycles, o->user_cycles) +
			top_delta(k->kernel_cycles, o->kernel_cycles);
		uint64_t imp = top_delta(k->imposed_cycles, o->imposed_cycles);
		top_row_t *r = table_add(t, k->name);
		r->v[0] = k->id;
		r->v[1] = k->threads;
		r->v[2] = top_permille(d, p->elapsed);
		r->v[3] = top_permille(imp, p->elapsed);
		r->v[4] = top_permille(d + imp, p->elapsed);
		r->v[5] = top_ms(k->user_cycles, s->tsc_hz);
		r->v[6] = top_ms(k->kernel_cycles, s->tsc_hz);
		r->v[7] = k->resident_bytes;
		r->v[8] = k->virt_bytes;
	}
}

static void rows_ipc(top_table_t *t, const top_pair_t *p)
{
	const top_snap_t *s = p->cur;

	for (size_t i = 0; i < s->ntasks; i++) {
		const sysinfo_ipc_counts_t *c = &top_tasks(s)[i].ipc;
		const sysinfo_ipc_counts_t *o = &prev_task(p, top_tasks(s)[i].id)->ipc;
		top_row_t *r = table_add(t, top_tasks(s)[i].name);
		r->v[0] = top_tasks(s)[i].id;
		r->v[1] = c->calls_sent;
		r->v[2] = top_rate(p, top_delta(c->calls_sent, o->calls_sent));
		r->v[3] = c->calls_received;
		r->v[4] = top_rate(p, top_delta(c->calls_received, o->calls_received));
		r->v[5] = c->answers_sent;
		r->v[6] = c->answers_received;
		r->v[7] = c->irq_notifications;
		r->v[8] = top_rate(p, top_delta(c->irq_notifications,
						o->irq_notifications));
		r->v[9] = c->forwarded;
	}
}

static void rows_vectors(top_table_t *t, const top_pair_t *p)
{
	static const sysinfo_vector_t zero;
	const top_snap_t *s = p->cur;

	for (size_t i = 0; i < s->nvecs; i++) {
		const sysinfo_vector_t *x = &top_vecs(s)[i];
		const sysinfo_vector_t *o = top_find_vec(p->prev, x->vector);
		if (!o)
			o = &zero;
		top_row_t *r = table_add(t, x->desc);
		r->v[0] = x->vector;
		r->v[1] = x->count;
		r->v[2] = top_delta(x->count, o->count);
		r->v[3] = x->cycles;
		r->v[4] = top_permille(top_delta(x->cycles, o->cycles), p->elapsed);
	}
}

static void rows_cpus(top_table_t *t, const top_pair_t *p)
{
	static const sysinfo_cpu_t zero;
	const top_snap_t *s = p->cur;
	top_cpu_share_t sh;

	for (size_t i = 0; i < s->ncpus; i++) {
		const sysinfo_cpu_t *c = &top_cpus(s)[i];
		const sysinfo_cpu_t *o = top_find_cpu(p->prev, c->id);
		if (!o)
			o = &zero;
		top_cpu_shares(p, i, &sh);
		top_row_t *r = table_add(t, NULL);
		r->v[0] = c->id;
		r->v[1] = c->active;
		r->v[2] = c->mhz;
		r->v[3] = sh.busy;
		r->v[4] = sh.idle;
		r->v[5] = sh.irq;
		r->v[6] = top_ms(c->busy_cycles, s->tsc_hz);
		r->v[7] = top_ms(c->idle_cycles, s->tsc_hz);
		r->v[8] = top_ms(c->irq_cycles, s->tsc_hz);
		r->v[9] = top_rate(p, top_delta(c->switches, o->switches));
		r->v[10] = top_rate(p, top_delta(c->interrupts, o->interrupts));
	}
}

/* The off-CPU cycles of h since o by reason why (abi/wait.h). */
static uint64_t off_delta(const sysinfo_thread_t *h, const sysinfo_thread_t *o, unsigned why)
{
	return top_delta(h->off_cycles[why], o->off_cycles[why]);
}

/* What h waits for into r->wait: "-" running, "sleep", "ipc fs.READ". */
static void thread_wait(top_row_t *r, const top_snap_t *s, const sysinfo_thread_t *h)
{
	const sysinfo_task_t *callee = h->wait_task ? top_find_task(s, h->wait_task) : NULL;

	stats_fmt_wait(r->wait, sizeof(r->wait), h, callee ? callee->name : NULL);
}

/* The shares of p's interval h spent off its CPU, by reason, into r->v[6..9]. */
static void thread_off_shares(top_row_t *r, const top_pair_t *p, const sysinfo_thread_t *h,
			      const sysinfo_thread_t *o)
{
	uint64_t other = off_delta(h, o, WAIT_WHY_RECV) + off_delta(h, o, WAIT_WHY_JOIN) +
			 off_delta(h, o, WAIT_WHY_CHILD) + off_delta(h, o, WAIT_WHY_WAIT);

	r->v[6] = top_permille(off_delta(h, o, WAIT_WHY_RUNNABLE), p->elapsed);
	r->v[7] = top_permille(off_delta(h, o, WAIT_WHY_SLEEP), p->elapsed);
	r->v[8] = top_permille(off_delta(h, o, WAIT_WHY_IPC), p->elapsed);
	r->v[9] = top_permille(other, p->elapsed);
}

/* Threads of task (0: every thread). */
static void rows_threads(top_table_t *t, const top_pair_t *p, uint64_t task)
{
	static const sysinfo_thread_t zero;
	const top_snap_t *s = p->cur;

	for (size_t i = 0; i < s->nthreads; i++) {
		const sysinfo_thread_t *h = &top_threads(s)[i];
		if (task && h->task != task)
			continue;
		const sysinfo_thread_t *o = top_find_thread(p->prev, h->id);
		if (!o)
			o = &zero;
		uint64_t d = top_delta(h->user_cycles, o->user_cycles) +
			top_delta(h->kernel_cycles, o->kernel_cycles);
		top_row_t *r = table_add(t, h->name);
		r->v[0] = h->id;
		r->v[1] = h->task;
		r->v[2] = h->state;
		r->v[3] = h->priority;
		r->v[4] = h->cpu;
		r->v[5] = top_permille(d, p->elapsed);
		thread_off_shares(r, p, h, o);
		r->v[10] = top_ms(h->user_cycles, s->tsc_hz);
		r->v[11] = top_ms(h->kernel_cycles, s->tsc_hz);
		r->v[12] = h->switches;
		r->v[13] = h->wait_why;
		thread_wait(r, s, h);
	}
}

/* How many rows view v can have over p. */
static size_t rows_max(const top_pair_t *p, top_view_t v)
{
	switch (v) {
	case TOP_VIEW_VECTORS: return p->cur->nvecs;
	case TOP_VIEW_CPUS: return p->cur->ncpus;
	case TOP_VIEW_THREADS: return p->cur->nthreads;
	default: return p->cur->ntasks;
	}
}

errno_t top_table_build(top_table_t *t, const top_pair_t *p, top_view_t v,
			uint64_t task)
{
	t->def = top_view(v);
	if (table_reserve(t, rows_max(p, v)) != EOK)
		return ENOMEM;
	switch (v) {
	case TOP_VIEW_IPC: rows_ipc(t, p); break;
	case TOP_VIEW_VECTORS: rows_vectors(t, p); break;
	case TOP_VIEW_CPUS: rows_cpus(t, p); break;
	case TOP_VIEW_THREADS: rows_threads(t, p, task); break;
	default: rows_tasks(t, p); break;
	}
	return EOK;
}

int top_row_cmp(const top_viewdef_t *def, unsigned col, bool reverse,
		const top_row_t *a, const top_row_t *b)
{
	const top_col_t *c = &def->cols[col < def->ncols ? col : 0];
	int r;

	if (c->kind == TOP_K_TEXT)
		r = strcmp(a->text, b->text);
	else
		r = a->v[col] < b->v[col] ? -1 : a->v[col] > b->v[col];
	if (c->desc != reverse)
		r = -r;
	if (r == 0)
		r = a->v[0] < b->v[0] ? -1 : a->v[0] > b->v[0];
	return r;
}

typedef struct sort_ctx {
	const top_viewdef_t *def;
	unsigned col;
	bool reverse;
} sort_ctx_t;

static int row_cmp_ctx(const void *a, const void *b, void *arg)
{
	const sort_ctx_t *c = arg;

	return top_row_cmp(c->def, c->col, c->reverse, a, b);
}

void top_table_sort(top_table_t *t, unsigned col, bool reverse)
{
	sort_ctx_t c = { t->def, col < t->def->ncols ? col : 0, reverse };

	if (t->nrows > 1)
		qsort_r(t->rows, t->nrows, sizeof(t->rows[0]), row_cmp_ctx, &c);
}

void top_table_free(top_table_t *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}
