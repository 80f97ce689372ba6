/*
 * The call profiler's report (lib/cprofreport.h): parsing a call profile
 * file, merging each table's parts by call path, printing.
 *
 * Parsing walks each table twice: once to check its parts' headers and
 * sizes and count its slots, once to copy the slots out. Merging gives
 * every slot the node of its path: a slot's parent chain is followed up
 * with an explicit stack until the top level, a slot already done, a bad
 * id or a slot already on the stack (a cycle); the chain then gets its
 * nodes top-down from a hash map keyed by (parent node, function). No
 * recursion anywhere; all memory from env.alloc.
 */
#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/cprofreport.h>
#include <lib/profexport.h>
#include <lib/string.h>

#include <stdarg.h>

#define PC_NONE UINT32_MAX              /* no node: the top level's parent */
#define PC_BAD (UINT32_MAX - 1)         /* a slot whose path is broken */
#define PC_PART_IDS (1u << (32 - CPROF_ID_SHIFT))
#define PC_HEX 20                       /* "0x" + 16 digits + NUL, rounded */

/* One call path of a table: its parts' slots merged. */
typedef struct pc_node {
	uint64_t fn;
	uint32_t parent;                /* node index, or PC_NONE at the top */
	uint32_t depth;                 /* 1 at the top */
	uint32_t order;                 /* its first slot in the file */
	uint32_t reserved;
	uint64_t calls, wall, oncpu;
} pc_node_t;

typedef struct pc_table {
	uint64_t task;
	char name[CPROF_NAME_MAX + 1];
	char path[CPROF_PATH_MAX + 1];
	uint64_t hash;
	uint32_t nparts, err;
	uint64_t lost_stack, lost_table, mismatch;
	uint64_t bad;                   /* slots left out: bad or cyclic parent */
	pc_node_t *nodes;
	uint32_t nnodes;
	uint32_t bin;                   /* index in bins, or PC_NONE */
} pc_table_t;

struct cprofreport {
	prof_env_t env;
	uint64_t tsc_hz;
	uint32_t dropped;               /* exited processes' tables the kernel dropped */
	pc_table_t *tables;
	uint32_t ntables;
	profbin_t *bins;
	uint32_t nbins;
};

/* A slot as read from the file. */
typedef struct pc_slot {
	uint64_t fn;
	uint32_t parent;
	uint32_t reserved;
	uint64_t calls, wall, oncpu;
} pc_slot_t;

/* A part as seen in the first walk. */
typedef struct pc_part {
	uint32_t id, used, start;       /* start: its first slot's index */
} pc_part_t;

/* Reading the file: what is left of it, and where the reason goes. */
typedef struct pc_cursor {
	const unsigned char *p;
	size_t left;
	char *why;
	size_t whylen;
} pc_cursor_t;

/* ---------------------------------------------------------------- memory */

static void *pc_alloc(const cprofreport_t *pc, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	return pc->env.alloc(pc->env.ctx, bytes ? bytes : 1);
}

static void pc_release(const cprofreport_t *pc, void *p)
{
	if (p)
		pc->env.release(pc->env.ctx, p);
}

/* ---------------------------------------------------------------- reading */

/* Say why the file is malformed (into c->why). EINVAL. */
static __attribute__((format(printf, 2, 3)))
errno_t pc_bad(pc_cursor_t *c, const char *fmt, ...)
{
	va_list ap;

	if (c->why && c->whylen) {
		va_start(ap, fmt);
		fmt_vsnprintf(c->why, c->whylen, fmt, ap);
		va_end(ap);
	}
	return EINVAL;
}

/* Copy n bytes from the cursor into dst; false if fewer are left. */
static bool pc_take(pc_cursor_t *c, void *dst, size_t n)
{
	if (c->left < n)
		return false;
	if (dst)
		memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

static errno_t pc_file_header(cprofreport_t *pc, pc_cursor_t *c)
{
	cprof_file_hdr_t h;

	if (!pc_take(c, &h, sizeof(h)))
		return pc_bad(c, "too short (%llu bytes)", (unsigned long long)c->left);
	if (memcmp(h.magic, CPROF_FILE_MAGIC, sizeof(h.magic)) != 0)
		return pc_bad(c, "bad magic");
	if (h.version != CPROF_VERSION)
		return pc_bad(c, "version %u, not %u", h.version, CPROF_VERSION);
	if (h.tsc_hz == 0 || h.tsc_hz > CPROFREPORT_HZ_MAX)
		return pc_bad(c, "bad TSC frequency (%llu Hz)", (unsigned long long)h.tsc_hz);
	if (h.ntables > c->left / sizeof(cprof_table_hdr_t))
		return pc_bad(c, "%u tables do not fit in the file", h.ntables);
	pc->tsc_hz = h.tsc_hz;
	pc->dropped = h.dropped;
	pc->tables = pc_alloc(pc, h.ntables, sizeof(pc_table_t));
	if (!pc->tables)
		return ENOMEM;
	memset(pc->tables, 0, (size_t)h.ntables * sizeof(pc_table_t));
	pc->ntables = h.ntables;
	return EOK;
}

static errno_t pc_table_header(pc_cursor_t *c, pc_table_t *t, uint32_t ti)
{
	cprof_table_hdr_t h;

	if (!pc_take(c, &h, sizeof(h)))
		return pc_bad(c, "table %u: truncated header", ti);
	t->task = h.task;
	t->hash = h.hash;
	t->nparts = h.nparts;
	memcpy(t->name, h.name, CPROF_NAME_MAX);
	t->name[CPROF_NAME_MAX] = '\0';
	memcpy(t->path, h.path, CPROF_PATH_MAX);
	t->path[CPROF_PATH_MAX] = '\0';
	t->bin = PC_NONE;
	if (h.nparts > c->left / sizeof(cprof_part_hdr_t) || h.nparts > PC_PART_IDS)
		return pc_bad(c, "table %u: %u parts do not fit in the file", ti, h.nparts);
	return EOK;
}

/* Check part pi's header h (read from c) and skip its slots. */
static errno_t pc_part_check(pc_cursor_t *c, const cprof_part_hdr_t *h,
			     const uint32_t *map, uint32_t ti, uint32_t pi)
{
	if (h->magic != CPROF_PART_MAGIC)
		return pc_bad(c, "table %u part %u: bad magic", ti, pi);
	if (h->id >= PC_PART_IDS)
		return pc_bad(c, "table %u part %u: id %u out of range", ti, pi, h->id);
	if (map[h->id] != PC_NONE)
		return pc_bad(c, "table %u: two parts with id %u", ti, h->id);
	if (h->used > h->nslots || h->used > CPROF_INDEX_MASK + 1)
		return pc_bad(c, "table %u part %u: %u slots used of %u", ti, pi,
			      h->used, h->nslots);
	if (!pc_take(c, NULL, (size_t)h->used * sizeof(cprof_slot_t)))
		return pc_bad(c, "table %u part %u: truncated slots", ti, pi);
	return EOK;
}

/*
 * First walk over a table's parts: check them, fill parts[] and map[]
 * (part id -> index), sum their counters into t. *nslots: their slots.
 */
static errno_t pc_walk_parts(pc_cursor_t *c, pc_table_t *t, uint32_t ti,
			     pc_part_t *parts, uint32_t *map, uint32_t *nslots)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < t->nparts; i++) {
		cprof_part_hdr_t h;
		if (!pc_take(c, &h, sizeof(h)))
			return pc_bad(c, "table %u part %u: truncated header", ti, i);
		errno_t err = pc_part_check(c, &h, map, ti, i);
		if (err != EOK)
			return err;
		map[h.id] = i;
		parts[i] = (pc_part_t){ h.id, h.used, (uint32_t)total };
		total += h.used;
		if (total > UINT32_MAX / 4)
			return pc_bad(c, "table %u: too many slots", ti);
		t->err |= h.err;
		t->lost_stack += h.lost_stack;
		t->lost_table += h.lost_table;
		t->mismatch += h.mismatch;
	}
	*nslots = (uint32_t)total;
	return EOK;
}

/* Second walk (checked by the first): copy the slots out. */
static void pc_copy_slots(pc_cursor_t *c, const pc_table_t *t, pc_slot_t *slots)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->nparts; i++) {
		cprof_part_hdr_t h;
		pc_take(c, &h, sizeof(h));
		for (uint32_t j = 0; j < h.used; j++, n++) {
			cprof_slot_t s;
			pc_take(c, &s, sizeof(s));
			slots[n] = (pc_slot_t){ s.fn, s.parent, 0, s.calls, s.wall, s.oncpu };
		}
	}
}

/* ---------------------------------------------------------------- merging */

typedef struct pc_merge {
	pc_table_t *t;
	const pc_slot_t *slots;
	uint32_t n;
	const pc_part_t *parts;
	const uint32_t *map;            /* part id -> part index, PC_NONE */
	uint32_t *node;                 /* per slot: its node, or PC_BAD */
	uint8_t *state;                 /* per slot: 0 new, 1 on the stack, 2 done */
	uint32_t *stack;
	uint32_t *hash;                 /* node indices, PC_NONE empty */
	uint32_t hmask;
} pc_merge_t;

/* The slot index of s's parent; PC_NONE at the top level, PC_BAD for a bad id. */
static uint32_t pc_parent_slot(const pc_merge_t *m, uint32_t s)
{
	uint32_t id = m->slots[s].parent;

	if (id == CPROF_ROOT)
		return PC_NONE;
	if (id == CPROF_NONE)
		return PC_BAD;
	uint32_t pi = m->map[id >> CPROF_ID_SHIFT], index = id & CPROF_INDEX_MASK;
	if (pi == PC_NONE || index >= m->parts[pi].used)
		return PC_BAD;
	return m->parts[pi].start + index;
}

/* The node of path (parent node, fn), added when new; slot s is on it. */
static uint32_t pc_node(pc_merge_t *m, uint32_t parent, uint64_t fn, uint32_t s)
{
	pc_table_t *t = m->t;
	uint64_t x = fn * 0x9e3779b97f4a7c15ull ^ (uint64_t)parent * 0xc2b2ae3d27d4eb4full;

	for (uint32_t i = (uint32_t)(x >> 32) & m->hmask;; i = (i + 1) & m->hmask) {
		uint32_t e = m->hash[i];
		if (e != PC_NONE && t->nodes[e].fn == fn && t->nodes[e].parent == parent) {
			if (s < t->nodes[e].order)
				t->nodes[e].order = s;
			return e;
		}
		if (e != PC_NONE)
			continue;
		pc_node_t *nd = &t->nodes[t->nnodes];
		memset(nd, 0, sizeof(*nd));
		nd->fn = fn;
		nd->parent = parent;
		nd->depth = parent == PC_NONE ? 1 : t->nodes[parent].depth + 1;
		nd->order = s;
		m->hash[i] = t->nnodes;
		return t->nnodes++;
	}
}

/* Give slot s and its unresolved ancestors their nodes (or PC_BAD). */
static void pc_resolve(pc_merge_t *m, uint32_t s)
{
	uint32_t top = 0, base, cur = s;

	for (;;) {
		m->state[cur] = 1;
		m->stack[top++] = cur;
		uint32_t p = pc_parent_slot(m, cur);
		if (p == PC_NONE || p == PC_BAD) {
			base = p;
			break;
		}
		if (m->state[p] != 0) {         /* done, or on the stack: a cycle */
			base = m->state[p] == 2 ? m->node[p] : PC_BAD;
			break;
		}
		cur = p;
	}
	while (top > 0) {
		cur = m->stack[--top];
		m->state[cur] = 2;
		if (base == PC_BAD) {
			m->node[cur] = PC_BAD;
			m->t->bad++;
			continue;
		}
		const pc_slot_t *sl = &m->slots[cur];
		base = m->node[cur] = pc_node(m, base, sl->fn, cur);
		m->t->nodes[base].calls += sl->calls;
		m->t->nodes[base].wall += sl->wall;
		m->t->nodes[base].oncpu += sl->oncpu;
	}
}

/* Merge n slots into t->nodes. EOK or ENOMEM. */
static errno_t pc_merge(cprofreport_t *pc, pc_table_t *t, const pc_slot_t *slots, uint32_t n,
			const pc_part_t *parts, const uint32_t *map)
{
	pc_merge_t m = { t, slots, n, parts, map, NULL, NULL, NULL, NULL, 0 };
	uint32_t cap = 2;
	errno_t err = ENOMEM;

	while (cap < 2 * n)
		cap *= 2;
	m.hmask = cap - 1;
	t->nodes = pc_alloc(pc, n, sizeof(pc_node_t));
	m.node = pc_alloc(pc, n, sizeof(uint32_t));
	m.state = pc_alloc(pc, n, 1);
	m.stack = pc_alloc(pc, n, sizeof(uint32_t));
	m.hash = pc_alloc(pc, cap, sizeof(uint32_t));
	if (t->nodes && m.node && m.state && m.stack && m.hash) {
		memset(m.state, 0, n);
		memset(m.hash, 0xff, (size_t)cap * sizeof(uint32_t));
		for (uint32_t s = 0; s < n; s++)
			if (m.state[s] == 0)
				pc_resolve(&m, s);
		err = EOK;
	}
	pc_release(pc, m.node);
	pc_release(pc, m.state);
	pc_release(pc, m.stack);
	pc_release(pc, m.hash);
	return err;
}

/* Read table ti's parts (c at its first part) and merge them. */
static errno_t pc_table(cprofreport_t *pc, pc_cursor_t *c, pc_table_t *t, uint32_t ti)
{
	pc_part_t *parts = pc_alloc(pc, t->nparts, sizeof(pc_part_t));
	uint32_t *map = pc_alloc(pc, PC_PART_IDS, sizeof(uint32_t));
	pc_slot_t *slots = NULL;
	pc_cursor_t start = *c;
	uint32_t n = 0;
	errno_t err = ENOMEM;

	if (parts && map) {
		memset(map, 0xff, PC_PART_IDS * sizeof(uint32_t));
		err = pc_walk_parts(c, t, ti, parts, map, &n);
	}
	if (err == EOK) {
		slots = pc_alloc(pc, n, sizeof(pc_slot_t));
		err = slots ? EOK : ENOMEM;
	}
	if (err == EOK) {
		pc_copy_slots(&start, t, slots);
		err = pc_merge(pc, t, slots, n, parts, map);
	}
	pc_release(pc, slots);
	pc_release(pc, map);
	pc_release(pc, parts);
	return err;
}

/* The binary of table t (path and hash), added when new; PC_NONE without one. */
static uint32_t pc_bin(cprofreport_t *pc, const pc_table_t *t)
{
	size_t len = strlen(t->path);

	if (len == 0)
		return PC_NONE;
	for (uint32_t i = 0; i < pc->nbins; i++) {
		if (pc->bins[i].hash == t->hash && strcmp(pc->bins[i].path, t->path) == 0)
			return i;
	}
	profbin_t *b = &pc->bins[pc->nbins];     /* room for one per table */
	memset(b, 0, sizeof(*b));
	b->path = pc_alloc(pc, len + 1, 1);
	if (!b->path)
		return PC_NONE;
	memcpy(b->path, t->path, len + 1);
	b->hash = t->hash;
	return pc->nbins++;
}

static errno_t pc_parse(cprofreport_t *pc, pc_cursor_t *c)
{
	errno_t err = pc_file_header(pc, c);

	if (err != EOK)
		return err;
	pc->bins = pc_alloc(pc, pc->ntables, sizeof(profbin_t));
	if (!pc->bins)
		return ENOMEM;
	for (uint32_t i = 0; i < pc->ntables; i++) {
		pc_table_t *t = &pc->tables[i];
		err = pc_table_header(c, t, i);
		if (err == EOK)
			err = pc_table(pc, c, t, i);
		if (err != EOK)
			return err;
		t->bin = pc_bin(pc, t);
	}
	if (c->left != 0)
		return pc_bad(c, "%llu bytes after the last table", (unsigned long long)c->left);
	return EOK;
}

errno_t cprofreport_parse(const prof_env_t *env, const void *data, size_t size,
		       cprofreport_t **out, char *why, size_t whylen)
{
	pc_cursor_t c = { data, size, why, whylen };
	cprofreport_t *pc = env->alloc(env->ctx, sizeof(*pc));

	if (why && whylen)
		why[0] = '\0';
	*out = NULL;
	if (!pc)
		return ENOMEM;
	memset(pc, 0, sizeof(*pc));
	pc->env = *env;
	errno_t err = pc_parse(pc, &c);
	if (err != EOK) {
		if (err == ENOMEM && why && whylen)
			fmt_snprintf(why, whylen, "out of memory");
		cprofreport_free(pc);
		return err;
	}
	*out = pc;
	return EOK;
}

size_t cprofreport_tables(const cprofreport_t *pc)
{
	return pc->ntables;
}

void cprofreport_free(cprofreport_t *pc)
{
	if (!pc)
		return;
	for (uint32_t i = 0; i < pc->ntables; i++)
		pc_release(pc, pc->tables[i].nodes);
	for (uint32_t i = 0; i < pc->nbins; i++)
		profbin_free(&pc->env, &pc->bins[i]);
	pc_release(pc, pc->bins);
	pc_release(pc, pc->tables);
	pc->env.release(pc->env.ctx, pc);
}

/* ---------------------------------------------------------------- printing */

/* Print-time state of one table: its items (paths, or functions with -f). */
typedef struct pc_print {
	cprofreport_t *pc;
	const cprofreport_opts_t *o;
	const pc_table_t *t;
	pc_node_t *items;
	uint32_t n;
	bool tree;
	const char **names;             /* per item: its function's name */
	char *hex;                      /* PC_HEX bytes per item: unknown names */
	uint32_t *idx;                  /* items in print order */
	uint32_t *path;                 /* a path's nodes, top first (n + 2) */
	uint32_t *rank;                 /* per item: its place in the tree */
	uint32_t *work;                 /* n entries for pc_rank */
	pc_node_t *rows;                /* -f: one item per function */
} pc_print_t;

static __attribute__((format(printf, 2, 3)))
void pc_printf(const cprofreport_t *pc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(pc->env.out, pc->env.ctx, fmt, ap);
	va_end(ap);
}

void cprofreport_notes(const prof_env_t *env)
{
	static const char notes[] =
		"Notes:\n"
		"- Calls attributed to a path are calls done on that call level.\n"
		"    For instance: a() is called once and calls b() twice. Call path \"a\" is\n"
		"    attributed 1 call, call path \"a b\" is attributed 2 calls.\n"
		"- Time attributed to a path is time spent on that call level (self time).\n"
		"    For instance: a() spends 10 ms in its own body and calls b() which\n"
		"    spends 5 ms in its body. Call path \"a\" is attributed 10 ms,\n"
		"    call path \"a b\" is attributed 5 ms.\n"
		"- \"wall ms\" includes time spent blocking (switched out); \"cpu ms\"\n"
		"    excludes the time the thread was switched out.\n"
		"- Time is attributed when a function exits. Calls that have not returned\n"
		"    yet are therefore not measured: main functions show 0 ms.\n"
		"- After a reset (cprof reset), a process clears its table when it next\n"
		"    enters a function. A blocked process may do so late, or not at all.\n"
		"- Time is in milliseconds, from the TSC frequency recorded in the file.\n";

	env->out(env->ctx, notes, sizeof(notes) - 1);
}

/* "NAME (task ID" of t: its name, "kernel" for task 0, else "?". */
static void pc_label(const cprofreport_t *pc, const pc_table_t *t)
{
	const char *name = t->name[0] ? t->name : t->task == 0 ? "kernel" : "?";

	pc_printf(pc, "%s (task %llu", name, (unsigned long long)t->task);
}

static void pc_warn(const pc_print_t *pp, const char *what, uint64_t n, const char *tail)
{
	pc_printf(pp->pc, "warning: ");
	pc_label(pp->pc, pp->t);
	pc_printf(pp->pc, "): %s%llu%s\n", what, (unsigned long long)n, tail);
}

static void pc_warnings(const pc_print_t *pp)
{
	const pc_table_t *t = pp->t;

	if (t->err & CPROF_ERR_STACK || t->lost_stack)
		pc_warn(pp, "call stack overrun: ", t->lost_stack, " calls not recorded");
	if (t->err & CPROF_ERR_TABLE || t->lost_table)
		pc_warn(pp, "table full: ", t->lost_table, " calls not recorded");
	if (t->err & CPROF_ERR_PATH || t->mismatch)
		pc_warn(pp, "", t->mismatch, " exits without their entry");
	if (t->bad)
		pc_warn(pp, "", t->bad,
			" call paths left out: their caller's path is missing or bad");
	const profbin_t *b = t->bin == PC_NONE ? NULL : &pp->pc->bins[t->bin];
	if (b && b->stale) {
		pc_printf(pp->pc, "warning: ");
		pc_label(pp->pc, t);
		pc_printf(pp->pc, "): %s is not the file profiled (hash differs)\n", b->path);
	}
	if (!b || !b->ok) {
		pc_printf(pp->pc, "warning: ");
		pc_label(pp->pc, t);
		pc_printf(pp->pc, "): %s%s: addresses in hex\n",
			  b ? "no symbols for " : "no binary path", b ? b->path : "");
	}
}

/* The function rows of -f: nodes summed by function address. */
static errno_t pc_functions(pc_print_t *pp)
{
	const pc_table_t *t = pp->t;
	uint32_t cap = 2, n = 0;

	while (cap < 2 * t->nnodes)
		cap *= 2;
	uint32_t *hash = pc_alloc(pp->pc, cap, sizeof(uint32_t));
	pp->rows = pc_alloc(pp->pc, t->nnodes, sizeof(pc_node_t));
	if (!hash || !pp->rows) {
		pc_release(pp->pc, hash);
		return ENOMEM;
	}
	memset(hash, 0xff, (size_t)cap * sizeof(uint32_t));
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const pc_node_t *nd = &t->nodes[i];
		uint32_t h = (uint32_t)((nd->fn * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
		while (hash[h] != PC_NONE && pp->rows[hash[h]].fn != nd->fn)
			h = (h + 1) & (cap - 1);
		if (hash[h] == PC_NONE) {
			hash[h] = n;
			pp->rows[n++] = (pc_node_t){ .fn = nd->fn, .parent = PC_NONE,
						     .depth = 1, .order = nd->order };
		}
		pc_node_t *r = &pp->rows[hash[h]];
		r->calls += nd->calls;
		r->wall += nd->wall;
		r->oncpu += nd->oncpu;
		if (nd->order < r->order)
			r->order = nd->order;
	}
	pc_release(pp->pc, hash);
	pp->items = pp->rows;
	pp->n = n;
	return EOK;
}

/*
 * Names of the items: the symbol starting at the function's address in
 * the table's binary (the hooks get functions' own addresses), else hex.
 */
static void pc_names(pc_print_t *pp)
{
	profbin_t *b = pp->t->bin == PC_NONE ? NULL : &pp->pc->bins[pp->t->bin];

	for (uint32_t i = 0; i < pp->n; i++) {
		uint64_t off = 0;
		const char *name = b ? profbin_lookup(&pp->pc->env, b, pp->items[i].fn, &off)
				     : NULL;
		if (!name || off != 0) {
			char *h = pp->hex + (size_t)i * PC_HEX;
			fmt_snprintf(h, PC_HEX, "0x%llx", (unsigned long long)pp->items[i].fn);
			name = h;
		}
		pp->names[i] = name;
	}
}

/*
 * Siblings x and y in -a order (name, then address) or -o order (file):
 * the tree of -o is the file's order among each path's callees.
 */
static int pc_sibling_cmp(const pc_print_t *pp, uint32_t x, uint32_t y)
{
	const pc_node_t *a = &pp->items[x], *b = &pp->items[y];

	if (pp->o->sort == CPROFREPORT_SORT_FILE)
		return a->order < b->order ? -1 : a->order > b->order;
	int c = strcmp(pp->names[x], pp->names[y]);
	if (c != 0)
		return c;
	return a->fn < b->fn ? -1 : a->fn > b->fn;
}

typedef int (*pc_cmp_t)(const pc_print_t *pp, uint32_t x, uint32_t y);

static int pc_cmp(const pc_print_t *pp, uint32_t x, uint32_t y)
{
	const pc_node_t *a = &pp->items[x], *b = &pp->items[y];

	if (pp->o->sort == CPROFREPORT_SORT_CALLS && a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (pp->o->sort == CPROFREPORT_SORT_TIME && a->wall != b->wall)
		return a->wall > b->wall ? -1 : 1;
	if (pp->o->sort == CPROFREPORT_SORT_FILE && !pp->tree)
		return a->order < b->order ? -1 : a->order > b->order;
	/* The tree's order: each path right after its caller. */
	return pp->rank[x] < pp->rank[y] ? -1 : pp->rank[x] > pp->rank[y];
}

/* What pc_idx_cmp compares by. */
typedef struct pc_sortctx {
	const pc_print_t *pp;
	pc_cmp_t cmp;
} pc_sortctx_t;

/* prof_sort's comparison of two item indices. */
static int pc_idx_cmp(const void *a, const void *b, void *ctx)
{
	const pc_sortctx_t *c = ctx;

	return c->cmp(c->pp, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* Heapsort the n item indices at v by cmp (no recursion, no allocation). */
static void pc_heapsort(const pc_print_t *pp, uint32_t *v, size_t n, pc_cmp_t cmp)
{
	pc_sortctx_t c = { pp, cmp };

	prof_sort(v, n, sizeof(*v), pc_idx_cmp, &c);
}

/*
 * Each item's place in the tree (pp->rank): callees grouped under their
 * callers (group g: the callees of node g - 1, group 0 the top level;
 * first[] n + 2 entries, kids[] and stack[] n), each group sorted, then
 * walked depth first with an explicit stack.
 */
static void pc_rank(const pc_print_t *pp, uint32_t *first, uint32_t *kids, uint32_t *stack)
{
	uint32_t n = pp->n, k = 0, top = 0;

	memset(first, 0, ((size_t)n + 2) * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		first[pp->items[i].parent + 2]++;  /* PC_NONE + 2 wraps to 1 */
	for (uint32_t g = 1; g <= n + 1; g++)
		first[g] += first[g - 1];
	for (uint32_t i = 0; i < n; i++)
		kids[first[pp->items[i].parent + 1]++] = i;
	/* Now group g is kids[g ? first[g - 1] : 0 .. first[g]). */
	for (uint32_t g = 0; g <= n; g++) {
		uint32_t lo = g ? first[g - 1] : 0;
		pc_heapsort(pp, kids + lo, first[g] - lo, pc_sibling_cmp);
	}
	for (uint32_t j = first[0]; j-- > 0;)
		stack[top++] = kids[j];
	while (top > 0) {
		uint32_t x = stack[--top];
		pp->rank[x] = k++;
		for (uint32_t j = first[x + 1]; j-- > first[x];)
			stack[top++] = kids[j];
	}
}

/* pp->idx: the items in print order. */
static void pc_sort(const pc_print_t *pp)
{
	for (uint32_t i = 0; i < pp->n; i++)
		pp->idx[i] = i;
	pc_heapsort(pp, pp->idx, pp->n, pc_cmp);
}

/* cycles as milliseconds "M.CC" (rounded to hundredths) into buf. */
static void pc_ms(const cprofreport_t *pc, uint64_t cycles, char *buf, size_t size)
{
	uint64_t hz = pc->tsc_hz, q = cycles / hz, r = cycles % hz;
	uint64_t centi = q * 100000 + (r * 100000 + hz / 2) / hz;

	fmt_snprintf(buf, size, "%llu.%02u", (unsigned long long)(centi / 100),
		     (unsigned)(centi % 100));
}

static void pc_spaces(const cprofreport_t *pc, uint64_t n)
{
	static const char sp[] = "                                ";

	for (; n > 0; n -= n < sizeof(sp) - 1 ? n : sizeof(sp) - 1)
		pc->env.out(pc->env.ctx, sp, n < sizeof(sp) - 1 ? n : sizeof(sp) - 1);
}

/* Item i's path: the tree's last function indented, or every function. */
static void pc_path(const pc_print_t *pp, uint32_t i)
{
	const pc_node_t *nd = pp->items;
	uint32_t n = 0;

	if (pp->tree) {
		pc_spaces(pp->pc, 2 * (uint64_t)(nd[i].depth - 1));
		pc_printf(pp->pc, "%s", pp->names[i]);
		return;
	}
	for (uint32_t a = i; a != PC_NONE; a = nd[a].parent)
		pp->path[n++] = a;
	while (n-- > 0)
		pc_printf(pp->pc, "%s%s", pp->names[pp->path[n]], n ? " " : "");
}

static void pc_line(const pc_print_t *pp, uint32_t i)
{
	const pc_node_t *nd = &pp->items[i];
	char wall[32], cpu[32];

	pc_ms(pp->pc, nd->wall, wall, sizeof(wall));
	pc_ms(pp->pc, nd->oncpu, cpu, sizeof(cpu));
	pc_printf(pp->pc, "%9llu %10s %10s  ", (unsigned long long)nd->calls, wall, cpu);
	pc_path(pp, i);
	pc_printf(pp->pc, "\n");
}

static void pc_body(pc_print_t *pp)
{
	const pc_table_t *t = pp->t;
	uint64_t lines = pp->o->max_lines && pp->o->max_lines < pp->n ? pp->o->max_lines : pp->n;

	pc_names(pp);            /* loads the binary: its warnings come next */
	pc_rank(pp, pp->path, pp->idx, pp->work);
	pc_sort(pp);
	pc_label(pp->pc, t);
	pc_printf(pp->pc, ", %s): %u part%s, %u %s%s\n", t->path[0] ? t->path : "(no path)",
		  t->nparts, t->nparts == 1 ? "" : "s", pp->n,
		  pp->o->functions ? "function" : "call path", pp->n == 1 ? "" : "s");
	pc_warnings(pp);
	pc_printf(pp->pc, "    calls    wall ms     cpu ms  %s\n",
		  pp->o->functions ? "function" : "path");
	for (uint64_t k = 0; k < lines; k++)
		pc_line(pp, pp->idx[k]);
}

static errno_t pc_print_table(cprofreport_t *pc, const cprofreport_opts_t *o, const pc_table_t *t)
{
	pc_print_t pp = { pc, o, t, t->nodes, t->nnodes, false, NULL, NULL, NULL, NULL, NULL,
			  NULL, NULL };
	errno_t err = o->functions ? pc_functions(&pp) : EOK;

	pp.tree = !o->functions && !o->full_paths &&
		  (o->sort == CPROFREPORT_SORT_ALPHA || o->sort == CPROFREPORT_SORT_FILE);
	if (err == EOK) {
		pp.names = pc_alloc(pc, pp.n, sizeof(char *));
		pp.hex = pc_alloc(pc, pp.n, PC_HEX);
		pp.idx = pc_alloc(pc, pp.n, sizeof(uint32_t));
		pp.path = pc_alloc(pc, (size_t)pp.n + 2, sizeof(uint32_t));
		pp.rank = pc_alloc(pc, pp.n, sizeof(uint32_t));
		pp.work = pc_alloc(pc, pp.n, sizeof(uint32_t));
		err = pp.names && pp.hex && pp.idx && pp.path && pp.rank && pp.work ? EOK : ENOMEM;
	}
	if (err == EOK)
		pc_body(&pp);
	pc_release(pc, pp.names);
	pc_release(pc, pp.hex);
	pc_release(pc, pp.idx);
	pc_release(pc, pp.path);
	pc_release(pc, pp.rank);
	pc_release(pc, pp.work);
	pc_release(pc, pp.rows);
	return err;
}

errno_t cprofreport_print(cprofreport_t *pc, const cprofreport_opts_t *o)
{
	if (pc->dropped)
		pc_printf(pc, "warning: the tables of %u exited processes were dropped "
			  "(the kernel keeps 4 MiB of them)\n", pc->dropped);
	for (uint32_t i = 0; i < pc->ntables; i++) {
		pc_printf(pc, "\n");
		errno_t err = pc_print_table(pc, o, &pc->tables[i]);
		if (err != EOK)
			return err;
	}
	return EOK;
}

/* ---------------------------------------------------------------- export */

/*
 * Nodes are made top-down (a path before its callees: pc_resolve), so a
 * pass from the last node to the first sums each path's inclusive cycles
 * into its caller's.
 */
static void pc_inclusive(const pc_table_t *t, uint64_t *wall, uint64_t *cpu)
{
	for (uint32_t i = 0; i < t->nnodes; i++) {
		wall[i] = t->nodes[i].wall;
		cpu[i] = t->nodes[i].oncpu;
	}
	for (uint32_t i = t->nnodes; i-- > 0;) {
		uint32_t p = t->nodes[i].parent;
		if (p != PC_NONE && p < i) {
			wall[p] += wall[i];
			cpu[p] += cpu[i];
		}
	}
}

static const char *pc_k(const pc_table_t *t)
{
	return t->task == 0 ? " [k]" : "";
}

/* Nodes by function address (then index). */
static int pc_fn_cmp(const pc_print_t *pp, uint32_t x, uint32_t y)
{
	uint64_t a = pp->items[x].fn, b = pp->items[y].fn;

	return a != b ? (a < b ? -1 : 1) : (x < y ? -1 : x > y);
}

/* Nodes with a caller by their caller's function address (then index). */
static int pc_caller_cmp(const pc_print_t *pp, uint32_t x, uint32_t y)
{
	uint64_t a = pp->items[pp->items[x].parent].fn, b = pp->items[pp->items[y].parent].fn;

	return a != b ? (a < b ? -1 : 1) : (x < y ? -1 : x > y);
}

/*
 * The callgrind blocks of one table: per function its self cost, then a
 * cfn= per path it calls (calls and that path's inclusive cost). by_fn:
 * the nodes sorted by function; by_caller (nc of them): the nodes with a
 * caller, sorted by the caller's function.
 */
static void pc_cg_table(pc_print_t *pp, const uint64_t *iw, const uint64_t *ic,
			const uint32_t *by_fn, const uint32_t *by_caller, uint32_t nc)
{
	const pc_table_t *t = pp->t;
	const char *ob = t->path[0] ? t->path : "???";
	uint32_t c = 0;

	for (uint32_t g = 0; g < t->nnodes;) {
		uint64_t fn = t->nodes[by_fn[g]].fn, sw = 0, sc = 0;
		uint32_t first = by_fn[g];
		for (; g < t->nnodes && t->nodes[by_fn[g]].fn == fn; g++) {
			sw += t->nodes[by_fn[g]].wall;
			sc += t->nodes[by_fn[g]].oncpu;
		}
		pc_printf(pp->pc, "\nob=%s\nfl=???\nfn=%s%s\n0 %llu %llu\n", ob, pp->names[first],
			  pc_k(t), (unsigned long long)sw, (unsigned long long)sc);
		while (c < nc && t->nodes[t->nodes[by_caller[c]].parent].fn < fn)
			c++;
		for (; c < nc && t->nodes[t->nodes[by_caller[c]].parent].fn == fn; c++) {
			uint32_t i = by_caller[c];
			pc_printf(pp->pc, "cfn=%s%s\ncalls=%llu 0\n0 %llu %llu\n", pp->names[i],
				  pc_k(t), (unsigned long long)t->nodes[i].calls,
				  (unsigned long long)iw[i], (unsigned long long)ic[i]);
		}
	}
}

/* One folded line per path with self wall time: task;top;...;fn cycles. */
static void pc_folded_table(pc_print_t *pp)
{
	const pc_table_t *t = pp->t;
	const char *task = t->name[0] ? t->name : t->task == 0 ? "kernel" : "?";

	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint32_t n = 0;
		if (t->nodes[i].wall == 0)
			continue;
		for (uint32_t a = i; a != PC_NONE && n < t->nnodes; a = t->nodes[a].parent)
			pp->path[n++] = a;
		pc_printf(pp->pc, "%s-%llu", task, (unsigned long long)t->task);
		while (n-- > 0)
			pc_printf(pp->pc, ";%s%s", pp->names[pp->path[n]], t->task == 0 ? "_[k]" : "");
		pc_printf(pp->pc, " %llu\n", (unsigned long long)t->nodes[i].wall);
	}
}

static errno_t pc_export_table(cprofreport_t *pc, const pc_table_t *t, unsigned format)
{
	static const cprofreport_opts_t o = { 0 };
	pc_print_t pp = { pc, &o, t, t->nodes, t->nnodes, false, NULL, NULL, NULL, NULL, NULL,
			  NULL, NULL };
	uint64_t *iw = pc_alloc(pc, t->nnodes, sizeof(uint64_t));
	uint64_t *ic = pc_alloc(pc, t->nnodes, sizeof(uint64_t));

	pp.names = pc_alloc(pc, pp.n, sizeof(char *));
	pp.hex = pc_alloc(pc, pp.n, PC_HEX);
	pp.path = pc_alloc(pc, (size_t)pp.n + 2, sizeof(uint32_t));
	errno_t err = iw && ic && pp.names && pp.hex && pp.path ? EOK : ENOMEM;
	if (err == EOK && format == PROF_FMT_CALLGRIND) {
		pp.idx = pc_alloc(pc, pp.n, sizeof(uint32_t));
		pp.work = pc_alloc(pc, pp.n, sizeof(uint32_t));
		err = pp.idx && pp.work ? EOK : ENOMEM;
	}
	if (err == EOK) {
		pc_names(&pp);
		pc_inclusive(t, iw, ic);
	}
	if (err == EOK && format == PROF_FMT_CALLGRIND) {
		uint32_t nc = 0;
		for (uint32_t i = 0; i < pp.n; i++) {
			pp.idx[i] = i;
			if (t->nodes[i].parent != PC_NONE)
				pp.work[nc++] = i;
		}
		pc_heapsort(&pp, pp.idx, pp.n, pc_fn_cmp);
		pc_heapsort(&pp, pp.work, nc, pc_caller_cmp);
		pc_cg_table(&pp, iw, ic, pp.idx, pp.work, nc);
	} else if (err == EOK) {
		pc_folded_table(&pp);
	}
	pc_release(pc, pp.idx);
	pc_release(pc, pp.work);
	pc_release(pc, iw);
	pc_release(pc, ic);
	pc_release(pc, pp.names);
	pc_release(pc, pp.hex);
	pc_release(pc, pp.path);
	return err;
}

errno_t cprofreport_export(cprofreport_t *pc, unsigned format)
{
	uint64_t wall = 0, cpu = 0;

	if (format != PROF_FMT_CALLGRIND && format != PROF_FMT_FOLDED)
		return EINVAL;
	for (uint32_t i = 0; i < pc->ntables; i++) {
		for (uint32_t j = 0; j < pc->tables[i].nnodes; j++) {
			wall += pc->tables[i].nodes[j].wall;
			cpu += pc->tables[i].nodes[j].oncpu;
		}
	}
	if (format == PROF_FMT_CALLGRIND)
		pc_printf(pc, "# callgrind format\nversion: 1\ncreator: cprofalyze\n"
			  "positions: line\nevents: Wall Cpu\nsummary: %llu %llu\n",
			  (unsigned long long)wall, (unsigned long long)cpu);
	for (uint32_t i = 0; i < pc->ntables; i++) {
		errno_t err = pc_export_table(pc, &pc->tables[i], format);
		if (err != EOK)
			return err;
	}
	return EOK;
}

/* ---------------------------------------------------------------- pprof */

/* Fixed strings of the pprof string table; then one per name, path, label. */
enum { PP_EMPTY, PP_CALLS, PP_COUNT, PP_WALL, PP_NANOS, PP_CPU, PP_TASK, PP_FIXED };
static const char *const pp_fixed[PP_FIXED] = {
	"", "calls", "count", "wall", "nanoseconds", "cpu", "task",
};

typedef struct pc_pprof {
	prof_pb_t pb, strs, msg, sub;
	uint64_t nstr;                  /* strings so far */
	uint64_t ids;                   /* location and function ids so far */
} pc_pprof_t;

/* A new string table entry "AB" (b may be NULL); its index. */
static uint64_t pc_pp_str(pc_pprof_t *p, const char *a, const char *b)
{
	char s[256];
	int n = fmt_snprintf(s, sizeof(s), "%s%s", a, b ? b : "");

	prof_pb_bytes(&p->strs, 6, s, n < (int)sizeof(s) ? (size_t)n : sizeof(s) - 1);
	return p->nstr++;
}

static void pc_pp_value_type(pc_pprof_t *p, unsigned field, uint64_t type, uint64_t unit)
{
	p->sub.len = 0;
	prof_pb_uint(&p->sub, 1, type);
	prof_pb_uint(&p->sub, 2, unit);
	prof_pb_bytes(&p->pb, field, p->sub.p, p->sub.len);
}

/* cycles as nanoseconds at the file's TSC frequency. */
static uint64_t pc_ns(const cprofreport_t *pc, uint64_t cycles)
{
	return (uint64_t)((double)cycles * 1e9 / (double)pc->tsc_hz);
}

/* A function and a location for node i (ids base + 2i + 1, + 2) of mapping map. */
static void pc_pp_node(pc_print_t *pp, pc_pprof_t *p, uint32_t i, uint64_t base, uint64_t map)
{
	uint64_t name = pc_pp_str(p, pp->names[i], pc_k(pp->t));

	p->msg.len = 0;
	prof_pb_uint(&p->msg, 1, base + 2 * (uint64_t)i + 1);
	prof_pb_uint(&p->msg, 2, name);
	prof_pb_uint(&p->msg, 3, name);
	prof_pb_bytes(&p->pb, 5, p->msg.p, p->msg.len);
	p->msg.len = p->sub.len = 0;
	prof_pb_uint(&p->msg, 1, base + 2 * (uint64_t)i + 2);
	prof_pb_uint(&p->msg, 2, map);
	prof_pb_uint(&p->msg, 3, pp->t->nodes[i].fn);
	prof_pb_uint(&p->sub, 1, base + 2 * (uint64_t)i + 1);
	prof_pb_bytes(&p->msg, 4, p->sub.p, p->sub.len);
	prof_pb_bytes(&p->pb, 4, p->msg.p, p->msg.len);
}

/* The sample of node i: its path's locations leaf first, calls, wall, cpu, task. */
static void pc_pp_sample(pc_print_t *pp, pc_pprof_t *p, uint32_t i, uint64_t base,
			 uint64_t task)
{
	const pc_node_t *nd = pp->t->nodes;
	uint32_t n = 0;

	p->sub.len = 0;
	for (uint32_t a = i; a != PC_NONE && n++ < pp->t->nnodes; a = nd[a].parent)
		prof_pb_varint(&p->sub, base + 2 * (uint64_t)a + 2);
	p->msg.len = 0;
	prof_pb_bytes(&p->msg, 1, p->sub.p, p->sub.len);
	p->sub.len = 0;
	prof_pb_varint(&p->sub, nd[i].calls);
	prof_pb_varint(&p->sub, pc_ns(pp->pc, nd[i].wall));
	prof_pb_varint(&p->sub, pc_ns(pp->pc, nd[i].oncpu));
	prof_pb_bytes(&p->msg, 2, p->sub.p, p->sub.len);
	p->sub.len = 0;
	prof_pb_uint(&p->sub, 1, PP_TASK);
	prof_pb_uint(&p->sub, 2, task);
	prof_pb_bytes(&p->msg, 3, p->sub.p, p->sub.len);
	prof_pb_bytes(&p->pb, 2, p->msg.p, p->msg.len);
}

/* Table t (mapping map): a mapping, then per node a function, location, sample. */
static void pc_pp_table(pc_print_t *pp, pc_pprof_t *p, uint64_t map)
{
	const pc_table_t *t = pp->t;
	uint64_t lo = UINT64_MAX, hi = 0, base = p->ids;
	char label[CPROF_NAME_MAX + 32];

	fmt_snprintf(label, sizeof(label), "%s-%llu",
		     t->name[0] ? t->name : t->task == 0 ? "kernel" : "?",
		     (unsigned long long)t->task);
	uint64_t task = pc_pp_str(p, label, NULL);
	for (uint32_t i = 0; i < t->nnodes; i++) {
		lo = t->nodes[i].fn < lo ? t->nodes[i].fn : lo;
		hi = t->nodes[i].fn >= hi ? t->nodes[i].fn + 1 : hi;
	}
	p->msg.len = 0;
	prof_pb_uint(&p->msg, 1, map);
	prof_pb_uint(&p->msg, 2, t->nnodes ? lo : 0);
	prof_pb_uint(&p->msg, 3, t->nnodes ? hi : 0);
	prof_pb_uint(&p->msg, 5, pc_pp_str(p, t->path[0] ? t->path : "???", NULL));
	prof_pb_uint(&p->msg, 7, 1);
	prof_pb_bytes(&p->pb, 3, p->msg.p, p->msg.len);
	for (uint32_t i = 0; i < t->nnodes; i++)
		pc_pp_node(pp, p, i, base, map);
	for (uint32_t i = 0; i < t->nnodes; i++)
		pc_pp_sample(pp, p, i, base, task);
	p->ids += 2 * (uint64_t)t->nnodes;
}

static errno_t pc_pp_tables(cprofreport_t *pc, pc_pprof_t *p)
{
	static const cprofreport_opts_t o = { 0 };

	for (uint32_t ti = 0; ti < pc->ntables; ti++) {
		const pc_table_t *t = &pc->tables[ti];
		pc_print_t pp = { pc, &o, t, t->nodes, t->nnodes, false, NULL, NULL, NULL, NULL,
				  NULL, NULL, NULL };
		pp.names = pc_alloc(pc, pp.n, sizeof(char *));
		pp.hex = pc_alloc(pc, pp.n, PC_HEX);
		if (pp.names && pp.hex) {
			pc_names(&pp);
			pc_pp_table(&pp, p, (uint64_t)ti + 1);
		}
		pc_release(pc, pp.names);
		pc_release(pc, pp.hex);
		if (!pp.names || !pp.hex)
			return ENOMEM;
	}
	return EOK;
}

errno_t cprofreport_pprof(cprofreport_t *pc, void (*write)(void *ctx, const void *data, size_t len),
		       void *ctx)
{
	pc_pprof_t p = { .pb = { .env = &pc->env }, .strs = { .env = &pc->env },
			 .msg = { .env = &pc->env }, .sub = { .env = &pc->env } };
	prof_export_out_t out = { ctx, write, NULL };

	for (int i = 0; i < PP_FIXED; i++)
		pc_pp_str(&p, pp_fixed[i], NULL);
	pc_pp_value_type(&p, 1, PP_CALLS, PP_COUNT);
	pc_pp_value_type(&p, 1, PP_WALL, PP_NANOS);
	pc_pp_value_type(&p, 1, PP_CPU, PP_NANOS);
	errno_t err = pc_pp_tables(pc, &p);
	pc_pp_value_type(&p, 11, PP_WALL, PP_NANOS);
	prof_pb_uint(&p.pb, 12, 1);
	/* The string table last (its entries in index order): a field's place is free. */
	prof_pb_raw(&p.pb, p.strs.p, p.strs.len);
	const prof_pb_t *bufs[] = { &p.pb, &p.strs, &p.msg, &p.sub };
	for (size_t i = 0; i < 4 && err == EOK; i++)
		err = bufs[i]->err;
	if (err == EOK)
		prof_gzip(&out, p.pb.p, p.pb.len);
	prof_pb_free(&p.pb);
	prof_pb_free(&p.strs);
	prof_pb_free(&p.msg);
	prof_pb_free(&p.sub);
	return err;
}
