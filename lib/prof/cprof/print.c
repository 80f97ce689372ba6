/*
 * The call profiler's report printed (cprofreport_print): per table its
 * header, warnings and the call paths or functions, sorted or as a tree.
 */
#include "pc.h"

/* ---------------------------------------------------------------- printing */

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
void pc_names(pc_print_t *pp)
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
void pc_heapsort(const pc_print_t *pp, uint32_t *v, size_t n, pc_cmp_t cmp)
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
