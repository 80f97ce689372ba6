/*
 * The gmon export: gprof's gmon.out per binary, the PC histogram at the
 * profile's rate and the call arcs inside the binary.
 */
#include "px.h"
#include <lib/profgmon.h>
#include <lib/string.h>

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

typedef struct gm_range {
	uint64_t lo, hi;                /* sampled functions' starts .. last PC + 1 */
	unsigned shift;
} gm_range_t;

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

/* Bin i of the histogram gm_hist counted. */
static uint64_t gm_count(const void *ctx, size_t i)
{
	const uint64_t *h = ctx;

	return h[i];
}

/* The header and histogram record of binary bin over range r. */
static void gm_hist(px_t *x, px_buf_t *o, uint32_t bin, const gm_range_t *r)
{
	size_t nbins = (size_t)((r->hi - r->lo) >> r->shift) + 1;
	uint64_t *h = px_alloc(x, nbins * sizeof(uint64_t));
	px_sink_t g = { x, o };

	if (!h)
		return;
	memset(h, 0, nbins * sizeof(uint64_t));
	for (size_t i = 0; i < x->nstacks; i++) {
		const px_frame_t *fr = &x->frames[x->stacks[i].first + x->stacks[i].n - 1];
		if (x->funcs[fr->func].bin == bin)
			h[(fr->addr - r->lo) >> r->shift] += x->stacks[i].count;
	}
	prof_gmon_hist_t gh = { r->lo, r->shift, nbins, x->c.hz ? x->c.hz : 1, gm_count, h };
	prof_gmon_write(&gh, px_sink, &g);
	px_release(x, h);
}

/* The call-arc records of binary bin: (caller's call site, callee's start). */
static void gm_arcs(px_t *x, px_buf_t *o, uint32_t bin)
{
	px_map_t arcs = { 0 };
	px_sink_t g = { x, o };
	bool added;

	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		const px_stack_t *s = &x->stacks[i];
		const px_frame_t *fr = &x->frames[s->first];
		for (uint32_t j = 0; j + 1 < s->n; j++) {
			const px_func_t *from = &x->funcs[fr[j].func], *to = &x->funcs[fr[j + 1].func];
			if (from->bin != bin || to->bin != bin || px_frame_deeper(fr, j, s->n))
				continue;
			uint64_t key[2] = { fr[j].addr, to->start };
			px_entry_t *e = px_map_get(x, &arcs, key, sizeof(key), &added);
			if (e)
				e->val += s->count;
		}
	}
	for (size_t i = 0; i < arcs.cap && !x->err; i++) {
		const px_entry_t *e = px_map_at(&arcs, i);
		if (!e)
			continue;
		uint64_t key[2];
		memcpy(key, e->key, sizeof(key));
		prof_gmon_arc(key[0], key[1], e->val, px_sink, &g);
	}
	px_map_free(x, &arcs);
}

/* Write one gmon.out per sampled binary (x->out->open names each). */
void px_gmon(px_t *x)
{
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
		gm_hist(x, &o, b, &r);
		gm_arcs(x, &o, b);
		px_buf_flush(x, &o);
	}
	px_buf_free(x, &o);
}
