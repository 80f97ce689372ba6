/*
 * The call profiler's report (lib/cprofreport.h): parsing a call profile
 * file and merging each table's parts by call path.
 *
 * Parsing walks each table twice: once to check its parts' headers and
 * sizes and count its slots, once to copy the slots out. Merging gives
 * every slot the node of its path: a slot's parent chain is followed up
 * with an explicit stack until the top level, a slot already done, a bad
 * id or a slot already on the stack (a cycle); the chain then gets its
 * nodes top-down from a hash map keyed by (parent node, function). No
 * recursion anywhere; all memory from env.alloc.
 */
#include "pc.h"

/* ---------------------------------------------------------------- memory */

/* n elements of size bytes; NULL on overflow or ENOMEM. */
void *pc_alloc(const cprofreport_t *pc, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	return pc->env.alloc(pc->env.ctx, bytes ? bytes : 1);
}

/* env.release of p (NULL: nothing). */
void pc_release(const cprofreport_t *pc, void *p)
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
