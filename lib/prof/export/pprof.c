/*
 * The pprof export: a gzipped profile.proto (google/pprof) of the
 * model's stacks, values samples/count and cpu (or wall)/nanoseconds,
 * origin and server labels for samples serving a call.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- pprof */

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
	px_entry_t *e = px_map_get(x, &p->locs, key, sizeof(key), &added);

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
	prof_pprof_location(&p->pb, &p->msg, &p->sub, e->val,
			    f->bin != PROF_BIN_NONE ? (uint64_t)f->bin + 1 : 0, fr->addr,
			    (uint64_t)fr->func + 1);
	return e->val;
}

/* One Sample message: locations leaf first, values, labels. */
static void pp_sample(px_t *x, pp_state_t *p, const px_stack_t *s)
{
	static const uint64_t modes[] = { PS_USER, PS_KERNEL, PS_IDLE };
	px_buf_t ids = { 0 };

	for (uint32_t i = s->n; i-- > 0;)
		px_pb_varint(x, &ids, pp_location(x, p, &x->frames[s->first + i]));
	p->msg.len = 0;
	px_pb_bytes(x, &p->msg, 1, ids.p, ids.len);
	ids.len = 0;
	px_pb_varint(x, &ids, s->count);
	px_pb_varint(x, &ids, s->ns);
	px_pb_bytes(x, &p->msg, 2, ids.p, ids.len);
	prof_pprof_label(&p->msg, &p->sub, PS_TASK, pp_str_task(x, s->task), false, 0);
	prof_pprof_label(&p->msg, &p->sub, PS_THREAD, 0, true, s->thread);
	prof_pprof_label(&p->msg, &p->sub, PS_CPU, 0, true, s->cpu);
	prof_pprof_label(&p->msg, &p->sub, PS_MODE, modes[s->mode < 3 ? s->mode : 1], false, 0);
	if (s->origin) {                /* serving a call: whose work (task ids) */
		prof_pprof_label(&p->msg, &p->sub, PS_ORIGIN, 0, true, s->origin);
		prof_pprof_label(&p->msg, &p->sub, PS_SERVER, 0, true, s->server);
	}
	px_pb_bytes(x, &p->pb, PROF_PB_SAMPLE, p->msg.p, p->msg.len);
	if (ids.err)
		x->err = ids.err;
	px_buf_free(x, &ids);
}

static void pp_functions(px_t *x, pp_state_t *p)
{
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		if (!x->funcs[f].name)
			continue;
		uint32_t bin = x->funcs[f].bin;
		prof_pprof_function(&p->pb, &p->msg, (uint64_t)f + 1, pp_str_func(f),
				    bin != PROF_BIN_NONE ? pp_str_bin(x, bin) : 0);
	}
}

static void pp_mappings(px_t *x, pp_state_t *p)
{
	for (uint32_t b = 0; b < x->nbins; b++) {
		if (!x->bins[b] || p->hi[b] == 0)
			continue;
		prof_pprof_mapping(&p->pb, &p->msg, (uint64_t)b + 1, p->lo[b], p->hi[b],
				   pp_str_bin(x, b));
	}
}

/* A task's label: its name, with the id where two tasks share it. */
static void pp_task_str(px_t *x, pp_state_t *p, uint32_t t)
{
	p->sub.len = 0;
	px_buf_str(x, &p->sub, x->tasks[t].name);
	if (x->tasks[t].shared)
		px_buf_printf(x, &p->sub, "-%llu", (unsigned long long)x->tasks[t].id);
	px_pb_bytes(x, &p->pb, PROF_PB_STRING, p->sub.p, p->sub.len);
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
		px_buf_put(x, &p->sub, root, n);
	}
	px_buf_str(x, &p->sub, path);
	px_pb_bytes(x, &p->pb, PROF_PB_STRING, p->sub.p, p->sub.len);
}

static void pp_strings(px_t *x, pp_state_t *p)
{
	for (size_t i = 0; i < PS_FIXED; i++)
		px_pb_bytes(x, &p->pb, PROF_PB_STRING, ps_fixed[i], strlen(ps_fixed[i]));
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		const px_func_t *fn = &x->funcs[f];
		p->sub.len = 0;
		px_buf_str(x, &p->sub, fn->name ? fn->name : "?");
		if (fn->kernel)
			px_buf_str(x, &p->sub, " [k]");
		px_pb_bytes(x, &p->pb, PROF_PB_STRING, p->sub.p, p->sub.len);
	}
	for (uint32_t b = 0; b < x->nbins; b++)
		pp_bin_str(x, p, b);
	for (uint32_t t = 0; t < x->ntasks; t++)
		pp_task_str(x, p, t);
}

/* ---------------------------------------------------------------- pprof file */

/* Write the gzipped pprof profile of the model to x->out. */
void px_pprof(px_t *x)
{
	pp_state_t p;

	memset(&p, 0, sizeof(p));
	p.pb.env = p.msg.env = p.sub.env = x->env;
	p.period = x->c.hz ? 1000000000ull / x->c.hz : 1;
	p.lo = px_alloc(x, (x->nbins + 1) * sizeof(uint64_t));
	p.hi = px_alloc(x, (x->nbins + 1) * sizeof(uint64_t));
	if (p.lo && p.hi) {
		memset(p.lo, 0xff, (x->nbins + 1) * sizeof(uint64_t));
		memset(p.hi, 0, (x->nbins + 1) * sizeof(uint64_t));
		uint64_t time = x->o->wall ? PS_WALL : PS_CPU;
		prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_SAMPLE_TYPE, PS_SAMPLES, PS_COUNT);
		prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_SAMPLE_TYPE, time, PS_NANOS);
		for (size_t i = 0; i < x->nstacks && !x->err; i++)
			pp_sample(x, &p, &x->stacks[i]);
		pp_mappings(x, &p);
		pp_functions(x, &p);
		pp_strings(x, &p);
		px_pb_uint(x, &p.pb, PROF_PB_DURATION, x->c.duration_ns);
		prof_pprof_value_type(&p.pb, &p.sub, PROF_PB_PERIOD_TYPE, time, PS_NANOS);
		px_pb_uint(x, &p.pb, PROF_PB_PERIOD, p.period);
		px_pb_uint(x, &p.pb, PROF_PB_COMMENT, PS_COMMENT);
	}
	errno_t err = p.pb.err ? p.pb.err : p.msg.err ? p.msg.err : p.sub.err;
	if (err)
		x->err = err;
	if (!x->err)
		prof_gzip(x->out, p.pb.p, p.pb.len);
	px_buf_free(x, &p.pb);
	px_buf_free(x, &p.msg);
	px_buf_free(x, &p.sub);
	px_map_free(x, &p.locs);
	px_release(x, p.lo);
	px_release(x, p.hi);
}
