/*
 * The callgrind export: self costs per function and call arcs with
 * inclusive costs from the stacks (callgrind_annotate, KCachegrind).
 */
#include "px.h"
#include <lib/profcallgrind.h>
#include <lib/string.h>

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
bool px_frame_deeper(const px_frame_t *fr, uint32_t i, uint32_t n)
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
	px_entry_t *e = px_map_get(x, arcs, key, sizeof(key), &added);

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
			if (!px_frame_deeper(fr, j, s->n))
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
	px_sink_t k = { x, o };
	fmt_out_t out = { px_sink, &k };

	prof_callgrind_fn(&out, root ? "???" : cg_ob(x, f), root ? "(below main)" : x->funcs[f].name,
			  root ? "" : cg_k(x, f), &self, 1);
	for (size_t i = 0; i < n; i++) {
		bool other = root || strcmp(cg_ob(x, a[i].to), cg_ob(x, f)) != 0;
		prof_callgrind_call(&out, other ? cg_ob(x, a[i].to) : NULL, x->funcs[a[i].to].name,
				    cg_k(x, a[i].to), a[i].count, &a[i].count, 1);
	}
	px_buf_maybe_flush(x, o);
}

static void cg_write(px_t *x, const uint64_t *self, cg_arc_t *a, size_t n)
{
	px_buf_t o = { 0 };
	px_sink_t k = { x, &o };
	fmt_out_t out = { px_sink, &k };
	size_t at = 0;

	prof_callgrind_head(&out, "vprof", x->o->title ? x->o->title : "vprof", "Samples",
			    &x->total, 1);
	for (uint32_t f = 0; f <= x->nfuncs; f++) {
		size_t first = at;
		while (at < n && a[at].from == f)
			at++;
		if ((f == x->nfuncs || x->funcs[f].name) && (self[f] || at > first))
			cg_func(x, &o, f, self[f], a + first, at - first);
	}
	px_buf_flush(x, &o);
	px_buf_free(x, &o);
}

/* Write the callgrind format of the model to x->out. */
void px_callgrind(px_t *x)
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
		const px_entry_t *e = px_map_at(&arcs, i);
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
	px_map_free(x, &arcs);
}
