/*
 * Profile export (lib/profexport.h): the model and the entry. One walk
 * of the report's stacks builds the model: the tasks, the functions
 * (names copied), the binaries and the distinct stacks with their counts
 * and frames (function id and address each, root first). Each format is
 * then written from the model by its own file (px.h lists them). Every
 * array and map grows through env.alloc; nothing recurses.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- memory */

/* env.alloc of size bytes; NULL (x->err ENOMEM) without memory. */
void *px_alloc(px_t *x, size_t size)
{
	void *p = x->env->alloc(x->env->ctx, size ? size : 1);

	if (!p)
		x->err = ENOMEM;
	return p;
}

/* env.release of p (NULL: nothing). */
void px_release(px_t *x, void *p)
{
	if (p)
		x->env->release(x->env->ctx, p);
}

/* Room for n + 1 elements of size in *arr (capacity *cap); false: ENOMEM. */
bool px_reserve(px_t *x, void **arr, size_t *cap, size_t n, size_t size)
{
	if (prof_vec_reserve(x->env, arr, cap, n, size) == EOK)
		return true;
	x->err = ENOMEM;
	return false;
}

/* A copy of len bytes of s (NUL-terminated) in the arena; NULL: ENOMEM. */
static char *px_strndup(px_t *x, const char *s, size_t len)
{
	px_chunk_t *c = x->arena;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > PX_CHUNK ? len + 1 : PX_CHUNK;
		c = px_alloc(x, sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = x->arena;
		c->used = 0;
		c->size = size;
		x->arena = c;
	}
	char *d = c->data + c->used;
	memcpy(d, s, len);
	d[len] = '\0';
	c->used += len + 1;
	return d;
}

static char *px_strdup(px_t *x, const char *s)
{
	return px_strndup(x, s, strlen(s));
}

/* Give back the last px_strndup of len bytes (the arena's newest). */
static void px_unstrndup(px_t *x, size_t len)
{
	x->arena->used -= len + 1;
}

/* ---------------------------------------------------------------- buffers */

/* Keep b's error as x's (sticky both). */
void px_buf_err(px_t *x, const px_buf_t *b)
{
	if (b->err)
		x->err = b->err;
}

/* Append len bytes of data to b; without memory b's and x's err become ENOMEM. */
void px_buf_put(px_t *x, px_buf_t *b, const void *data, size_t len)
{
	b->env = x->env;
	prof_buf_put(b, data, len);
	px_buf_err(x, b);
}

/* Append the string s to b. */
void px_buf_str(px_t *x, px_buf_t *b, const char *s)
{
	px_buf_put(x, b, s, strlen(s));
}

/* Release b's bytes and empty it. */
void px_buf_free(px_t *x, px_buf_t *b)
{
	px_release(x, b->p);
	memset(b, 0, sizeof(*b));
}

/* Append len bytes of s to the buffer of k (a px_sink_t): a fmt_sink_t. */
void px_sink(void *ctx, const char *s, size_t len)
{
	px_sink_t *k = ctx;

	px_buf_put(k->x, k->b, s, len);
}

/* Append printf-style text (lib/fmt.h) to b. */
__attribute__((format(printf, 3, 4)))
void px_buf_printf(px_t *x, px_buf_t *b, const char *fmt, ...)
{
	px_sink_t k = { x, b };
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(px_sink, &k, fmt, ap);
	va_end(ap);
}

/* Write the buffer to the output and empty it. */
void px_buf_flush(px_t *x, px_buf_t *b)
{
	if (b->err)
		x->err = b->err;
	else if (b->len)
		x->out->write(x->out->ctx, b->p, b->len);
	b->len = 0;
}

/* Flush when more than 64 KiB wait (for large text outputs). */
void px_buf_maybe_flush(px_t *x, px_buf_t *b)
{
	if (b->len >= PX_CHUNK)
		px_buf_flush(x, b);
}

/* Append s to b as a JSON string (quotes, escapes). */
void px_json_str(px_t *x, px_buf_t *b, const char *s)
{
	px_buf_str(x, b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			px_buf_printf(x, b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			px_buf_printf(x, b, "\\u%04x", c);
		else
			px_buf_put(x, b, &c, 1);
	}
	px_buf_str(x, b, "\"");
}

/* ---------------------------------------------------------------- hash map */

/*
 * The entry of key (len bytes), added with val 0 when new (its key a copy
 * in the arena); NULL: ENOMEM.
 */
px_entry_t *px_map_get(px_t *x, px_map_t *m, const void *key, size_t len, bool *added)
{
	char *copy = px_strndup(x, key, len);
	prof_str_t k = { copy, len };

	if (!copy)
		return NULL;
	if (!m->esize)
		prof_map_init_str(m, sizeof(uint64_t));
	unsigned char *v = prof_map_get(x->env, m, &k, added);
	if (!v || !*added)
		px_unstrndup(x, len);
	if (!v)
		x->err = ENOMEM;
	return v ? (px_entry_t *)(void *)(v - sizeof(prof_str_t)) : NULL;
}

/* The entry in slot i of m, or NULL when the slot is empty. */
px_entry_t *px_map_at(const px_map_t *m, size_t i)
{
	return prof_map_key(m, i);
}

/* Release m's slots (the keys stay in the arena until px_free). */
void px_map_free(px_t *x, px_map_t *m)
{
	prof_map_free(x->env, m);
}

/* ---------------------------------------------------------------- tasks' names */

/* The 8-byte value of task id in m (0 when absent: then added with 0). */
static uint64_t *px_task_val(px_t *x, px_map_t *m, uint64_t task)
{
	bool added;
	px_entry_t *e = px_map_get(x, m, &task, sizeof(task), &added);

	return e ? &e->val : NULL;
}

/* Note a kept TASK (its name) or LOAD record (the task's program) in n; others: nothing. */
void px_names_note(px_t *x, px_names_t *n, const void *rec, size_t len)
{
	const prof_rec_t *h = rec;
	const prof_rec_task_t *t = rec;
	const prof_rec_load_t *l = rec;
	uint64_t *v = NULL;

	if (h->type == PROF_REC_TASK && len >= sizeof(*t))
		v = px_task_val(x, &n->names, t->task);
	else if (h->type == PROF_REC_LOAD && len > sizeof(*l))
		v = px_task_val(x, &n->progs, l->task);
	if (v)
		*v = (uint64_t)(uintptr_t)rec;
}

/* The last LOAD record noted for task, or NULL. */
const prof_rec_load_t *px_names_prog(px_t *x, px_names_t *n, uint64_t task)
{
	uint64_t *v = px_task_val(x, &n->progs, task);

	return v ? (const prof_rec_load_t *)(uintptr_t)*v : NULL;
}

/*
 * Task's name as the report gives it, into buf (size bytes): its TASK
 * record's, else its program's file name, else "kernel" for 0, else "?".
 */
const char *px_names_get(px_t *x, px_names_t *n, uint64_t task, char *buf, size_t size)
{
	uint64_t *v = px_task_val(x, &n->names, task);
	const prof_rec_task_t *t = v ? (const prof_rec_task_t *)(uintptr_t)*v : NULL;
	const prof_rec_load_t *l = px_names_prog(x, n, task);

	if (t && t->name[0]) {
		fmt_snprintf(buf, size, "%.*s", (int)sizeof(t->name) - 1, t->name);
		return buf;
	}
	if (!l)
		return task == 0 ? "kernel" : "?";
	const char *s = l->path;
	for (const char *q = l->path; *q; q++)
		if (*q == '/' && q[1])
			s = q + 1;
	fmt_snprintf(buf, size, "%s", s);
	return buf;
}

/* Release n's maps. */
void px_names_free(px_t *x, px_names_t *n)
{
	px_map_free(x, &n->names);
	px_map_free(x, &n->progs);
}

/* ---------------------------------------------------------------- model */

/* Index of task (id, name), added when new; PX_NONE on ENOMEM. */
static uint32_t px_task(px_t *x, uint64_t id, const char *name)
{
	for (size_t i = x->ntasks; i-- > 0;) {
		if (x->tasks[i].id == id && strcmp(x->tasks[i].name, name) == 0)
			return (uint32_t)i;
	}
	const char *copy = px_strdup(x, name);
	if (!copy || !px_reserve(x, (void **)&x->tasks, &x->cap_tasks, x->ntasks,
				 sizeof(px_task_t)))
		return PX_NONE;
	bool shared = false;
	for (size_t i = 0; i < x->ntasks; i++) {
		if (strcmp(x->tasks[i].name, name) == 0)
			x->tasks[i].shared = shared = true;
	}
	x->tasks[x->ntasks] = (px_task_t){ id, copy, shared };
	return (uint32_t)x->ntasks++;
}

/* Tables by id, made at the first stack of the walk. */
static errno_t px_tables(px_t *x, const prof_walk_info_t *info)
{
	x->c = info->c;
	x->total = info->total;
	x->nfuncs = info->nfuncs;
	x->nbins = info->nbins;
	x->funcs = px_alloc(x, x->nfuncs * sizeof(px_func_t));
	x->bins = px_alloc(x, x->nbins * sizeof(char *));
	if (!x->funcs || !x->bins)
		return ENOMEM;
	memset(x->funcs, 0, x->nfuncs * sizeof(px_func_t));
	memset(x->bins, 0, x->nbins * sizeof(char *));
	return EOK;
}

/* Note what a frame says of its function and binary. */
static errno_t px_note(px_t *x, const prof_frame_t *f)
{
	px_func_t *fn = &x->funcs[f->func];

	if (f->bin != PROF_BIN_NONE && !x->bins[f->bin] &&
	    !(x->bins[f->bin] = px_strdup(x, f->path)))
		return ENOMEM;
	if (fn->name)
		return EOK;
	fn->name = px_strdup(x, f->name);
	fn->bin = f->bin;
	fn->start = f->func_addr;
	fn->kernel = f->kernel;
	fn->known = f->known;
	return fn->name ? EOK : ENOMEM;
}

/* prof_walk_fn_t: add one stack to the model. */
static errno_t px_collect(void *ctx, const prof_walk_info_t *info, const prof_xstack_t *s)
{
	px_t *x = ctx;

	if (!x->funcs && px_tables(x, info) != EOK)
		return ENOMEM;
	uint32_t t = px_task(x, s->task, s->task_name);
	if (t == PX_NONE || !px_reserve(x, (void **)&x->stacks, &x->cap_stacks, x->nstacks,
					sizeof(px_stack_t)))
		return ENOMEM;
	x->stacks[x->nstacks++] = (px_stack_t){ t, s->cpu, s->thread, s->mode, s->count, s->ns,
						(uint32_t)x->nframes, (uint32_t)s->nframes,
						s->origin, s->server };
	for (size_t i = 0; i < s->nframes; i++) {
		if (px_note(x, &s->frames[i]) != EOK ||
		    !px_reserve(x, (void **)&x->frames, &x->cap_frames, x->nframes,
				sizeof(px_frame_t)))
			return ENOMEM;
		x->frames[x->nframes++] = (px_frame_t){ s->frames[i].func, s->frames[i].addr };
	}
	return EOK;
}

/* Release everything the model x holds (x itself is the caller's). */
void px_free(px_t *x)
{
	px_release(x, x->funcs);
	px_release(x, x->bins);
	px_release(x, x->tasks);
	px_release(x, x->stacks);
	px_release(x, x->frames);
	px_buf_free(x, &x->line);
	while (x->arena) {
		px_chunk_t *n = x->arena->next;
		px_release(x, x->arena);
		x->arena = n;
	}
}

/* The last path component of a binary's path ("?" for none). */
const char *px_bin_base(const px_t *x, uint32_t bin)
{
	const char *p = bin == PROF_BIN_NONE || !x->bins[bin] ? "?" : x->bins[bin];

	for (const char *q = p; *q; q++)
		if (*q == '/' && q[1])
			p = q + 1;
	return p;
}

/* ---------------------------------------------------------------- entry */

/* Nothing to write: no sample (for the timeline, no trace event either). */
static bool px_empty(const px_t *x)
{
	prof_counts_t c;

	prof_report_counts(x->r, &c);
	return x->nstacks == 0 && (x->o->format != PROF_FMT_TRACE || c.trace == 0);
}

errno_t prof_export(prof_report_t *r, const prof_env_t *env, const prof_export_opts_t *o,
		    const prof_export_out_t *out)
{
	static void (*const writers[PROF_FMT_COUNT])(px_t *) = {
		[PROF_FMT_FOLDED] = px_folded,
		[PROF_FMT_PPROF] = px_pprof,
		[PROF_FMT_CALLGRIND] = px_callgrind,
		[PROF_FMT_SPEEDSCOPE] = px_speedscope,
		[PROF_FMT_SVG] = px_svg,
		[PROF_FMT_GMON] = px_gmon,
		[PROF_FMT_PERF] = px_perf,
		[PROF_FMT_TRACE] = px_trace,
	};
	px_t x;

	if (o->format >= PROF_FMT_COUNT || !writers[o->format])
		return EINVAL;
	memset(&x, 0, sizeof(x));
	x.r = r;
	x.env = env;
	x.o = o;
	x.out = out;
	errno_t err = prof_report_walk(r, o->kernel_path, px_collect, &x);
	if (err == EOK && x.err == EOK && px_empty(&x))
		err = ENOENT;
	if (err == EOK && x.err == EOK)
		writers[o->format](&x);
	if (err == EOK)
		err = x.err;
	px_free(&x);
	return err;
}
