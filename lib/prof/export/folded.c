/*
 * The folded export: Brendan Gregg's collapsed stacks, one sorted line
 * per distinct stack, "task;root;...;leaf N" (lib/profexport.h).
 */
#include "px.h"
#include <lib/proffolded.h>
#include <lib/string.h>

/* ---------------------------------------------------------------- folded */

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
 * A function as folded stacks name it: NAME, NAME_[k], NAME_(BINARY) for
 * an unknown address; "[ipc SERVER.METHOD]" with its space.
 */
static void fold_func(px_t *x, const fmt_out_t *o, const px_func_t *f)
{
	if (f->known || f->kernel) {
		prof_folded_frame(o, f->name, fold_ipc(f), f->kernel ? "_[k]" : "");
		return;
	}
	prof_folded_frame(o, f->name, 0, "_(");
	prof_folded_name(o, px_bin_base(x, f->bin));
	o->put(o->ctx, ")", 1);
}

/* The folded line of stack s (without the count) in x->line. */
static void fold_line(px_t *x, const px_stack_t *s)
{
	const px_task_t *t = &x->tasks[s->task];
	px_sink_t k = { x, &x->line };
	fmt_out_t o = { px_sink, &k };

	x->line.len = 0;
	prof_folded_root(&o, t->name, t->shared, t->id);
	for (uint32_t i = 0; i < s->n; i++)
		fold_func(x, &o, &x->funcs[x->frames[s->first + i].func]);
}

static int fold_cmp(const void *a, const void *b, void *ctx)
{
	const px_entry_t *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	(void)ctx;
	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* Write the folded format of the model to x->out. */
void px_folded(px_t *x)
{
	px_map_t m = { 0 };
	px_buf_t out = { 0 };
	px_sink_t k = { x, &out };
	fmt_out_t o = { px_sink, &k };
	bool added;

	for (size_t i = 0; i < x->nstacks && !x->err; i++) {
		fold_line(x, &x->stacks[i]);
		px_entry_t *e = x->line.err ? NULL :
			px_map_get(x, &m, x->line.p, x->line.len, &added);
		if (e)
			e->val += x->o->ns ? x->stacks[i].ns : x->stacks[i].count;
		else
			x->err = ENOMEM;
	}
	size_t n = 0;
	px_entry_t *e = x->err ? NULL : px_alloc(x, (m.count + 1) * sizeof(px_entry_t));
	for (size_t i = 0; e && i < m.cap; i++) {
		if (px_map_at(&m, i))
			e[n++] = *px_map_at(&m, i);
	}
	prof_sort(e, n, sizeof(px_entry_t), fold_cmp, NULL);
	for (size_t i = 0; e && i < n && !x->err; i++) {
		px_buf_put(x, &out, e[i].key, e[i].len);
		prof_folded_end(&o, e[i].val);
		px_buf_maybe_flush(x, &out);
	}
	px_release(x, e);
	px_buf_flush(x, &out);
	px_buf_free(x, &out);
	px_map_free(x, &m);
}
