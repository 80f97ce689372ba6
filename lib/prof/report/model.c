/*
 * The profiler report's model (lib/profreport.h): its memory, the
 * sample sources' names, the tasks and binaries a stream names, and the
 * report's life (new, setup, counts, free).
 */
#include "rep.h"

/* ---------------------------------------------------------------- memory */

/* A NUL-terminated copy of len bytes of s; NULL without memory. */
char *rep_strdup(prof_report_t *r, const char *s, size_t len)
{
	char *d = prof_alloc(&r->env, len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* ---------------------------------------------------------------- sources */

/* The sources of streams up to v5 (v6 headers name their own). */
static const char *const prof_source_names[PROF_SRC_TIMER + 1] = {
	[PROF_SRC_DEFAULT] = "default",
	[PROF_SRC_PMC] = "pmc",
	[PROF_SRC_RTC] = "rtc",
	[PROF_SRC_RTC_NMI] = "rtc-nmi",
	[PROF_SRC_TIMER] = "timer",
};

const char *prof_source_name(unsigned source)
{
	if (source == PROF_SRC_TICK)
		return PROF_SRC_TICK_NAME;
	if (source > PROF_SRC_TIMER)
		return "?";
	return prof_source_names[source];
}

int prof_source_parse(const char *name)
{
	for (int i = 0; i <= PROF_SRC_TIMER; i++) {
		if (strcmp(name, prof_source_names[i]) == 0)
			return i;
	}
	return -1;
}

void prof_source_name_copy(char *dst, const prof_rec_header_t *h)
{
	if (h->version >= 6 && h->source_name[0]) {
		memcpy(dst, h->source_name, PROF_SRC_NAME_MAX - 1);
		dst[PROF_SRC_NAME_MAX - 1] = '\0';
		return;
	}
	strlcpy(dst, prof_source_name(h->source), PROF_SRC_NAME_MAX);
}

/* ---------------------------------------------------------------- tasks, binaries */

/* Index of task id, added (nameless) when new; PROF_NONE without memory. */
uint32_t rep_task(prof_report_t *r, uint64_t id)
{
	if (r->last_task < r->ntasks && r->tasks[r->last_task].id == id)
		return (uint32_t)r->last_task;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i].id == id) {
			r->last_task = i;
			return (uint32_t)i;
		}
	}
	if (prof_vec_reserve(&r->env, (void **)&r->tasks, &r->cap_tasks, r->ntasks,
			sizeof(prof_task_t)) != EOK)
		return PROF_NONE;
	prof_task_t *t = &r->tasks[r->ntasks];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->bin = PROF_NONE;
	r->c.tasks++;
	r->last_task = r->ntasks;
	return (uint32_t)r->ntasks++;
}

/* Index of the binary at path (len bytes), added when new; NONE on ENOMEM. */
uint32_t rep_bin(prof_report_t *r, const char *path, size_t len)
{
	for (size_t i = 0; i < r->nbins; i++) {
		if (strlen(r->bins[i].path) == len &&
		    memcmp(r->bins[i].path, path, len) == 0)
			return (uint32_t)i;
	}
	if (prof_vec_reserve(&r->env, (void **)&r->bins, &r->cap_bins, r->nbins,
			sizeof(prof_bin_t)) != EOK)
		return PROF_NONE;
	prof_bin_t *b = &r->bins[r->nbins];
	memset(b, 0, sizeof(*b));
	b->path = rep_strdup(r, path, len);
	if (!b->path)
		return PROF_NONE;
	return (uint32_t)r->nbins++;
}

/*
 * The name of a task slot: its TASK record's, else its program's file
 * name, else "kernel" for task 0, else "?".
 */
const char *rep_task_name(const prof_report_t *r, uint32_t slot)
{
	const prof_task_t *t = &r->tasks[slot];
	const char *name = t->name[0] ? t->name : t->id == 0 ? "kernel" : "?";

	if (!t->name[0] && t->bin != PROF_NONE) {
		name = r->bins[t->bin].path;
		for (const char *p = name; *p; p++)
			if (*p == '/' && p[1])
				name = p + 1;
	}
	return name;
}

/* ---------------------------------------------------------------- life */

errno_t prof_report_new(const prof_env_t *env, prof_report_t **out)
{
	prof_report_t *r = env->alloc(env->ctx, sizeof(*r));

	if (!r)
		return ENOMEM;
	memset(r, 0, sizeof(*r));
	r->env = *env;
	prof_map_init(&r->stacks, sizeof(prof_stack_t), sizeof(prof_val_t));
	prof_map_init(&r->served, sizeof(prof_wkey_t), sizeof(prof_val_t));
	*out = r;
	return EOK;
}

/* The counts with the lost and throttled totals. */
void rep_totals(const prof_report_t *r, prof_counts_t *c)
{
	uint64_t skipped = 0;

	for (size_t i = 0; i < PROF_MAX_CPUS; i++)
		skipped += r->cpu_skipped[i];
	*c = r->c;
	c->tsc_last = r->tsc_last;
	c->duration_ns = 0;
	if (r->header.tsc_hz >= 1000 && r->tsc_last > r->header.h.tsc)
		c->duration_ns = (r->tsc_last - r->header.h.tsc) /
				 (r->header.tsc_hz / 1000) * 1000000;
	/* END's lost is the session's total: the LOST records before it are part of it */
	c->lost = r->lost_recs > r->end_lost ? r->lost_recs : r->end_lost;
	c->throttled = skipped > r->end_throttled ? skipped : r->end_throttled;
	c->missed = 0;
	for (size_t i = 0; i < PROF_MAX_CPUS; i++)
		c->missed += r->cpu[i].missed_last - r->cpu[i].missed_first;
}

const char *prof_report_error(const prof_report_t *r)
{
	if (r->error == EOK)
		return NULL;
	return r->why[0] ? r->why : "a malformed stream";
}

size_t prof_report_pending(const prof_report_t *r)
{
	return r->pend_len;
}

void prof_report_counts(const prof_report_t *r, prof_counts_t *c)
{
	rep_totals(r, c);
}

void prof_report_free(prof_report_t *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbins; i++)
		profbin_free(&r->env, &r->bins[i]);
	prof_release(&r->env, r->bins);
	prof_release(&r->env, r->tasks);
	prof_map_free(&r->env, &r->stacks);
	prof_map_free(&r->env, &r->xstacks);
	prof_map_free(&r->env, &r->served);
	prof_map_free(&r->env, &r->calls);
	prof_map_free(&r->env, &r->sites);
	prof_release(&r->env, r->cstk);
	prof_release(&r->env, r->cwords);
	prof_buf_free(&r->log);
	r->env.release(r->env.ctx, r);
}

/* Set the filter and whether whole stacks are kept: before the first record (else EINVAL). */
errno_t prof_report_setup(prof_report_t *r, const prof_filter_t *f, bool stacks)
{
	if (r->c.have_header)
		return EINVAL;
	r->filter = *f;
	if (f->task_name) {
		fmt_snprintf(r->filter_name, sizeof(r->filter_name), "%s", f->task_name);
		r->filter.task_name = r->filter_name;
	}
	r->xon = stacks;
	return EOK;
}

/* Hand whole stacks out by origin (prof_report_walk); origin != 0: only its stacks. */
void prof_report_set_origin(prof_report_t *r, bool by_origin, uint64_t origin)
{
	r->x_by_origin = by_origin;
	r->x_origin = origin;
}

/* Weigh by the wall clock (off-CPU records count). */
void prof_report_set_wall(prof_report_t *r, bool wall)
{
	r->wall = wall;
}

/* Keep the records the filter takes (prof_report_records). */
void prof_report_keep_records(prof_report_t *r, bool keep)
{
	r->keep = keep;
}

/* Append a record (its length first) to the log when records are kept; EOK or ENOMEM. */
errno_t rep_log(prof_report_t *r, const void *rec, size_t len, size_t *at)
{
	uint64_t n = len;

	if (!r->keep)
		return EOK;
	r->log.env = &r->env;
	prof_buf_put(&r->log, &n, sizeof(n));
	if (at)
		*at = r->log.len;
	prof_buf_put(&r->log, rec, len);
	return r->log.err;
}

/* fn for each kept record, in stream order; EINVAL when none were kept. */
errno_t prof_report_records(const prof_report_t *r, prof_record_fn_t fn, void *ctx)
{
	uint64_t n;

	if (!r->keep)
		return EINVAL;
	if (r->log.err)
		return r->log.err;
	for (size_t off = 0; off + sizeof(n) <= r->log.len; off += sizeof(n) + n) {
		memcpy(&n, r->log.p + off, sizeof(n));
		errno_t err = fn(ctx, r->log.p + off + sizeof(n), (size_t)n);
		if (err != EOK)
			return err;
	}
	return EOK;
}
