/*
 * Profile export (lib/profexport.h). One walk of the report's stacks
 * builds a model: the tasks, the functions (names copied), the binaries
 * and the distinct stacks with their counts and frames (function id and
 * address each, root first). Each format is then written from the model.
 * Every array and map grows through env.alloc; nothing recurses.
 */
#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/profcore.h>
#include <lib/profexport.h>
#include <lib/string.h>

#include <stdarg.h>
#include <stdint.h>

#define PX_NONE UINT32_MAX
#define PX_CHUNK 65536                  /* arena chunk for copied strings */
#define PX_GZ_BLOCK 65535               /* a stored deflate block at most */

/* ---------------------------------------------------------------- types */

typedef struct px_func {
	const char *name;               /* NULL until a frame names it */
	uint32_t bin;
	uint64_t start;
	bool kernel, known;
} px_func_t;

typedef struct px_task {
	uint64_t id;
	const char *name;
	bool shared;                    /* another task has the same name */
} px_task_t;

typedef struct px_stack {
	uint32_t task;                  /* index in tasks */
	uint32_t cpu;
	uint64_t thread;
	uint8_t mode;
	uint64_t count;
	uint64_t ns;                    /* the time its samples stand for (their weights) */
	uint32_t first, n;              /* frames[first .. first + n), root first */
	uint64_t origin, server;        /* serving a call: whose, and who (ids); else 0 */
} px_stack_t;

typedef struct px_frame {
	uint32_t func;
	uint64_t addr;
} px_frame_t;

/*
 * A byte string (copied into the arena) and its 64-bit value: the key and
 * value of an entry of a string-keyed prof_map_t (px_map_t), in place.
 */
typedef struct px_entry {
	const char *key;
	size_t len;
	uint64_t val;
} px_entry_t;

typedef prof_map_t px_map_t;

typedef struct px_chunk {
	struct px_chunk *next;
	size_t used, size;
	char data[];
} px_chunk_t;

/* A growable byte buffer; err is sticky (its env is set on each put). */
typedef prof_buf_t px_buf_t;

typedef struct px {
	const prof_env_t *env;
	const prof_export_opts_t *o;
	const prof_export_out_t *out;
	errno_t err;                    /* sticky */
	prof_counts_t c;
	uint64_t total;
	px_func_t *funcs;
	uint32_t nfuncs;
	const char **bins;              /* paths by binary id */
	uint32_t nbins;
	px_task_t *tasks;
	size_t ntasks, cap_tasks;
	px_stack_t *stacks;
	size_t nstacks, cap_stacks;
	px_frame_t *frames;
	size_t nframes, cap_frames;
	px_chunk_t *arena;
	px_buf_t line;                  /* scratch */
} px_t;

/* ---------------------------------------------------------------- memory */

static void *px_alloc(px_t *x, size_t size)
{
	void *p = x->env->alloc(x->env->ctx, size ? size : 1);

	if (!p)
		x->err = ENOMEM;
	return p;
}

static void px_release(px_t *x, void *p)
{
	if (p)
		x->env->release(x->env->ctx, p);
}

/* Room for n + 1 elements of size in *arr (capacity *cap); false: ENOMEM. */
static bool px_reserve(px_t *x, void **arr, size_t *cap, size_t n, size_t size)
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
static void buf_err(px_t *x, const px_buf_t *b)
{
	if (b->err)
		x->err = b->err;
}

static void buf_put(px_t *x, px_buf_t *b, const void *data, size_t len)
{
	b->env = x->env;
	prof_buf_put(b, data, len);
	buf_err(x, b);
}

static void buf_str(px_t *x, px_buf_t *b, const char *s)
{
	buf_put(x, b, s, strlen(s));
}

static void buf_free(px_t *x, px_buf_t *b)
{
	px_release(x, b->p);
	memset(b, 0, sizeof(*b));
}

typedef struct px_sink {
	px_t *x;
	px_buf_t *b;
} px_sink_t;

static void px_sink(void *ctx, const char *s, size_t len)
{
	px_sink_t *k = ctx;

	buf_put(k->x, k->b, s, len);
}

static __attribute__((format(printf, 3, 4)))
void buf_printf(px_t *x, px_buf_t *b, const char *fmt, ...)
{
	px_sink_t k = { x, b };
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(px_sink, &k, fmt, ap);
	va_end(ap);
}

/* Write the buffer to the output and empty it. */
static void buf_flush(px_t *x, px_buf_t *b)
{
	if (b->err)
		x->err = b->err;
	else if (b->len)
		x->out->write(x->out->ctx, b->p, b->len);
	b->len = 0;
}

/* Flush when more than 64 KiB wait (for large text outputs). */
static void buf_maybe_flush(px_t *x, px_buf_t *b)
{
	if (b->len >= PX_CHUNK)
		buf_flush(x, b);
}

/* ---------------------------------------------------------------- hash map */

/*
 * The entry of key (len bytes), added with val 0 when new (its key a copy
 * in the arena); NULL: ENOMEM.
 */
static px_entry_t *map_get(px_t *x, px_map_t *m, const void *key, size_t len, bool *added)
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
static px_entry_t *map_at(const px_map_t *m, size_t i)
{
	return prof_map_key(m, i);
}

static void map_free(px_t *x, px_map_t *m)
{
	prof_map_free(x->env, m);
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

static void px_free(px_t *x)
{
	px_release(x, x->funcs);
	px_release(x, x->bins);
	px_release(x, x->tasks);
	px_release(x, x->stacks);
	px_release(x, x->frames);
	buf_free(x, &x->line);
	while (x->arena) {
		px_chunk_t *n = x->arena->next;
		px_release(x, x->arena);
		x->arena = n;
	}
}

/* The last path component of a binary's path ("?" for none). */
static const char *px_bin_base(const px_t *x, uint32_t bin)
{
	const char *p = bin == PROF_BIN_NONE || !x->bins[bin] ? "?" : x->bins[bin];

	for (const char *q = p; *q; q++)
		if (*q == '/' && q[1])
			p = q + 1;
	return p;
}

/* ---------------------------------------------------------------- folded */

/* Append a frame name with ';' and whitespace made '_'. */
static void fold_name(px_t *x, px_buf_t *b, const char *s)
{
	for (; *s; s++) {
		char c = *s == ';' || *s == ' ' || *s == '\t' || *s == '\n' ? '_' : *s;
		buf_put(x, b, &c, 1);
	}
}

/*
 * An "[ipc SERVER.METHOD]" frame (by origin) or an "[off-cpu: ...]" one
 * (wall clock): kept as the reports print it; the length of its prefix
 * ("[ipc ", "[off-cpu: "), or 0 for another frame.
 */
static size_t fold_ipc(const px_func_t *f)
{
	if (!f->known || f->kernel || f->bin != PROF_BIN_NONE)
		return 0;
	if (strncmp(f->name, "[ipc ", 5) == 0)
		return 5;
	return strncmp(f->name, "[off-cpu: ", 10) == 0 ? 10 : 0;
}


/*
 * A function as folded stacks name it: NAME, NAME_[k], 0xADDR_(BINARY);
 * "[ipc SERVER.METHOD]" with its space (the count is after the last one).
 */
static void fold_func(px_t *x, px_buf_t *b, const px_func_t *f)
{
	size_t keep = fold_ipc(f);

	if (keep) {
		buf_put(x, b, f->name, keep);
		for (const char *p = f->name + keep; *p; p++)
			buf_put(x, b, *p == ';' ? "_" : p, 1);
		return;
	}
	fold_name(x, b, f->name);
	if (!f->known && !f->kernel) {
		buf_str(x, b, "_(");
		fold_name(x, b, px_bin_base(x, f->bin));
		buf_str(x, b, ")");
	}
	if (f->kernel)
		buf_str(x, b, "_[k]");
}

/* The folded line of stack s (without the count) in x->line. */
static void fold_line(px_t *x, const px_stack_t *s)
{
	const px_task_t *t = &x->tasks[s->task];

	x->line.len = 0;
	fold_name(x, &x->line, t->name);
	if (t->shared)
		buf_printf(x, &x->line, "-%llu", (unsigned long long)t->id);
	for (uint32_t i = 0; i < s->n; i++) {
		buf_str(x, &x->line, ";");
		fold_func(x, &x->line, &x->funcs[x->frames[s->first + i].func]);
	}
}

static int fold_cmp(const void *a, const void *b, void *ctx)
{
	const px_entry_t *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	(void)ctx;
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static void px_folded(px_t *x)
{
	px_map_t m = { 0 };
	px_buf_t out = { 0 };
	bool added;

	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		fold_line(x, &x->stacks[i]);
		px_entry_t *e = x->line.err ? NULL :
			map_get(x, &m, x->line.p, x->line.len, &added);
		if (e)
			e->val += x->o->ns ? x->stacks[i].ns : x->stacks[i].count;
		else
			x->err = ENOMEM;
	}
	size_t n = 0;
	px_entry_t *e = x->err ? NULL : px_alloc(x, (m.count + 1) * sizeof(px_entry_t));
	for (size_t i = 0; e && i < m.cap; i++) {
		if (map_at(&m, i))
			e[n++] = *map_at(&m, i);
	}
	prof_sort(e, n, sizeof(px_entry_t), fold_cmp, NULL);
	for (size_t i = 0; e && i < n && !x->err; i++) {
		buf_put(x, &out, e[i].key, e[i].len);
		buf_printf(x, &out, " %llu\n", (unsigned long long)e[i].val);
		buf_maybe_flush(x, &out);
	}
	px_release(x, e);
	buf_flush(x, &out);
	buf_free(x, &out);
	map_free(x, &m);
}

/* ---------------------------------------------------------------- pprof */

/* Protocol buffers: varints, keys, length-delimited fields. */
/* v as a protobuf varint into tmp (10 bytes hold any); its length. */
static size_t pb_varint_encode(unsigned char tmp[10], uint64_t v)
{
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void pb_varint(px_t *x, px_buf_t *b, uint64_t v)
{
	b->env = x->env;
	prof_pb_varint(b, v);
	buf_err(x, b);
}

static void pb_uint(px_t *x, px_buf_t *b, unsigned field, uint64_t v)
{
	b->env = x->env;
	prof_pb_uint(b, field, v);
	buf_err(x, b);
}

static void pb_bytes(px_t *x, px_buf_t *b, unsigned field, const void *data, size_t len)
{
	b->env = x->env;
	prof_pb_bytes(b, field, data, len);
	buf_err(x, b);
}

/* Field numbers of profile.proto (google/pprof). */
enum {
	PB_SAMPLE_TYPE = 1, PB_SAMPLE = 2, PB_MAPPING = 3, PB_LOCATION = 4, PB_FUNCTION = 5,
	PB_STRING = 6, PB_TIME = 9, PB_DURATION = 10, PB_PERIOD_TYPE = 11, PB_PERIOD = 12,
	PB_COMMENT = 13,
};

/* Fixed strings first; then functions, binaries and tasks by index. */
enum {
	PS_EMPTY, PS_SAMPLES, PS_COUNT, PS_CPU, PS_NANOS, PS_TASK, PS_THREAD, PS_MODE,
	PS_USER, PS_KERNEL, PS_IDLE, PS_COMMENT, PS_ORIGIN, PS_SERVER, PS_WALL, PS_FIXED
};
static const char *const ps_fixed[PS_FIXED] = {
	"", "samples", "count", "cpu", "nanoseconds", "task", "thread", "mode",
	"user", "kernel", "idle", "vprof", "origin", "server", "wall",
};

typedef struct pp_state {
	px_buf_t pb, msg, sub;
	px_map_t locs;                  /* (bin, addr) -> location id */
	uint64_t *lo, *hi;              /* per binary: addresses seen */
	uint64_t period;
} pp_state_t;

static uint64_t pp_str_func(uint32_t f)
{
	return PS_FIXED + (uint64_t)f;
}

static uint64_t pp_str_bin(const px_t *x, uint32_t bin)
{
	return PS_FIXED + (uint64_t)x->nfuncs + bin;
}

static uint64_t pp_str_task(const px_t *x, uint32_t t)
{
	return PS_FIXED + (uint64_t)x->nfuncs + x->nbins + t;
}

static void pp_value_type(px_t *x, pp_state_t *p, unsigned field, uint64_t type, uint64_t unit)
{
	p->sub.len = 0;
	pb_uint(x, &p->sub, 1, type);
	pb_uint(x, &p->sub, 2, unit);
	pb_bytes(x, &p->pb, field, p->sub.p, p->sub.len);
}

/*
 * Location id of a frame (added with its Location message when new);
 * frames of no binary are told apart by function too ("[ipc ...]" and
 * "[off-cpu: ...]" frames all have address 0).
 */
static uint64_t pp_location(px_t *x, pp_state_t *p, const px_frame_t *fr)
{
	const px_func_t *f = &x->funcs[fr->func];
	uint64_t key[3] = { f->bin, fr->addr, f->bin == PROF_BIN_NONE ? fr->func : 0 };
	bool added;
	px_entry_t *e = map_get(x, &p->locs, key, sizeof(key), &added);

	if (!e)
		return 0;
	if (!added)
		return e->val;
	e->val = p->locs.count;
	if (f->bin != PROF_BIN_NONE) {
		if (fr->addr < p->lo[f->bin])
			p->lo[f->bin] = fr->addr;
		if (fr->addr >= p->hi[f->bin])
			p->hi[f->bin] = fr->addr + 1;
	}
	p->msg.len = p->sub.len = 0;
	pb_uint(x, &p->msg, 1, e->val);
	if (f->bin != PROF_BIN_NONE)
		pb_uint(x, &p->msg, 2, (uint64_t)f->bin + 1);
	pb_uint(x, &p->msg, 3, fr->addr);
	pb_uint(x, &p->sub, 1, (uint64_t)fr->func + 1);
	pb_bytes(x, &p->msg, 4, p->sub.p, p->sub.len);
	pb_bytes(x, &p->pb, PB_LOCATION, p->msg.p, p->msg.len);
	return e->val;
}

static void pp_label(px_t *x, pp_state_t *p, uint64_t key, uint64_t str, bool num, uint64_t v)
{
	px_buf_t *l = &p->sub;

	l->len = 0;
	pb_uint(x, l, 1, key);
	if (num)
		pb_uint(x, l, 3, v);
	else
		pb_uint(x, l, 2, str);
	pb_bytes(x, &p->msg, 3, l->p, l->len);
}

/* One Sample message: locations leaf first, values, labels. */
static void pp_sample(px_t *x, pp_state_t *p, const px_stack_t *s)
{
	static const uint64_t modes[] = { PS_USER, PS_KERNEL, PS_IDLE };
	px_buf_t ids = { 0 };

	for (uint32_t i = s->n; i-- > 0;)
		pb_varint(x, &ids, pp_location(x, p, &x->frames[s->first + i]));
	p->msg.len = 0;
	pb_bytes(x, &p->msg, 1, ids.p, ids.len);
	ids.len = 0;
	pb_varint(x, &ids, s->count);
	pb_varint(x, &ids, s->ns);
	pb_bytes(x, &p->msg, 2, ids.p, ids.len);
	pp_label(x, p, PS_TASK, pp_str_task(x, s->task), false, 0);
	pp_label(x, p, PS_THREAD, 0, true, s->thread);
	pp_label(x, p, PS_CPU, 0, true, s->cpu);
	pp_label(x, p, PS_MODE, modes[s->mode < 3 ? s->mode : 1], false, 0);
	if (s->origin) {                /* serving a call: whose work (task ids) */
		pp_label(x, p, PS_ORIGIN, 0, true, s->origin);
		pp_label(x, p, PS_SERVER, 0, true, s->server);
	}
	pb_bytes(x, &p->pb, PB_SAMPLE, p->msg.p, p->msg.len);
	if (ids.err)
		x->err = ids.err;
	buf_free(x, &ids);
}

static void pp_functions(px_t *x, pp_state_t *p)
{
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		if (!x->funcs[f].name)
			continue;
		p->msg.len = 0;
		pb_uint(x, &p->msg, 1, (uint64_t)f + 1);
		pb_uint(x, &p->msg, 2, pp_str_func(f));
		pb_uint(x, &p->msg, 3, pp_str_func(f));
		if (x->funcs[f].bin != PROF_BIN_NONE)
			pb_uint(x, &p->msg, 4, pp_str_bin(x, x->funcs[f].bin));
		pb_bytes(x, &p->pb, PB_FUNCTION, p->msg.p, p->msg.len);
	}
}

static void pp_mappings(px_t *x, pp_state_t *p)
{
	for (uint32_t b = 0; b < x->nbins; b++) {
		if (!x->bins[b] || p->hi[b] == 0)
			continue;
		p->msg.len = 0;
		pb_uint(x, &p->msg, 1, (uint64_t)b + 1);
		pb_uint(x, &p->msg, 2, p->lo[b]);
		pb_uint(x, &p->msg, 3, p->hi[b]);
		pb_uint(x, &p->msg, 5, pp_str_bin(x, b));
		pb_uint(x, &p->msg, 7, 1);              /* has_functions */
		pb_bytes(x, &p->pb, PB_MAPPING, p->msg.p, p->msg.len);
	}
}

/* A task's label: its name, with the id where two tasks share it. */
static void pp_task_str(px_t *x, pp_state_t *p, uint32_t t)
{
	p->sub.len = 0;
	buf_str(x, &p->sub, x->tasks[t].name);
	if (x->tasks[t].shared)
		buf_printf(x, &p->sub, "-%llu", (unsigned long long)x->tasks[t].id);
	pb_bytes(x, &p->pb, PB_STRING, p->sub.p, p->sub.len);
}

/*
 * A binary's file name: with o->root, an absolute guest path is given as
 * the host file under it (where pprof finds the ELF), except the kernel
 * named by o->kernel_path (already a host path).
 */
static void pp_bin_str(px_t *x, pp_state_t *p, uint32_t b)
{
	const char *path = x->bins[b] ? x->bins[b] : "", *root = x->o->root;
	bool kernel = x->o->kernel_path && strcmp(path, x->o->kernel_path) == 0;

	p->sub.len = 0;
	if (root && path[0] == '/' && !kernel) {
		size_t n = strlen(root);
		while (n > 0 && root[n - 1] == '/')
			n--;
		buf_put(x, &p->sub, root, n);
	}
	buf_str(x, &p->sub, path);
	pb_bytes(x, &p->pb, PB_STRING, p->sub.p, p->sub.len);
}

static void pp_strings(px_t *x, pp_state_t *p)
{
	for (size_t i = 0; i < PS_FIXED; i++)
		pb_bytes(x, &p->pb, PB_STRING, ps_fixed[i], strlen(ps_fixed[i]));
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		const px_func_t *fn = &x->funcs[f];
		p->sub.len = 0;
		buf_str(x, &p->sub, fn->name ? fn->name : "?");
		if (fn->kernel)
			buf_str(x, &p->sub, " [k]");
		pb_bytes(x, &p->pb, PB_STRING, p->sub.p, p->sub.len);
	}
	for (uint32_t b = 0; b < x->nbins; b++)
		pp_bin_str(x, p, b);
	for (uint32_t t = 0; t < x->ntasks; t++)
		pp_task_str(x, p, t);
}

/* CRC-32 (IEEE, reflected) of len bytes, continuing crc. */
static uint32_t gz_crc(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void gz_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void prof_gzip(const prof_export_out_t *out, const void *data_, size_t len)
{
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff };
	const unsigned char *data = data_;
	unsigned char blk[5], tail[8];
	size_t off = 0;

	out->write(out->ctx, head, sizeof(head));
	do {
		size_t n = len - off < PX_GZ_BLOCK ? len - off : PX_GZ_BLOCK;
		blk[0] = off + n == len;                /* BFINAL, BTYPE 00 */
		blk[1] = (unsigned char)n;
		blk[2] = (unsigned char)(n >> 8);
		blk[3] = (unsigned char)~n;
		blk[4] = (unsigned char)(~n >> 8);
		out->write(out->ctx, blk, sizeof(blk));
		out->write(out->ctx, data + off, n);
		off += n;
	} while (off < len);
	gz_le32(tail, gz_crc(0, data, len));
	gz_le32(tail + 4, (uint32_t)len);
	out->write(out->ctx, tail, sizeof(tail));
}

/* ---------------------------------------------------------------- public pb */

void prof_pb_raw(prof_pb_t *b, const void *data, size_t len)
{
	prof_buf_put(b, data, len);
}

void prof_pb_varint(prof_pb_t *b, uint64_t v)
{
	unsigned char tmp[10];

	prof_pb_raw(b, tmp, pb_varint_encode(tmp, v));
}

void prof_pb_uint(prof_pb_t *b, unsigned field, uint64_t v)
{
	prof_pb_varint(b, (uint64_t)field << 3);
	prof_pb_varint(b, v);
}

void prof_pb_bytes(prof_pb_t *b, unsigned field, const void *data, size_t len)
{
	prof_pb_varint(b, (uint64_t)field << 3 | 2);
	prof_pb_varint(b, len);
	prof_pb_raw(b, data, len);
}

void prof_pb_free(prof_pb_t *b)
{
	prof_buf_free(b);
}

static void px_pprof(px_t *x)
{
	pp_state_t p;

	memset(&p, 0, sizeof(p));
	p.period = x->c.hz ? 1000000000ull / x->c.hz : 1;
	p.lo = px_alloc(x, (x->nbins + 1) * sizeof(uint64_t));
	p.hi = px_alloc(x, (x->nbins + 1) * sizeof(uint64_t));
	if (p.lo && p.hi) {
		memset(p.lo, 0xff, (x->nbins + 1) * sizeof(uint64_t));
		memset(p.hi, 0, (x->nbins + 1) * sizeof(uint64_t));
		pp_value_type(x, &p, PB_SAMPLE_TYPE, PS_SAMPLES, PS_COUNT);
		pp_value_type(x, &p, PB_SAMPLE_TYPE, x->o->wall ? PS_WALL : PS_CPU, PS_NANOS);
		for (size_t i = 0; i < x->nstacks && !x->err; i++)
			pp_sample(x, &p, &x->stacks[i]);
		pp_mappings(x, &p);
		pp_functions(x, &p);
		pp_strings(x, &p);
		pb_uint(x, &p.pb, PB_DURATION, x->c.duration_ns);
		pp_value_type(x, &p, PB_PERIOD_TYPE, x->o->wall ? PS_WALL : PS_CPU, PS_NANOS);
		pb_uint(x, &p.pb, PB_PERIOD, p.period);
		pb_uint(x, &p.pb, PB_COMMENT, PS_COMMENT);
	}
	errno_t err = p.pb.err ? p.pb.err : p.msg.err ? p.msg.err : p.sub.err;
	if (err)
		x->err = err;
	if (!x->err)
		prof_gzip(x->out, p.pb.p, p.pb.len);
	buf_free(x, &p.pb);
	buf_free(x, &p.msg);
	buf_free(x, &p.sub);
	map_free(x, &p.locs);
	px_release(x, p.lo);
	px_release(x, p.hi);
}

/* ---------------------------------------------------------------- callgrind */

/*
 * Costs per function: self samples, and per call arc (caller, callee)
 * the samples whose stack holds that arc. A function that recurs in a
 * stack (recursion, or a leaf caller recovered next to the walk's) would
 * count a sample more than once in its inclusive cost (self + calls):
 * only its deepest occurrence passes the sample on, and none when it is
 * the sampled function itself.
 */
typedef struct cg_arc {
	uint32_t from, to;
	uint64_t count;
} cg_arc_t;

/* Is frame i's function found deeper in the stack (frames i+1 .. n-1)? */
static bool cg_deeper(const px_frame_t *fr, uint32_t i, uint32_t n)
{
	for (uint32_t j = i + 1; j < n; j++) {
		if (fr[j].func == fr[i].func)
			return true;
	}
	return false;
}

/* Add count to the arc from -> to. */
static void cg_arc_add(px_t *x, px_map_t *arcs, uint32_t from, uint32_t to, uint64_t count)
{
	uint32_t key[2] = { from, to };
	bool added;
	px_entry_t *e = map_get(x, arcs, key, sizeof(key), &added);

	if (e)
		e->val += count;
}

/*
 * Self costs and arcs of the stacks. Each stack's root is called from
 * "(below main)" (function index nfuncs, as valgrind names it):
 * callgrind_annotate counts a function's inclusive cost from the calls
 * into it, so a function that is a root in some stacks and called in
 * others (a thread's exit through __vernier_syscall) needs them all.
 */
static void cg_arcs(px_t *x, px_map_t *arcs, uint64_t *self)
{
	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		const px_stack_t *s = &x->stacks[i];
		const px_frame_t *fr = &x->frames[s->first];
		self[fr[s->n - 1].func] += s->count;
		cg_arc_add(x, arcs, (uint32_t)x->nfuncs, fr[0].func, s->count);
		for (uint32_t j = 0; j + 1 < s->n && !x->err; j++) {
			if (!cg_deeper(fr, j, s->n))
				cg_arc_add(x, arcs, fr[j].func, fr[j + 1].func, s->count);
		}
	}
}

static int cg_arc_cmp(const void *a, const void *b, void *ctx)
{
	const cg_arc_t *x = a, *y = b;

	(void)ctx;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static const char *cg_ob(const px_t *x, uint32_t f)
{
	uint32_t b = x->funcs[f].bin;

	return b == PROF_BIN_NONE || !x->bins[b] ? "???" : x->bins[b];
}

/*
 * Kernel functions carry " [k]" as in the report: callgrind_annotate
 * merges functions by file and name, and fl= is ??? for all (no source).
 */
static const char *cg_k(const px_t *x, uint32_t f)
{
	return x->funcs[f].kernel ? " [k]" : "";
}

/* The fn= block of function f (nfuncs: "(below main)"): its self cost and its arcs a[0..n). */
static void cg_func(px_t *x, px_buf_t *o, uint32_t f, uint64_t self, const cg_arc_t *a,
		    size_t n)
{
	bool root = f == x->nfuncs;

	buf_printf(x, o, "\nob=%s\nfl=???\nfn=%s%s\n0 %llu\n", root ? "???" : cg_ob(x, f),
		   root ? "(below main)" : x->funcs[f].name, root ? "" : cg_k(x, f),
		   (unsigned long long)self);
	for (size_t i = 0; i < n; i++) {
		if (root || strcmp(cg_ob(x, a[i].to), cg_ob(x, f)) != 0)
			buf_printf(x, o, "cob=%s\n", cg_ob(x, a[i].to));
		buf_printf(x, o, "cfn=%s%s\ncalls=%llu 0\n0 %llu\n", x->funcs[a[i].to].name,
			   cg_k(x, a[i].to), (unsigned long long)a[i].count,
			   (unsigned long long)a[i].count);
	}
	buf_maybe_flush(x, o);
}

static void cg_write(px_t *x, const uint64_t *self, cg_arc_t *a, size_t n)
{
	px_buf_t o = { 0 };
	size_t at = 0;

	buf_printf(x, &o, "# callgrind format\nversion: 1\ncreator: vprof\ncmd: %s\n"
		   "positions: line\nevents: Samples\nsummary: %llu\n",
		   x->o->title ? x->o->title : "vprof", (unsigned long long)x->total);
	for (uint32_t f = 0; f <= x->nfuncs; f++) {
		size_t first = at;
		while (at < n && a[at].from == f)
			at++;
		if ((f == x->nfuncs || x->funcs[f].name) && (self[f] || at > first))
			cg_func(x, &o, f, self[f], a + first, at - first);
	}
	buf_flush(x, &o);
	buf_free(x, &o);
}

static void px_callgrind(px_t *x)
{
	px_map_t arcs = { 0 };
	uint64_t *self = px_alloc(x, (x->nfuncs + 1) * sizeof(uint64_t));
	cg_arc_t *a = NULL;
	size_t n = 0;

	if (self) {
		memset(self, 0, (x->nfuncs + 1) * sizeof(uint64_t));
		cg_arcs(x, &arcs, self);
	}
	if (!x->err)
		a = px_alloc(x, (arcs.count + 1) * sizeof(cg_arc_t));
	for (size_t i = 0; a && i < arcs.cap; i++) {
		const px_entry_t *e = map_at(&arcs, i);
		if (!e)
			continue;
		memcpy(&a[n], e->key, 8);
		a[n++].count = e->val;
	}
	if (!x->err) {
		prof_sort(a, n, sizeof(cg_arc_t), cg_arc_cmp, NULL);
		cg_write(x, self, a, n);
	}
	px_release(x, a);
	px_release(x, self);
	map_free(x, &arcs);
}

/* ---------------------------------------------------------------- speedscope */

/* s as a JSON string (quotes, escapes). */
static void js_str(px_t *x, px_buf_t *b, const char *s)
{
	buf_str(x, b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(x, b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			buf_printf(x, b, "\\u%04x", c);
		else
			buf_put(x, b, &c, 1);
	}
	buf_str(x, b, "\"");
}

static void ss_frames(px_t *x, px_buf_t *o)
{
	buf_str(x, o, "\"shared\":{\"frames\":[");
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		const px_func_t *fn = &x->funcs[f];
		buf_str(x, o, f ? ",\n{\"name\":" : "\n{\"name\":");
		x->line.len = 0;
		buf_str(x, &x->line, fn->name ? fn->name : "?");
		buf_str(x, &x->line, fn->kernel ? " [k]" : "");
		buf_put(x, &x->line, "", 1);
		js_str(x, o, x->line.err ? "?" : (const char *)x->line.p);
		if (fn->bin != PROF_BIN_NONE && x->bins[fn->bin]) {
			buf_str(x, o, ",\"file\":");
			js_str(x, o, x->bins[fn->bin]);
		}
		buf_str(x, o, "}");
	}
	buf_str(x, o, "]},\n");
}

/* Does stack s belong to the profile of stack p (same task, or thread)? */
static bool ss_same(const px_t *x, const px_stack_t *s, const px_stack_t *p)
{
	return s->task == p->task && (!x->o->threads || s->thread == p->thread);
}

/* One sampled profile: the stacks like stacks[at] not yet written. */
static void ss_profile(px_t *x, px_buf_t *o, size_t at, bool *done)
{
	const px_stack_t *p = &x->stacks[at];
	const px_task_t *t = &x->tasks[p->task];
	uint64_t total = 0;

	buf_str(x, o, "{\"type\":\"sampled\",\"name\":");
	x->line.len = 0;
	buf_printf(x, &x->line, "%s (task %llu", t->name, (unsigned long long)t->id);
	if (x->o->threads)
		buf_printf(x, &x->line, ", thread %llu", (unsigned long long)p->thread);
	buf_put(x, &x->line, ")", 2);
	js_str(x, o, x->line.err ? "?" : (const char *)x->line.p);
	buf_str(x, o, ",\"unit\":\"nanoseconds\",\"startValue\":0,\n\"samples\":[");
	for (size_t i = at, n = 0; i < x->nstacks; i++) {
		const px_stack_t *s = &x->stacks[i];
		if (done[i] || !ss_same(x, s, p))
			continue;
		buf_str(x, o, n++ ? ",\n[" : "\n[");
		for (uint32_t j = 0; j < s->n; j++)
			buf_printf(x, o, j ? ",%u" : "%u", x->frames[s->first + j].func);
		buf_str(x, o, "]");
		buf_maybe_flush(x, o);
	}
	buf_str(x, o, "],\n\"weights\":[");
	for (size_t i = at, n = 0; i < x->nstacks; i++) {
		const px_stack_t *s = &x->stacks[i];
		if (done[i] || !ss_same(x, s, p))
			continue;
		uint64_t w = s->ns;
		buf_printf(x, o, n++ ? ",%llu" : "%llu", (unsigned long long)w);
		total += w;
		done[i] = true;
	}
	buf_printf(x, o, "],\"endValue\":%llu}", (unsigned long long)total);
}

static void px_speedscope(px_t *x)
{
	px_buf_t o = { 0 };
	bool *done = px_alloc(x, x->nstacks);

	if (!done)
		return;
	memset(done, 0, x->nstacks);
	buf_str(x, &o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n");
	ss_frames(x, &o);
	buf_str(x, &o, "\"profiles\":[\n");
	for (size_t i = 0, n = 0; i < x->nstacks; i++) {
		if (done[i])
			continue;
		buf_str(x, &o, n++ ? ",\n" : "");
		ss_profile(x, &o, i, done);
	}
	buf_str(x, &o, "],\n\"name\":");
	js_str(x, &o, x->o->title ? x->o->title : "vprof");
	buf_str(x, &o, ",\"activeProfileIndex\":0,\"exporter\":\"vprof\"}\n");
	buf_flush(x, &o);
	buf_free(x, &o);
	px_release(x, done);
}

/* ---------------------------------------------------------------- svg */

/*
 * The flame graph (prof_flame_*, also drawn by vprof diff from two
 * profiles): a tree of nodes (root "all", tasks, then frames), a child
 * per (parent, kind, name); laid out in samples from the left, children
 * most samples first. Widths are written in tenths of a pixel (integer
 * arithmetic); the inline script lays the frames out again when zooming
 * and searching.
 */
#define FG_WIDTH 1200                   /* px */
#define FG_PAD 10
#define FG_FRAME 16                     /* px per level */
#define FG_TOP 64                       /* title, search box */
#define FG_BOTTOM 28                    /* details line */
#define FG_HEAT_MAX 1000

typedef struct fg_node {
	uint32_t parent, depth;
	const char *name;               /* in the arena */
	uint8_t kind;                   /* PROF_FLAME_* */
	int16_t heat;                   /* diff: -1000 (shrank) .. 1000 (grew) */
	uint64_t count, count_a, x;     /* count: samples (B's in a diff) */
} fg_node_t;

struct prof_flame {
	px_t x;                         /* memory, the arena, the sticky error */
	fg_node_t *n;
	size_t count, cap;
	px_map_t map;                   /* (parent, kind, name) -> node index */
	uint32_t maxdepth;
};

errno_t prof_flame_new(const prof_env_t *env, prof_flame_t **out)
{
	prof_flame_t *f = env->alloc(env->ctx, sizeof(*f));

	if (!f)
		return ENOMEM;
	memset(f, 0, sizeof(*f));
	f->x.env = env;
	if (!px_reserve(&f->x, (void **)&f->n, &f->cap, 0, sizeof(fg_node_t))) {
		env->release(env->ctx, f);
		return ENOMEM;
	}
	f->n[0] = (fg_node_t){ .parent = PROF_FLAME_NONE, .name = "all" };
	f->count = 1;
	*out = f;
	return EOK;
}

void prof_flame_free(prof_flame_t *f)
{
	if (!f)
		return;
	px_release(&f->x, f->n);
	map_free(&f->x, &f->map);
	px_free(&f->x);
	f->x.env->release(f->x.env->ctx, f);
}

uint32_t prof_flame_child(prof_flame_t *f, uint32_t parent, const char *name, size_t len,
			  unsigned kind)
{
	px_t *x = &f->x;
	unsigned char head[5] = { (unsigned char)parent, (unsigned char)(parent >> 8),
				  (unsigned char)(parent >> 16), (unsigned char)(parent >> 24),
				  (unsigned char)kind };
	bool added;

	if (x->err || parent >= f->count)
		return PROF_FLAME_NONE;
	x->line.len = 0;
	buf_put(x, &x->line, head, sizeof(head));
	buf_put(x, &x->line, name, len);
	px_entry_t *e = x->line.err ? NULL : map_get(x, &f->map, x->line.p, x->line.len, &added);
	if (e && added) {
		uint32_t d = f->n[parent].depth + 1;
		if (!px_reserve(x, (void **)&f->n, &f->cap, f->count, sizeof(fg_node_t)))
			return PROF_FLAME_NONE;
		/* The key holds the name after the 5-byte head (NUL-terminated). */
		f->n[f->count] = (fg_node_t){ parent, d, e->key + sizeof(head), (uint8_t)kind,
					      0, 0, 0, 0 };
		f->maxdepth = d > f->maxdepth ? d : f->maxdepth;
		e->val = f->count++;
	}
	if (!e)
		x->err = ENOMEM;
	return e ? (uint32_t)e->val : PROF_FLAME_NONE;
}

void prof_flame_count(prof_flame_t *f, uint32_t node, uint64_t count, uint64_t count_a)
{
	for (; node < f->count; node = f->n[node].parent) {
		f->n[node].count += count;
		f->n[node].count_a += count_a;
	}
}

size_t prof_flame_size(const prof_flame_t *f)
{
	return f->count;
}

void prof_flame_counts(const prof_flame_t *f, uint32_t node, uint64_t *count,
		       uint64_t *count_a)
{
	*count = node < f->count ? f->n[node].count : 0;
	*count_a = node < f->count ? f->n[node].count_a : 0;
}

void prof_flame_heat(prof_flame_t *f, uint32_t node, int heat)
{
	if (node < f->count)
		f->n[node].heat = (int16_t)(heat > FG_HEAT_MAX ? FG_HEAT_MAX :
					    heat < -FG_HEAT_MAX ? -FG_HEAT_MAX : heat);
}

/* Children: by parent, most samples first, then as created. */
static int fg_cmp(const void *a, const void *b, void *ctx)
{
	const fg_node_t *n = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (n[i].parent != n[j].parent)
		return n[i].parent < n[j].parent ? -1 : 1;
	if (n[i].count != n[j].count)
		return n[i].count > n[j].count ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Each node's x (in samples): after its elder siblings, from its parent's. */
static void fg_layout(prof_flame_t *f)
{
	uint32_t *ord = px_alloc(&f->x, f->count * sizeof(uint32_t));
	uint32_t parent = PROF_FLAME_NONE;
	uint64_t cursor = 0;

	if (!ord)
		return;
	for (uint32_t i = 1; i < f->count; i++)
		ord[i - 1] = i;
	prof_sort(ord, f->count - 1, sizeof(uint32_t), fg_cmp, f->n);
	for (size_t k = 0; k + 1 < f->count; k++) {
		fg_node_t *c = &f->n[ord[k]];
		if (c->parent != parent) {
			parent = c->parent;
			cursor = f->n[parent].x;
		}
		c->x = cursor;
		cursor += c->count;
	}
	px_release(&f->x, ord);
}

/* s with XML's special characters escaped. */
static void xml_str(px_t *x, px_buf_t *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': buf_str(x, b, "&amp;"); break;
		case '<': buf_str(x, b, "&lt;"); break;
		case '>': buf_str(x, b, "&gt;"); break;
		case '"': buf_str(x, b, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20)
				buf_put(x, b, s, 1);
		}
	}
}

/*
 * Fill colours. A profile: by family, user frames warm (red to yellow),
 * kernel frames blue, tasks green, unknown addresses grey; the shade from
 * the name. A diff: red where the share grew, blue where it shrank, the
 * deeper the larger the change (heat); a light grey where it did not
 * change significantly (heat 0).
 */
static void fg_fill(const fg_node_t *n, bool diff, char *buf, size_t size)
{
	uint64_t h = profbin_fnv(n->name, strlen(n->name));
	h ^= h >> 31;                   /* the shade's hash: FNV-1a, folded */
	unsigned a = (unsigned)(h % 56), b = (unsigned)((h >> 8) % 100);
	unsigned pale = 210 - 150 * (unsigned)(n->heat < 0 ? -n->heat : n->heat) / FG_HEAT_MAX;

	if (diff && n->heat > 0)
		fmt_snprintf(buf, size, "rgb(255,%u,%u)", pale, pale);
	else if (diff && n->heat < 0)
		fmt_snprintf(buf, size, "rgb(%u,%u,255)", pale, pale);
	else if (diff || n->kind == PROF_FLAME_K_ROOT)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", diff ? 225 : 200, diff ? 225 : 200,
			     diff ? 225 : 200);
	else if (n->kind == PROF_FLAME_K_TASK)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 90 + a, 180 + a / 2, 90 + a);
	else if (n->kind == PROF_FLAME_K_KERNEL)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 60 + a, 120 + b / 2, 200 + a);
	else if (n->kind == PROF_FLAME_K_UNKNOWN)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 160 + a, 160 + a, 160 + a);
	else
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 200 + a, 60 + b + b / 2, 40 + a / 2);
}

/* Tenths of a pixel of v samples of total across the drawing width. */
static uint64_t fg_tenths(uint64_t v, uint64_t total)
{
	return total ? v * (10 * (FG_WIDTH - 2 * FG_PAD)) / total : 0;
}

/* v of total in hundredths of a percent, rounded. */
static uint64_t fg_centi(uint64_t v, uint64_t total)
{
	return total ? (v * 10000 + total / 2) / total : 0;
}

/* The hover text: NAME (N samples, P%), or NAME (A: .., B: .., +D points). */
static void fg_title(px_t *x, px_buf_t *o, const prof_flame_t *f, const fg_node_t *n, bool diff)
{
	uint64_t pb = fg_centi(n->count, f->n[0].count), pa = fg_centi(n->count_a, f->n[0].count_a);
	uint64_t d = pb > pa ? pb - pa : pa - pb;

	xml_str(x, o, n->name);
	if (!diff) {
		buf_printf(x, o, " (%llu samples, %llu.%02llu%%)", (unsigned long long)n->count,
			   (unsigned long long)(pb / 100), (unsigned long long)(pb % 100));
		return;
	}
	buf_printf(x, o, " (A: %llu samples, %llu.%02llu%%; B: %llu samples, %llu.%02llu%%; "
		   "%c%llu.%02llu points)", (unsigned long long)n->count_a,
		   (unsigned long long)(pa / 100), (unsigned long long)(pa % 100),
		   (unsigned long long)n->count, (unsigned long long)(pb / 100),
		   (unsigned long long)(pb % 100), pb < pa ? '-' : '+',
		   (unsigned long long)(d / 100), (unsigned long long)(d % 100));
}

static void fg_node(prof_flame_t *f, px_buf_t *o, const fg_node_t *n, bool diff)
{
	px_t *x = &f->x;
	uint64_t total = f->n[0].count;
	uint64_t w = fg_tenths(n->count, total), at = 10 * FG_PAD + fg_tenths(n->x, total);
	unsigned y = FG_TOP + (f->maxdepth - n->depth) * FG_FRAME;
	char fill[32];

	fg_fill(n, diff, fill, sizeof(fill));
	buf_printf(x, o, "<g class=\"f\" data-depth=\"%u\" data-x=\"%llu\" data-n=\"%llu\" ",
		   n->depth, (unsigned long long)n->x, (unsigned long long)n->count);
	if (diff)
		buf_printf(x, o, "data-a=\"%llu\" data-heat=\"%d\" ",
			   (unsigned long long)n->count_a, n->heat);
	buf_str(x, o, "data-name=\"");
	xml_str(x, o, n->name);
	buf_str(x, o, "\"><title>");
	fg_title(x, o, f, n, diff);
	buf_printf(x, o, "</title><rect x=\"%llu.%llu\" y=\"%u\" width=\"%llu.%llu\" height=\"%u\" "
		   "fill=\"%s\" data-fill=\"%s\"/><text x=\"%llu\" y=\"%u\"></text></g>\n",
		   (unsigned long long)(at / 10), (unsigned long long)(at % 10), y,
		   (unsigned long long)(w / 10), (unsigned long long)(w % 10), FG_FRAME - 1, fill,
		   fill, (unsigned long long)(at / 10 + 3), y + FG_FRAME - 4);
	buf_maybe_flush(x, o);
}

/* The script: zoom on click, details on hover, search (window.vprofSearch). */
static const char fg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"'use strict';\n"
	"var W = %u, PAD = %u;\n"
	"var nodes = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  return { g: g, r: g.querySelector('rect'), t: g.querySelector('text'),\n"
	"    x: +g.getAttribute('data-x'), n: +g.getAttribute('data-n'),\n"
	"    d: +g.getAttribute('data-depth'), name: g.getAttribute('data-name'),\n"
	"    title: g.querySelector('title').textContent };\n"
	"});\n"
	"var root = nodes[0], zoom = root;\n"
	"var details = document.getElementById('details');\n"
	"function share(n) { return (100 * n / root.n).toFixed(2) + '%%'; }\n"
	"function label(o, w) {\n"
	"  var chars = Math.floor((w - 6) / 7);\n"
	"  return chars < 3 ? '' : o.name.length <= chars ? o.name : o.name.slice(0, chars - 2) + '..';\n"
	"}\n"
	"function place() {\n"
	"  var scale = (W - 2 * PAD) / zoom.n;\n"
	"  nodes.forEach(function (o) {\n"
	"    var inside = o.d >= zoom.d && o.x >= zoom.x && o.x + o.n <= zoom.x + zoom.n;\n"
	"    var above = o.d < zoom.d && o.x <= zoom.x && o.x + o.n >= zoom.x + zoom.n;\n"
	"    o.g.style.display = inside || above ? '' : 'none';\n"
	"    if (!inside && !above) return;\n"
	"    var x = above ? PAD : PAD + (o.x - zoom.x) * scale, w = above ? W - 2 * PAD : o.n * scale;\n"
	"    o.r.setAttribute('x', x.toFixed(1));\n"
	"    o.r.setAttribute('width', w.toFixed(1));\n"
	"    o.t.setAttribute('x', (x + 3).toFixed(1));\n"
	"    o.t.textContent = label(o, w);\n"
	"  });\n"
	"}\n"
	"nodes.forEach(function (o) {\n"
	"  o.g.addEventListener('click', function () { zoom = o; place(); });\n"
	"  o.g.addEventListener('mouseover', function () { details.textContent = o.title; });\n"
	"  o.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"window.vprofSearch = function (term) {\n"
	"  var hits = nodes.filter(function (o) {\n"
	"    var hit = term !== '' && o.name.indexOf(term) >= 0;\n"
	"    o.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : o.r.getAttribute('data-fill'));\n"
	"    return hit;\n"
	"  });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
	"  var end = -1, n = 0;\n"
	"  hits.forEach(function (o) { if (o.x >= end) { n += o.n; end = o.x + o.n; } });\n"
	"  document.getElementById('matched').textContent =\n"
	"    term === '' ? ' ' : 'Matched: ' + share(n) + ' (' + n + ' samples)';\n"
	"  return n;\n"
	"};\n"
	"document.getElementById('search').addEventListener('input', function (e) {\n"
	"  window.vprofSearch(e.target.value);\n"
	"});\n"
	"document.getElementById('reset').addEventListener('click', function () {\n"
	"  zoom = root; place();\n"
	"});\n"
	"place();\n"
	"})();\n"
	"]]></script>\n";

/* The document's head: size, title, heading, search box, details line. */
static void fg_head(px_t *x, px_buf_t *o, const prof_flame_opts_t *fo, unsigned height)
{
	const char *title = fo->title ? fo->title : "vprof";

	buf_printf(x, o, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", FG_WIDTH, height, FG_WIDTH,
		   height);
	xml_str(x, o, title);
	buf_printf(x, o, " - vprof %sflame graph</title>\n<style>text { font-family: monospace; "
		   "font-size: 12px; } g.f text { pointer-events: none; } g.f:hover rect "
		   "{ stroke: black; stroke-width: 0.5; } #reset { cursor: pointer; }</style>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		   "<text x=\"%u\" y=\"20\" font-size=\"15\">", fo->diff ? "differential " : "",
		   FG_PAD);
	xml_str(x, o, title);
	if (fo->heading) {
		buf_str(x, o, ": ");
		xml_str(x, o, fo->heading);
	}
	buf_printf(x, o, "</text>\n<text id=\"reset\" x=\"%u\" y=\"44\">[reset zoom]</text>\n"
		   "<foreignObject x=\"%u\" y=\"28\" width=\"220\" height=\"24\">"
		   "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" "
		   "placeholder=\"search\" style=\"width: 200px\"/></foreignObject>\n"
		   "<text id=\"matched\" x=\"%u\" y=\"44\"> </text>\n"
		   "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", FG_PAD, FG_PAD + 120,
		   FG_PAD + 360, FG_PAD, height - 10);
}

errno_t prof_flame_write(prof_flame_t *f, const prof_flame_opts_t *fo,
			 const prof_export_out_t *out)
{
	px_t *x = &f->x;
	px_buf_t o = { 0 };
	unsigned height = FG_TOP + (f->maxdepth + 1) * FG_FRAME + FG_BOTTOM;

	x->out = out;
	if (!x->err && f->n[0].count == 0)
		return ENOENT;
	if (!x->err)
		fg_layout(f);
	if (!x->err)
		fg_head(x, &o, fo, height);
	for (size_t i = 0; i < f->count && !x->err; i++) {
		/* Frames narrower than 0.1 px are left out (as flamegraph.pl does). */
		if (fg_tenths(f->n[i].count, f->n[0].count) > 0)
			fg_node(f, &o, &f->n[i], fo->diff);
	}
	buf_printf(x, &o, fg_script, FG_WIDTH, FG_PAD);
	buf_str(x, &o, "</svg>\n");
	if (!x->err)
		buf_flush(x, &o);
	buf_free(x, &o);
	return x->err;
}

/* A frame's name and kind as the flame graph shows it, into x->line. */
static unsigned px_frame_label(px_t *x, const px_func_t *f)
{
	x->line.len = 0;
	buf_str(x, &x->line, f->name);
	if (!f->known && !f->kernel)
		buf_printf(x, &x->line, " (%s)", px_bin_base(x, f->bin));
	if (f->kernel)
		buf_str(x, &x->line, " [k]");
	return f->kernel ? PROF_FLAME_K_KERNEL : f->known ? PROF_FLAME_K_USER : PROF_FLAME_K_UNKNOWN;
}

/* A task's name as the flame graph shows it (NAME-ID when shared), into x->line. */
static void px_task_label(px_t *x, const px_task_t *t)
{
	x->line.len = 0;
	buf_str(x, &x->line, t->name);
	if (t->shared)
		buf_printf(x, &x->line, "-%llu", (unsigned long long)t->id);
}

/* Add the model's stacks to f under root, task, frames. */
static void px_flame_build(px_t *x, prof_flame_t *f)
{
	for (size_t i = 0; i < x->nstacks && !x->err && !f->x.err; i++) {
		const px_stack_t *s = &x->stacks[i];
		px_task_label(x, &x->tasks[s->task]);
		uint32_t at = x->line.err ? PROF_FLAME_NONE :
			prof_flame_child(f, PROF_FLAME_ROOT, (const char *)x->line.p, x->line.len,
					 PROF_FLAME_K_TASK);
		for (uint32_t j = 0; j < s->n && at != PROF_FLAME_NONE; j++) {
			unsigned kind = px_frame_label(x, &x->funcs[x->frames[s->first + j].func]);
			at = x->line.err ? PROF_FLAME_NONE :
				prof_flame_child(f, at, (const char *)x->line.p, x->line.len, kind);
		}
		if (at == PROF_FLAME_NONE)
			x->err = ENOMEM;
		else
			prof_flame_count(f, at, s->count, 0);
	}
}

static void px_svg(px_t *x)
{
	prof_flame_t *f;
	px_buf_t head = { 0 };

	if (prof_flame_new(x->env, &f) != EOK) {
		x->err = ENOMEM;
		return;
	}
	px_flame_build(x, f);
	buf_printf(x, &head, "%s at %u Hz on %u CPU%s, %llu samples, %llu lost%c",
		   prof_source_name(x->c.source), x->c.hz, x->c.ncpus, x->c.ncpus == 1 ? "" : "s",
		   (unsigned long long)x->total, (unsigned long long)x->c.lost, '\0');
	prof_flame_opts_t fo = { x->o->title, (const char *)head.p, false };
	if (!x->err && head.err)
		x->err = ENOMEM;
	if (!x->err)
		x->err = prof_flame_write(f, &fo, x->out);
	buf_free(x, &head);
	prof_flame_free(f);
}

/* ---------------------------------------------------------------- gmon */

/*
 * gprof's gmon.out, one per binary (the kernel too): the header ("gmon",
 * version 1), a histogram record of the sampled PCs in that binary over
 * the range of its sampled functions (bins of 2^shift >= 4 bytes, 16-bit
 * counts; when a bin would overflow, every bin is divided and the rate
 * with it), and a call-arc record per caller -> callee pair inside the
 * binary, counting the samples whose stack holds it.
 */
#define GM_BINS_MAX (1u << 22)
#define GM_SHIFT_MIN 2
#define GM_TAG_HIST 0
#define GM_TAG_ARC 1

typedef struct gm_range {
	uint64_t lo, hi;                /* sampled functions' starts .. last PC + 1 */
	unsigned shift;
} gm_range_t;

static void gm_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The range of binary bin's leaf samples; false when it has none. */
static bool gm_range(const px_t *x, uint32_t bin, gm_range_t *r)
{
	r->lo = UINT64_MAX;
	r->hi = 0;
	for (size_t i = 0; i < x->nstacks; i++) {
		const px_frame_t *fr = &x->frames[x->stacks[i].first + x->stacks[i].n - 1];
		const px_func_t *f = &x->funcs[fr->func];
		if (f->bin != bin)
			continue;
		r->lo = f->start < r->lo ? f->start : r->lo;
		r->lo = fr->addr < r->lo ? fr->addr : r->lo;
		r->hi = fr->addr >= r->hi ? fr->addr + 1 : r->hi;
	}
	/* gprof reads bins of at least 4 bytes (glibc's gmon writes such). */
	for (r->shift = GM_SHIFT_MIN; ((r->hi - r->lo) >> r->shift) >= GM_BINS_MAX; r->shift++)
		;
	r->lo &= ~(((uint64_t)1 << r->shift) - 1);
	return r->hi > 0;
}

/* The histogram record of binary bin over range r. */
static void gm_hist(px_t *x, px_buf_t *o, uint32_t bin, const gm_range_t *r)
{
	size_t nbins = (size_t)((r->hi - r->lo) >> r->shift) + 1;
	uint64_t *h = px_alloc(x, nbins * sizeof(uint64_t)), max = 0;
	unsigned char rec[1 + 8 + 8 + 4 + 4 + 15 + 1], c[2];

	if (!h)
		return;
	memset(h, 0, nbins * sizeof(uint64_t));
	for (size_t i = 0; i < x->nstacks; i++) {
		const px_frame_t *fr = &x->frames[x->stacks[i].first + x->stacks[i].n - 1];
		if (x->funcs[fr->func].bin != bin)
			continue;
		uint64_t *b = &h[(fr->addr - r->lo) >> r->shift];
		*b += x->stacks[i].count;
		max = *b > max ? *b : max;
	}
	uint64_t div = (max + 0xfffe) / 0xffff, rate = x->c.hz ? x->c.hz : 1;
	memset(rec, 0, sizeof(rec));
	rec[0] = GM_TAG_HIST;
	gm_le(rec + 1, r->lo, 8);
	gm_le(rec + 9, r->lo + ((uint64_t)nbins << r->shift), 8);
	gm_le(rec + 17, nbins, 4);
	gm_le(rec + 21, rate / div ? rate / div : 1, 4);
	memcpy(rec + 25, "seconds", 7);
	rec[40] = 's';
	buf_put(x, o, rec, sizeof(rec));
	for (size_t i = 0; i < nbins; i++) {
		gm_le(c, (h[i] + div / 2) / div, 2);
		buf_put(x, o, c, 2);
	}
	px_release(x, h);
}

/* The call-arc records of binary bin: (caller's call site, callee's start). */
static void gm_arcs(px_t *x, px_buf_t *o, uint32_t bin)
{
	px_map_t arcs = { 0 };
	unsigned char rec[1 + 8 + 8 + 4];
	bool added;

	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		const px_stack_t *s = &x->stacks[i];
		const px_frame_t *fr = &x->frames[s->first];
		for (uint32_t j = 0; j + 1 < s->n; j++) {
			const px_func_t *from = &x->funcs[fr[j].func], *to = &x->funcs[fr[j + 1].func];
			if (from->bin != bin || to->bin != bin || cg_deeper(fr, j, s->n))
				continue;
			uint64_t key[2] = { fr[j].addr, to->start };
			px_entry_t *e = map_get(x, &arcs, key, sizeof(key), &added);
			if (e)
				e->val += s->count;
		}
	}
	for (size_t i = 0; i < arcs.cap && !x->err; i++) {
		const px_entry_t *e = map_at(&arcs, i);
		if (!e)
			continue;
		uint64_t key[2];
		memcpy(key, e->key, sizeof(key));
		rec[0] = GM_TAG_ARC;
		gm_le(rec + 1, key[0], 8);
		gm_le(rec + 9, key[1], 8);
		gm_le(rec + 17, e->val > UINT32_MAX ? UINT32_MAX : e->val, 4);
		buf_put(x, o, rec, sizeof(rec));
	}
	map_free(x, &arcs);
}

static void px_gmon(px_t *x)
{
	static const unsigned char head[20] = { 'g', 'm', 'o', 'n', 1 };
	px_buf_t o = { 0 };
	gm_range_t r;

	if (!x->out->open) {
		x->err = EINVAL;
		return;
	}
	for (uint32_t b = 0; b < x->nbins && !x->err; b++) {
		if (!x->bins[b] || !gm_range(x, b, &r))
			continue;
		errno_t err = x->out->open(x->out->ctx, x->bins[b]);
		if (err != EOK) {
			x->err = err;
			break;
		}
		buf_put(x, &o, head, sizeof(head));
		gm_hist(x, &o, b, &r);
		gm_arcs(x, &o, b);
		buf_flush(x, &o);
	}
	buf_free(x, &o);
}

/* ---------------------------------------------------------------- entry */

static const char *const px_names[PROF_FMT_COUNT] = {
	[PROF_FMT_REPORT] = "report",
	[PROF_FMT_FOLDED] = "folded",
	[PROF_FMT_PPROF] = "pprof",
	[PROF_FMT_CALLGRIND] = "callgrind",
	[PROF_FMT_SPEEDSCOPE] = "speedscope",
	[PROF_FMT_SVG] = "svg",
	[PROF_FMT_GMON] = "gmon",
};

int prof_export_format(const char *name)
{
	for (int i = 0; i < PROF_FMT_COUNT; i++) {
		if (strcmp(name, px_names[i]) == 0)
			return i;
	}
	return -1;
}

const char *prof_export_name(unsigned format)
{
	return format < PROF_FMT_COUNT ? px_names[format] : "?";
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
	};
	px_t x;

	if (o->format >= PROF_FMT_COUNT || !writers[o->format])
		return EINVAL;
	memset(&x, 0, sizeof(x));
	x.env = env;
	x.o = o;
	x.out = out;
	errno_t err = prof_report_walk(r, o->kernel_path, px_collect, &x);
	if (err == EOK && x.err == EOK && x.nstacks == 0)
		err = ENOENT;
	if (err == EOK && x.err == EOK)
		writers[o->format](&x);
	if (err == EOK)
		err = x.err;
	px_free(&x);
	return err;
}
