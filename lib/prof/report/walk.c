/*
 * The profiler report's stacks for others (lib/profreport.h): the whole
 * stacks handed to the exports (prof_report_walk) and the rows out.
 */
#include "rep.h"

/* ---------------------------------------------------------------- export */

/* The leaf fix of lib/profleaf.h on a whole-stack key (copied in k). */
static void px_leaf_fix(prof_print_t *pp, prof_xkey_t *k, uint32_t xdepth)
{
	bool kernel = k->nkern > 0;
	uint64_t caller = pr_leaf_caller(pp, kernel, k->bin, k->frame[0], k->top);

	if (!caller)
		return;
	memmove(&k->frame[2], &k->frame[1], (size_t)(xdepth - 1) * 8);
	k->frame[1] = caller;
	if (k->nframes < 1 + xdepth)
		k->nframes++;
	if (kernel && k->nkern < k->nframes)
		k->nkern++;
}

/*
 * The origin's stack of a serving sample (its PROF_REC_CALL, when the
 * stream has it) into fr[0..*n), root first: the origin's user frames
 * down to the call.
 */
static errno_t px_origin_frames(prof_print_t *pp, const prof_xkey_t *k, prof_frame_t *fr,
				size_t *n)
{
	prof_report_t *r = pp->r;

	*n = 0;
	if (!k->site || k->site > r->ncstk)
		return EOK;
	const prof_callstk_t *c = &r->cstk[k->site - 1];
	uint32_t bin = r->tasks[c->slot].bin;
	for (uint32_t j = 0; j < c->n; j++) {
		uint64_t a = r->cwords[c->off + j];
		uint32_t f = pr_func(pp, bin, a, j > 0, false);
		if (f == PROF_NONE)
			return ENOMEM;
		fr[c->n - 1 - j] = (prof_frame_t){ .func = f,
			.bin = bin == PROF_NONE ? PROF_BIN_NONE : bin,
			.path = bin == PROF_NONE ? NULL : r->bins[bin].path,
			.addr = j > 0 && a ? a - 1 : a };
	}
	*n = c->n;
	return EOK;
}

/* Frame o: function f at addr, in binary bin (PROF_NONE: none). */
static void px_frame(const prof_report_t *r, prof_frame_t *o, uint32_t f, uint32_t bin,
		     uint64_t addr, bool kernel)
{
	o->func = f;
	o->bin = bin == PROF_NONE ? PROF_BIN_NONE : bin;
	o->path = bin == PROF_NONE ? NULL : r->bins[bin].path;
	o->addr = addr;
	o->kernel = kernel;
}

/* An off-CPU stack into frames: its chain (root first), then "[off-cpu: ...]". */
static errno_t px_resolve_off(prof_print_t *pp, const prof_xkey_t *k, prof_frame_t *fr,
			      size_t *n)
{
	uint32_t f = pr_off_func(pp, k->off, k->wtask, k->wmethod);

	if (f == PROF_NONE)
		return ENOMEM;
	px_frame(pp->r, &fr[k->nframes - 1], f, PROF_NONE, 0, false);
	for (size_t j = 1; j < k->nframes; j++) {
		bool kernel = j <= k->nkern;
		uint32_t bin = kernel ? pp->kbin : k->bin;
		if ((f = pr_func(pp, bin, k->frame[j], true, kernel)) == PROF_NONE)
			return ENOMEM;
		px_frame(pp->r, &fr[k->nframes - 1 - j], f, bin,
			 k->frame[j] ? k->frame[j] - 1 : 0, kernel);
	}
	*n = k->nframes;
	return EOK;
}

/* Resolve the stack in xstacks slot i into frames (root first). */
static errno_t px_resolve(prof_print_t *pp, size_t i, prof_frame_t *fr, size_t *n)
{
	prof_report_t *r = pp->r;
	uint64_t kbuf[PROF_XKEY_MAX / 8];
	prof_xkey_t *k = (prof_xkey_t *)kbuf;

	memcpy(k, prof_map_entry(&r->xstacks, i) + 8, r->xstacks.ksize);
	bool ipc = k->origin != PROF_NONE;
	bool redacted = ipc && !k->off && k->frame[0] == 0 && k->nframes == 1;
	size_t at = 0;
	if (ipc && r->x_by_origin) {
		errno_t err = px_origin_frames(pp, k, fr, &at);
		if (err != EOK)
			return err;
	}
	if (redacted || (ipc && r->x_by_origin)) {
		uint32_t f = pr_ipc_func(pp, k->slot, k->method);
		if (f == PROF_NONE)
			return ENOMEM;
		fr[at++] = (prof_frame_t){ .func = f, .bin = PROF_BIN_NONE };
	}
	*n = at;
	if (k->off) {
		errno_t err = px_resolve_off(pp, k, fr + at, n);
		*n += at;
		return err;
	}
	if (redacted)
		return EOK;
	px_leaf_fix(pp, k, r->xdepth);
	*n = at + k->nframes;
	for (size_t j = 0; j < k->nframes; j++) {
		bool kernel = j < k->nkern;
		uint32_t bin = kernel ? pp->kbin : k->bin;
		uint32_t f = pr_func(pp, bin, k->frame[j], j > 0, kernel);
		if (f == PROF_NONE)
			return ENOMEM;
		prof_frame_t *o = &fr[at + k->nframes - 1 - j];
		o->func = f;
		o->bin = bin == PROF_NONE ? PROF_BIN_NONE : bin;
		o->path = bin == PROF_NONE ? NULL : r->bins[bin].path;
		o->addr = j > 0 && k->frame[j] ? k->frame[j] - 1 : k->frame[j];
		o->kernel = kernel;
	}
	return EOK;
}

/* Names and starts of the frames (once every function exists). */
static void px_names(const prof_print_t *pp, prof_frame_t *fr, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		const prof_func_t *f = &pp->funcs[fr[j].func];
		fr[j].name = pr_fname(pp, fr[j].func);
		fr[j].func_addr = f->addr;
		fr[j].known = f->name != NULL;
	}
}

static uint64_t px_count(const prof_report_t *r, size_t i)
{
	return prof_map_word(prof_map_entry(&r->xstacks, i) + 8 + r->xstacks.ksize);
}

/* The time of the stack in xstacks slot i, TSC cycles. */
static uint64_t px_time(const prof_report_t *r, size_t i)
{
	return prof_map_word(prof_map_entry(&r->xstacks, i) + 16 + r->xstacks.ksize);
}

/* Walk order: task id, then most time first, then map slot. */
static int px_cmp(const void *a, const void *b, void *ctx)
{
	const prof_report_t *r = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const prof_xkey_t *kx = (const void *)(prof_map_entry(&r->xstacks, x) + 8);
	const prof_xkey_t *ky = (const void *)(prof_map_entry(&r->xstacks, y) + 8);
	uint64_t tx = r->tasks[kx->slot].id, ty = r->tasks[ky->slot].id;
	uint64_t cx = px_time(r, x), cy = px_time(r, y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The task a stack is walked as: its origin's when by origin, else its own. */
static uint32_t px_slot(const prof_report_t *r, const prof_xkey_t *k)
{
	return r->x_by_origin && k->origin != PROF_NONE ? k->origin : k->slot;
}

/* Is the stack in map slot i left out by prof_report_set_origin's origin? */
static bool px_skip(const prof_report_t *r, size_t i)
{
	const prof_xkey_t *k = (const void *)(prof_map_entry(&r->xstacks, i) + 8);

	return (r->x_origin && r->tasks[px_slot(r, k)].id != r->x_origin) || !px_count(r, i);
}

/* The map slots walked, sorted (from env.alloc), *n of them; NULL without memory. */
static size_t *px_order(prof_report_t *r, prof_walk_info_t *info, size_t *n)
{
	size_t *ord = prof_alloc(&r->env, r->xstacks.count * sizeof(size_t));

	*n = 0;
	if (!ord)
		return NULL;
	for (size_t i = 0; i < r->xstacks.cap; i++) {
		if (prof_map_entry(&r->xstacks, i)[0] && !px_skip(r, i)) {
			ord[(*n)++] = i;
			info->total += px_count(r, i);
			info->total_ns += rep_ns(r, px_time(r, i));
		}
	}
	prof_sort(ord, *n, sizeof(size_t), px_cmp, r);
	return ord;
}

/* Call fn on each stack in order (every function already resolved). */
static errno_t px_calls(prof_print_t *pp, const size_t *ord, size_t n, prof_frame_t *fr,
			prof_walk_info_t *info, prof_walk_fn_t fn, void *ctx)
{
	prof_report_t *r = pp->r;
	errno_t err = EOK;

	info->nfuncs = (uint32_t)pp->nfuncs;
	info->nbins = (uint32_t)r->nbins;
	for (size_t i = 0; i < n && err == EOK; i++) {
		const prof_xkey_t *k = (const void *)(prof_map_entry(&r->xstacks, ord[i]) + 8);
		uint32_t slot = px_slot(r, k);
		bool ipc = k->origin != PROF_NONE;
		prof_xstack_t s = { r->tasks[slot].id, k->thread,
				    k->mode == PROF_MODE_IDLE ? "[idle]" : rep_task_name(r, slot),
				    k->cpu, k->mode, px_count(r, ord[i]),
				    rep_ns(r, px_time(r, ord[i])), 0, fr,
				    ipc ? r->tasks[k->slot].id : 0,
				    ipc ? r->tasks[k->origin].id : 0, ipc ? k->method : 0 };
		err = px_resolve(pp, ord[i], fr, &s.nframes);
		px_names(pp, fr, s.nframes);
		if (err == EOK)
			err = fn(ctx, info, &s);
	}
	return err;
}

errno_t prof_report_walk(prof_report_t *r, const char *kernel_path, prof_walk_fn_t fn,
			 void *ctx)
{
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 0, false, kernel_path, false, 0 };
	prof_walk_info_t info;
	prof_print_t pp;
	size_t n;

	if (!r->xon)
		return EINVAL;
	if (rep_wall_settle(r, r->x_by_origin) != EOK)
		return ENOMEM;
	memset(&pp, 0, sizeof(pp));
	memset(&info, 0, sizeof(info));
	pp.r = r;
	pp.o = &o;
	rep_totals(r, &info.c);
	info.kernel_path = kernel_path ? kernel_path : "/boot/kernel";
	pp.kbin = rep_bin(r, info.kernel_path, strlen(info.kernel_path));
	prof_map_init(&pp.fmap, sizeof(prof_fkey_t), sizeof(uint32_t));
	prof_frame_t *fr = prof_alloc(&r->env, (3 + r->xdepth + PROF_IPC_STACK_MAX) *
				     sizeof(prof_frame_t));
	size_t nord = 0;
	size_t *ord = pp.kbin == PROF_NONE || !fr ? NULL : px_order(r, &info, &nord);
	errno_t err = ord ? EOK : ENOMEM;
	for (size_t i = 0; i < nord && err == EOK; i++)
		err = px_resolve(&pp, ord[i], fr, &n);
	if (err == EOK)
		err = px_calls(&pp, ord, nord, fr, &info, fn, ctx);
	prof_map_free(&r->env, &pp.fmap);
	for (size_t i = 0; i < pp.nnames; i++)
		prof_release(&r->env, pp.names[i]);
	prof_release(&r->env, pp.names);
	prof_release(&r->env, pp.funcs);
	prof_release(&r->env, fr);
	prof_release(&r->env, ord);
	return err;
}

/* ---------------------------------------------------------------- rows out */

/* The public form of a row (strings point into r and pp). */
static void pr_row_info(const prof_print_t *pp, const prof_row_t *row,
			prof_row_info_t *info)
{
	const prof_report_t *r = pp->r;
	const prof_func_t *f = &pp->funcs[row->func];
	bool idle = row->slot == PROF_SLOT_IDLE;

	info->task_id = idle ? PROF_ROW_IDLE : r->tasks[row->slot].id;
	info->task = idle ? "[idle]" : rep_task_name(r, row->slot);
	info->binary = f->bin == PROF_NONE ? "" : r->bins[f->bin].path;
	info->hash = f->bin == PROF_NONE || f->kernel ? 0 : r->bins[f->bin].hash;
	info->function = pr_fname(pp, row->func);
	info->kernel = f->kernel;
	info->count = row->count;
	info->ns = rep_ns(r, row->time);
}

errno_t prof_report_rows(prof_report_t *r, const prof_report_opts_t *o,
			 errno_t (*fn)(void *ctx, const prof_row_info_t *row), void *ctx)
{
	prof_report_opts_t so = *o;
	prof_print_t pp;
	prof_row_info_t info;

	so.style = PROF_STYLE_SYSTEM;
	memset(&pp, 0, sizeof(pp));
	pp.r = r;
	pp.o = &so;
	rep_totals(r, &r->c);
	errno_t err = pr_prepare(&pp);
	for (size_t i = 0; i < pp.nrows && err == EOK; i++) {
		pr_row_info(&pp, &pp.rows[i], &info);
		err = fn(ctx, &info);
	}
	pr_free(&pp);
	return err;
}
