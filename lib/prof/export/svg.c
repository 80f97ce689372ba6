/*
 * The svg export and the flame graph builder (prof_flame_*, which vprof
 * diff uses too): a self-contained interactive flame graph.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- svg */

/*
 * The flame graph (prof_flame_*, also drawn by vprof diff from two
 * profiles): a tree of nodes (root "all", tasks, then frames), a child
 * per (parent, kind, name); laid out in samples from the left, children
 * most samples first. Widths are written in tenths of a pixel (integer
 * arithmetic); the inline script lays the frames out again when zooming
 * and searching.
 */
#define FG_WIDTH 1200                   /* px */
#define FG_PAD 10
#define FG_FRAME 16                     /* px per level */
#define FG_TOP 64                       /* title, search box */
#define FG_BOTTOM 28                    /* details line */
#define FG_HEAT_MAX 1000

typedef struct fg_node {
	uint32_t parent, depth;
	const char *name;               /* in the arena */
	uint8_t kind;                   /* PROF_FLAME_* */
	int16_t heat;                   /* diff: -1000 (shrank) .. 1000 (grew) */
	uint64_t count, count_a, x;     /* count: samples (B's in a diff) */
} fg_node_t;

struct prof_flame {
	px_t x;                         /* memory, the arena, the sticky error */
	fg_node_t *n;
	size_t count, cap;
	px_map_t map;                   /* (parent, kind, name) -> node index */
	uint32_t maxdepth;
};

errno_t prof_flame_new(const prof_env_t *env, prof_flame_t **out)
{
	prof_flame_t *f = env->alloc(env->ctx, sizeof(*f));

	if (!f)
		return ENOMEM;
	memset(f, 0, sizeof(*f));
	f->x.env = env;
	if (!px_reserve(&f->x, (void **)&f->n, &f->cap, 0, sizeof(fg_node_t))) {
		env->release(env->ctx, f);
		return ENOMEM;
	}
	f->n[0] = (fg_node_t){ .parent = PROF_FLAME_NONE, .name = "all" };
	f->count = 1;
	*out = f;
	return EOK;
}

void prof_flame_free(prof_flame_t *f)
{
	if (!f)
		return;
	px_release(&f->x, f->n);
	px_map_free(&f->x, &f->map);
	px_free(&f->x);
	f->x.env->release(f->x.env->ctx, f);
}

uint32_t prof_flame_child(prof_flame_t *f, uint32_t parent, const char *name, size_t len,
			  unsigned kind)
{
	px_t *x = &f->x;
	unsigned char head[5] = { (unsigned char)parent, (unsigned char)(parent >> 8),
				  (unsigned char)(parent >> 16), (unsigned char)(parent >> 24),
				  (unsigned char)kind };
	bool added;

	if (x->err || parent >= f->count)
		return PROF_FLAME_NONE;
	x->line.len = 0;
	px_buf_put(x, &x->line, head, sizeof(head));
	px_buf_put(x, &x->line, name, len);
	px_entry_t *e = x->line.err ? NULL : px_map_get(x, &f->map, x->line.p, x->line.len, &added);
	if (e && added) {
		uint32_t d = f->n[parent].depth + 1;
		if (!px_reserve(x, (void **)&f->n, &f->cap, f->count, sizeof(fg_node_t)))
			return PROF_FLAME_NONE;
		/* The key holds the name after the 5-byte head (NUL-terminated). */
		f->n[f->count] = (fg_node_t){ parent, d, e->key + sizeof(head), (uint8_t)kind,
					      0, 0, 0, 0 };
		f->maxdepth = d > f->maxdepth ? d : f->maxdepth;
		e->val = f->count++;
	}
	if (!e)
		x->err = ENOMEM;
	return e ? (uint32_t)e->val : PROF_FLAME_NONE;
}

void prof_flame_count(prof_flame_t *f, uint32_t node, uint64_t count, uint64_t count_a)
{
	for (; node < f->count; node = f->n[node].parent) {
		f->n[node].count += count;
		f->n[node].count_a += count_a;
	}
}

size_t prof_flame_size(const prof_flame_t *f)
{
	return f->count;
}

void prof_flame_counts(const prof_flame_t *f, uint32_t node, uint64_t *count,
		       uint64_t *count_a)
{
	*count = node < f->count ? f->n[node].count : 0;
	*count_a = node < f->count ? f->n[node].count_a : 0;
}

void prof_flame_heat(prof_flame_t *f, uint32_t node, int heat)
{
	if (node < f->count)
		f->n[node].heat = (int16_t)(heat > FG_HEAT_MAX ? FG_HEAT_MAX :
					    heat < -FG_HEAT_MAX ? -FG_HEAT_MAX : heat);
}

/* Children: by parent, most samples first, then as created. */
static int fg_cmp(const void *a, const void *b, void *ctx)
{
	const fg_node_t *n = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (n[i].parent != n[j].parent)
		return n[i].parent < n[j].parent ? -1 : 1;
	if (n[i].count != n[j].count)
		return n[i].count > n[j].count ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Each node's x (in samples): after its elder siblings, from its parent's. */
static void fg_layout(prof_flame_t *f)
{
	uint32_t *ord = px_alloc(&f->x, f->count * sizeof(uint32_t));
	uint32_t parent = PROF_FLAME_NONE;
	uint64_t cursor = 0;

	if (!ord)
		return;
	for (uint32_t i = 1; i < f->count; i++)
		ord[i - 1] = i;
	prof_sort(ord, f->count - 1, sizeof(uint32_t), fg_cmp, f->n);
	for (size_t k = 0; k + 1 < f->count; k++) {
		fg_node_t *c = &f->n[ord[k]];
		if (c->parent != parent) {
			parent = c->parent;
			cursor = f->n[parent].x;
		}
		c->x = cursor;
		cursor += c->count;
	}
	px_release(&f->x, ord);
}

/* s with XML's special characters escaped. */
static void xml_str(px_t *x, px_buf_t *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': px_buf_str(x, b, "&amp;"); break;
		case '<': px_buf_str(x, b, "&lt;"); break;
		case '>': px_buf_str(x, b, "&gt;"); break;
		case '"': px_buf_str(x, b, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20)
				px_buf_put(x, b, s, 1);
		}
	}
}

/*
 * Fill colours. A profile: by family, user frames warm (red to yellow),
 * kernel frames blue, tasks green, unknown addresses grey; the shade from
 * the name. A diff: red where the share grew, blue where it shrank, the
 * deeper the larger the change (heat); a light grey where it did not
 * change significantly (heat 0).
 */
static void fg_fill(const fg_node_t *n, bool diff, char *buf, size_t size)
{
	uint64_t h = profbin_fnv(n->name, strlen(n->name));
	h ^= h >> 31;                   /* the shade's hash: FNV-1a, folded */
	unsigned a = (unsigned)(h % 56), b = (unsigned)((h >> 8) % 100);
	unsigned pale = 210 - 150 * (unsigned)(n->heat < 0 ? -n->heat : n->heat) / FG_HEAT_MAX;

	if (diff && n->heat > 0)
		fmt_snprintf(buf, size, "rgb(255,%u,%u)", pale, pale);
	else if (diff && n->heat < 0)
		fmt_snprintf(buf, size, "rgb(%u,%u,255)", pale, pale);
	else if (diff || n->kind == PROF_FLAME_K_ROOT)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", diff ? 225 : 200, diff ? 225 : 200,
			     diff ? 225 : 200);
	else if (n->kind == PROF_FLAME_K_TASK)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 90 + a, 180 + a / 2, 90 + a);
	else if (n->kind == PROF_FLAME_K_KERNEL)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 60 + a, 120 + b / 2, 200 + a);
	else if (n->kind == PROF_FLAME_K_UNKNOWN)
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 160 + a, 160 + a, 160 + a);
	else
		fmt_snprintf(buf, size, "rgb(%u,%u,%u)", 200 + a, 60 + b + b / 2, 40 + a / 2);
}

/* Tenths of a pixel of v samples of total across the drawing width. */
static uint64_t fg_tenths(uint64_t v, uint64_t total)
{
	return total ? v * (10 * (FG_WIDTH - 2 * FG_PAD)) / total : 0;
}

/* v of total in hundredths of a percent, rounded. */
static uint64_t fg_centi(uint64_t v, uint64_t total)
{
	return total ? (v * 10000 + total / 2) / total : 0;
}

/* The hover text: NAME (N samples, P%), or NAME (A: .., B: .., +D points). */
static void fg_title(px_t *x, px_buf_t *o, const prof_flame_t *f, const fg_node_t *n, bool diff)
{
	uint64_t pb = fg_centi(n->count, f->n[0].count), pa = fg_centi(n->count_a, f->n[0].count_a);
	uint64_t d = pb > pa ? pb - pa : pa - pb;

	xml_str(x, o, n->name);
	if (!diff) {
		px_buf_printf(x, o, " (%llu samples, %llu.%02llu%%)", (unsigned long long)n->count,
			   (unsigned long long)(pb / 100), (unsigned long long)(pb % 100));
		return;
	}
	px_buf_printf(x, o, " (A: %llu samples, %llu.%02llu%%; B: %llu samples, %llu.%02llu%%; "
		   "%c%llu.%02llu points)", (unsigned long long)n->count_a,
		   (unsigned long long)(pa / 100), (unsigned long long)(pa % 100),
		   (unsigned long long)n->count, (unsigned long long)(pb / 100),
		   (unsigned long long)(pb % 100), pb < pa ? '-' : '+',
		   (unsigned long long)(d / 100), (unsigned long long)(d % 100));
}

static void fg_node(prof_flame_t *f, px_buf_t *o, const fg_node_t *n, bool diff)
{
	px_t *x = &f->x;
	uint64_t total = f->n[0].count;
	uint64_t w = fg_tenths(n->count, total), at = 10 * FG_PAD + fg_tenths(n->x, total);
	unsigned y = FG_TOP + (f->maxdepth - n->depth) * FG_FRAME;
	char fill[32];

	fg_fill(n, diff, fill, sizeof(fill));
	px_buf_printf(x, o, "<g class=\"f\" data-depth=\"%u\" data-x=\"%llu\" data-n=\"%llu\" ",
		   n->depth, (unsigned long long)n->x, (unsigned long long)n->count);
	if (diff)
		px_buf_printf(x, o, "data-a=\"%llu\" data-heat=\"%d\" ",
			   (unsigned long long)n->count_a, n->heat);
	px_buf_str(x, o, "data-name=\"");
	xml_str(x, o, n->name);
	px_buf_str(x, o, "\"><title>");
	fg_title(x, o, f, n, diff);
	px_buf_printf(x, o, "</title><rect x=\"%llu.%llu\" y=\"%u\" width=\"%llu.%llu\" height=\"%u\" "
		   "fill=\"%s\" data-fill=\"%s\"/><text x=\"%llu\" y=\"%u\"></text></g>\n",
		   (unsigned long long)(at / 10), (unsigned long long)(at % 10), y,
		   (unsigned long long)(w / 10), (unsigned long long)(w % 10), FG_FRAME - 1, fill,
		   fill, (unsigned long long)(at / 10 + 3), y + FG_FRAME - 4);
	px_buf_maybe_flush(x, o);
}

/* The script: zoom on click, details on hover, search (window.vprofSearch). */
static const char fg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"'use strict';\n"
	"var W = %u, PAD = %u;\n"
	"var nodes = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  return { g: g, r: g.querySelector('rect'), t: g.querySelector('text'),\n"
	"    x: +g.getAttribute('data-x'), n: +g.getAttribute('data-n'),\n"
	"    d: +g.getAttribute('data-depth'), name: g.getAttribute('data-name'),\n"
	"    title: g.querySelector('title').textContent };\n"
	"});\n"
	"var root = nodes[0], zoom = root;\n"
	"var details = document.getElementById('details');\n"
	"function share(n) { return (100 * n / root.n).toFixed(2) + '%%'; }\n"
	"function label(o, w) {\n"
	"  var chars = Math.floor((w - 6) / 7);\n"
	"  return chars < 3 ? '' : o.name.length <= chars ? o.name : o.name.slice(0, chars - 2) + '..';\n"
	"}\n"
	"function place() {\n"
	"  var scale = (W - 2 * PAD) / zoom.n;\n"
	"  nodes.forEach(function (o) {\n"
	"    var inside = o.d >= zoom.d && o.x >= zoom.x && o.x + o.n <= zoom.x + zoom.n;\n"
	"    var above = o.d < zoom.d && o.x <= zoom.x && o.x + o.n >= zoom.x + zoom.n;\n"
	"    o.g.style.display = inside || above ? '' : 'none';\n"
	"    if (!inside && !above) return;\n"
	"    var x = above ? PAD : PAD + (o.x - zoom.x) * scale, w = above ? W - 2 * PAD : o.n * scale;\n"
	"    o.r.setAttribute('x', x.toFixed(1));\n"
	"    o.r.setAttribute('width', w.toFixed(1));\n"
	"    o.t.setAttribute('x', (x + 3).toFixed(1));\n"
	"    o.t.textContent = label(o, w);\n"
	"  });\n"
	"}\n"
	"nodes.forEach(function (o) {\n"
	"  o.g.addEventListener('click', function () { zoom = o; place(); });\n"
	"  o.g.addEventListener('mouseover', function () { details.textContent = o.title; });\n"
	"  o.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"window.vprofSearch = function (term) {\n"
	"  var hits = nodes.filter(function (o) {\n"
	"    var hit = term !== '' && o.name.indexOf(term) >= 0;\n"
	"    o.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : o.r.getAttribute('data-fill'));\n"
	"    return hit;\n"
	"  });\n"
	"  hits.sort(function (a, b) { return a.x - b.x || a.d - b.d; });\n"
	"  var end = -1, n = 0;\n"
	"  hits.forEach(function (o) { if (o.x >= end) { n += o.n; end = o.x + o.n; } });\n"
	"  document.getElementById('matched').textContent =\n"
	"    term === '' ? ' ' : 'Matched: ' + share(n) + ' (' + n + ' samples)';\n"
	"  return n;\n"
	"};\n"
	"document.getElementById('search').addEventListener('input', function (e) {\n"
	"  window.vprofSearch(e.target.value);\n"
	"});\n"
	"document.getElementById('reset').addEventListener('click', function () {\n"
	"  zoom = root; place();\n"
	"});\n"
	"place();\n"
	"})();\n"
	"]]></script>\n";

/* The document's head: size, title, heading, search box, details line. */
static void fg_head(px_t *x, px_buf_t *o, const prof_flame_opts_t *fo, unsigned height)
{
	const char *title = fo->title ? fo->title : "vprof";

	px_buf_printf(x, o, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n<title>", FG_WIDTH, height, FG_WIDTH,
		   height);
	xml_str(x, o, title);
	px_buf_printf(x, o, " - vprof %sflame graph</title>\n<style>text { font-family: monospace; "
		   "font-size: 12px; } g.f text { pointer-events: none; } g.f:hover rect "
		   "{ stroke: black; stroke-width: 0.5; } #reset { cursor: pointer; }</style>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		   "<text x=\"%u\" y=\"20\" font-size=\"15\">", fo->diff ? "differential " : "",
		   FG_PAD);
	xml_str(x, o, title);
	if (fo->heading) {
		px_buf_str(x, o, ": ");
		xml_str(x, o, fo->heading);
	}
	px_buf_printf(x, o, "</text>\n<text id=\"reset\" x=\"%u\" y=\"44\">[reset zoom]</text>\n"
		   "<foreignObject x=\"%u\" y=\"28\" width=\"220\" height=\"24\">"
		   "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" "
		   "placeholder=\"search\" style=\"width: 200px\"/></foreignObject>\n"
		   "<text id=\"matched\" x=\"%u\" y=\"44\"> </text>\n"
		   "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", FG_PAD, FG_PAD + 120,
		   FG_PAD + 360, FG_PAD, height - 10);
}

errno_t prof_flame_write(prof_flame_t *f, const prof_flame_opts_t *fo,
			 const prof_export_out_t *out)
{
	px_t *x = &f->x;
	px_buf_t o = { 0 };
	unsigned height = FG_TOP + (f->maxdepth + 1) * FG_FRAME + FG_BOTTOM;

	x->out = out;
	if (!x->err && f->n[0].count == 0)
		return ENOENT;
	if (!x->err)
		fg_layout(f);
	if (!x->err)
		fg_head(x, &o, fo, height);
	for (size_t i = 0; i < f->count && !x->err; i++) {
		/* Frames narrower than 0.1 px are left out (as flamegraph.pl does). */
		if (fg_tenths(f->n[i].count, f->n[0].count) > 0)
			fg_node(f, &o, &f->n[i], fo->diff);
	}
	px_buf_printf(x, &o, fg_script, FG_WIDTH, FG_PAD);
	px_buf_str(x, &o, "</svg>\n");
	if (!x->err)
		px_buf_flush(x, &o);
	px_buf_free(x, &o);
	return x->err;
}

/* A frame's name and kind as the flame graph shows it, into x->line. */
static unsigned px_frame_label(px_t *x, const px_func_t *f)
{
	x->line.len = 0;
	px_buf_str(x, &x->line, f->name);
	if (!f->known && !f->kernel)
		px_buf_printf(x, &x->line, " (%s)", px_bin_base(x, f->bin));
	if (f->kernel)
		px_buf_str(x, &x->line, " [k]");
	return f->kernel ? PROF_FLAME_K_KERNEL : f->known ? PROF_FLAME_K_USER : PROF_FLAME_K_UNKNOWN;
}

/* A task's name as the flame graph shows it (NAME-ID when shared), into x->line. */
static void px_task_label(px_t *x, const px_task_t *t)
{
	x->line.len = 0;
	px_buf_str(x, &x->line, t->name);
	if (t->shared)
		px_buf_printf(x, &x->line, "-%llu", (unsigned long long)t->id);
}

/* Add the model's stacks to f under root, task, frames. */
static void px_flame_build(px_t *x, prof_flame_t *f)
{
	for (size_t i = 0; i < x->nstacks && !x->err && !f->x.err; i++) {
		const px_stack_t *s = &x->stacks[i];
		px_task_label(x, &x->tasks[s->task]);
		uint32_t at = x->line.err ? PROF_FLAME_NONE :
			prof_flame_child(f, PROF_FLAME_ROOT, (const char *)x->line.p, x->line.len,
					 PROF_FLAME_K_TASK);
		for (uint32_t j = 0; j < s->n && at != PROF_FLAME_NONE; j++) {
			unsigned kind = px_frame_label(x, &x->funcs[x->frames[s->first + j].func]);
			at = x->line.err ? PROF_FLAME_NONE :
				prof_flame_child(f, at, (const char *)x->line.p, x->line.len, kind);
		}
		if (at == PROF_FLAME_NONE)
			x->err = ENOMEM;
		else
			prof_flame_count(f, at, s->count, 0);
	}
}

/* Write the model as an svg flame graph to x->out. */
void px_svg(px_t *x)
{
	prof_flame_t *f;
	px_buf_t head = { 0 };

	if (prof_flame_new(x->env, &f) != EOK) {
		x->err = ENOMEM;
		return;
	}
	px_flame_build(x, f);
	px_buf_printf(x, &head, "%s at %u Hz on %u CPU%s, %llu samples, %llu lost%c",
		   x->c.source_name, x->c.hz, x->c.ncpus, x->c.ncpus == 1 ? "" : "s",
		   (unsigned long long)x->total, (unsigned long long)x->c.lost, '\0');
	prof_flame_opts_t fo = { x->o->title, (const char *)head.p, false };
	if (!x->err && head.err)
		x->err = ENOMEM;
	if (!x->err)
		x->err = prof_flame_write(f, &fo, x->out);
	px_buf_free(x, &head);
	prof_flame_free(f);
}
