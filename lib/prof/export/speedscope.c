/*
 * The speedscope export: speedscope's JSON file format, one sampled
 * profile per task (or per thread), weights in nanoseconds.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- speedscope */

static void ss_frames(px_t *x, px_buf_t *o)
{
	px_buf_str(x, o, "\"shared\":{\"frames\":[");
	for (uint32_t f = 0; f < x->nfuncs; f++) {
		const px_func_t *fn = &x->funcs[f];
		px_buf_str(x, o, f ? ",\n{\"name\":" : "\n{\"name\":");
		x->line.len = 0;
		px_buf_str(x, &x->line, fn->name ? fn->name : "?");
		px_buf_str(x, &x->line, fn->kernel ? " [k]" : "");
		px_buf_put(x, &x->line, "", 1);
		px_json_str(x, o, x->line.err ? "?" : (const char *)x->line.p);
		if (fn->bin != PROF_BIN_NONE && x->bins[fn->bin]) {
			px_buf_str(x, o, ",\"file\":");
			px_json_str(x, o, x->bins[fn->bin]);
		}
		px_buf_str(x, o, "}");
	}
	px_buf_str(x, o, "]},\n");
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

	px_buf_str(x, o, "{\"type\":\"sampled\",\"name\":");
	x->line.len = 0;
	px_buf_printf(x, &x->line, "%s (task %llu", t->name, (unsigned long long)t->id);
	if (x->o->threads)
		px_buf_printf(x, &x->line, ", thread %llu", (unsigned long long)p->thread);
	px_buf_put(x, &x->line, ")", 2);
	px_json_str(x, o, x->line.err ? "?" : (const char *)x->line.p);
	px_buf_str(x, o, ",\"unit\":\"nanoseconds\",\"startValue\":0,\n\"samples\":[");
	for (size_t i = at, n = 0; i < x->nstacks; i++) {
		const px_stack_t *s = &x->stacks[i];
		if (done[i] || !ss_same(x, s, p))
			continue;
		px_buf_str(x, o, n++ ? ",\n[" : "\n[");
		for (uint32_t j = 0; j < s->n; j++)
			px_buf_printf(x, o, j ? ",%u" : "%u", x->frames[s->first + j].func);
		px_buf_str(x, o, "]");
		px_buf_maybe_flush(x, o);
	}
	px_buf_str(x, o, "],\n\"weights\":[");
	for (size_t i = at, n = 0; i < x->nstacks; i++) {
		const px_stack_t *s = &x->stacks[i];
		if (done[i] || !ss_same(x, s, p))
			continue;
		uint64_t w = s->ns;
		px_buf_printf(x, o, n++ ? ",%llu" : "%llu", (unsigned long long)w);
		total += w;
		done[i] = true;
	}
	px_buf_printf(x, o, "],\"endValue\":%llu}", (unsigned long long)total);
}

/* Write the speedscope JSON of the model to x->out. */
void px_speedscope(px_t *x)
{
	px_buf_t o = { 0 };
	bool *done = px_alloc(x, x->nstacks);

	if (!done)
		return;
	memset(done, 0, x->nstacks);
	px_buf_str(x, &o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n");
	ss_frames(x, &o);
	px_buf_str(x, &o, "\"profiles\":[\n");
	for (size_t i = 0, n = 0; i < x->nstacks; i++) {
		if (done[i])
			continue;
		px_buf_str(x, &o, n++ ? ",\n" : "");
		ss_profile(x, &o, i, done);
	}
	px_buf_str(x, &o, "],\n\"name\":");
	px_json_str(x, &o, x->o->title ? x->o->title : "vprof");
	px_buf_str(x, &o, ",\"activeProfileIndex\":0,\"exporter\":\"vprof\"}\n");
	px_buf_flush(x, &o);
	px_buf_free(x, &o);
	px_release(x, done);
}
