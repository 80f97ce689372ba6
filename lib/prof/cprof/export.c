/*
 * The call profile's exports (cprofreport_export, cprofreport_pprof):
 * callgrind with exact call counts, folded self wall time, and pprof
 * with calls, wall and cpu values.
 */
#include "pc.h"
#include <lib/profcallgrind.h>
#include <lib/proffolded.h>

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
	fmt_out_t out = { pp->pc->env.out, pp->pc->env.ctx };
	uint32_t c = 0;

	for (uint32_t g = 0; g < t->nnodes;) {
		uint64_t fn = t->nodes[by_fn[g]].fn, sw = 0, sc = 0;
		uint32_t first = by_fn[g];
		for (; g < t->nnodes && t->nodes[by_fn[g]].fn == fn; g++) {
			sw += t->nodes[by_fn[g]].wall;
			sc += t->nodes[by_fn[g]].oncpu;
		}
		uint64_t self[2] = { sw, sc };
		prof_callgrind_fn(&out, ob, pp->names[first], pc_k(t), self, 2);
		while (c < nc && t->nodes[t->nodes[by_caller[c]].parent].fn < fn)
			c++;
		for (; c < nc && t->nodes[t->nodes[by_caller[c]].parent].fn == fn; c++) {
			uint32_t i = by_caller[c];
			uint64_t incl[2] = { iw[i], ic[i] };
			prof_callgrind_call(&out, NULL, pp->names[i], pc_k(t), t->nodes[i].calls,
					    incl, 2);
		}
	}
}

/* One folded line per path with self wall time: task-ID;top;...;fn cycles. */
static void pc_folded_table(pc_print_t *pp)
{
	const pc_table_t *t = pp->t;
	const char *task = t->name[0] ? t->name : t->task == 0 ? "kernel" : "?";
	fmt_out_t o = { pp->pc->env.out, pp->pc->env.ctx };

	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint32_t n = 0;
		if (t->nodes[i].wall == 0)
			continue;
		for (uint32_t a = i; a != PC_NONE && n < t->nnodes; a = t->nodes[a].parent)
			pp->path[n++] = a;
		prof_folded_root(&o, task, true, t->task);
		while (n-- > 0)
			prof_folded_frame(&o, pp->names[pp->path[n]], 0, t->task == 0 ? "_[k]" : "");
		prof_folded_end(&o, t->nodes[i].wall);
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
	uint64_t summary[2] = { wall, cpu };
	fmt_out_t out = { pc->env.out, pc->env.ctx };
	if (format == PROF_FMT_CALLGRIND)
		prof_callgrind_head(&out, "cprofalyze", NULL, "Wall Cpu", summary, 2);
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

	prof_pb_bytes(&p->strs, PROF_PB_STRING, s, n < (int)sizeof(s) ? (size_t)n : sizeof(s) - 1);
	return p->nstr++;
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

	prof_pprof_function(&p->pb, &p->msg, base + 2 * (uint64_t)i + 1, name, 0);
	prof_pprof_location(&p->pb, &p->msg, &p->sub, base + 2 * (uint64_t)i + 2, map,
			    pp->t->nodes[i].fn, base + 2 * (uint64_t)i + 1);
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
	prof_pprof_label(&p->msg, &p->sub, PP_TASK, task, false, 0);
	prof_pb_bytes(&p->pb, PROF_PB_SAMPLE, p->msg.p, p->msg.len);
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
	uint64_t file = pc_pp_str(p, t->path[0] ? t->path : "???", NULL);
	prof_pprof_mapping(&p->pb, &p->msg, map, t->nnodes ? lo : 0, t->nnodes ? hi : 0, file);
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
	prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_SAMPLE_TYPE, PP_CALLS, PP_COUNT);
	prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_SAMPLE_TYPE, PP_WALL, PP_NANOS);
	prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_SAMPLE_TYPE, PP_CPU, PP_NANOS);
	errno_t err = pc_pp_tables(pc, &p);
	prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_PERIOD_TYPE, PP_WALL, PP_NANOS);
	prof_pb_uint(&p.pb, PROF_PB_PERIOD, 1);
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
