/*
 * top: the text of one frame. The screen form starts at the top left
 * (ESC [ H), erases the rest of each line (ESC [ K), is cut to the
 * console's rows and columns and blanks the rows below it; the batch form
 * is plain lines, every row of the table. Pure: also built on the host.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

#define LINE_MAX 512
#define BAR_WIDTH 20
#define OUT_MIN 4096

static void out_put(top_out_t *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : OUT_MIN;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *buf = realloc(o->buf, cap);
		if (!buf) {
			o->failed = true;
			return;
		}
		o->buf = buf;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void top_out_begin(top_out_t *o, bool screen, unsigned rows, unsigned cols)
{
	o->len = 0;
	o->screen = screen;
	o->rows = rows;
	o->cols = cols;
	o->lines = 0;
	o->failed = false;
	if (screen)
		out_put(o, "\x1b[H", 3);
}

/* Whether another line fits (the screen's last row stays empty). */
static bool out_room(const top_out_t *o)
{
	return !o->screen || o->lines + 1 < o->rows;
}

void top_out_line(top_out_t *o, const char *fmt, ...)
{
	char line[LINE_MAX];
	va_list ap;

	if (!out_room(o))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	if (o->screen && o->cols && n > o->cols - 1)
		n = o->cols - 1;
	out_put(o, line, n);
	if (o->screen)
		out_put(o, "\x1b[K", 3);
	out_put(o, "\n", 1);
	o->lines++;
}

void top_out_end(top_out_t *o)
{
	if (!o->screen)
		return;
	while (out_room(o))
		top_out_line(o, "%s", "");
	out_put(o, "\x1b[K\x1b[J", 6);
}

void top_out_free(top_out_t *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

/* ------------------------------------------------------------- header */

static void header_time(top_out_t *o, const top_snap_t *s)
{
	char clock[16], up[48], load[3][16];

	top_fmt_clock(clock, sizeof(clock), s->realtime_ns);
	top_fmt_uptime(up, sizeof(up), s->uptime_ns);
	for (int i = 0; i < 3; i++)
		stats_fmt_load(load[i], sizeof(load[i]), s->load.avg[i]);
	top_out_line(o, "top - %s up %s, load average: %s %s %s", clock, up,
		     load[0], load[1], load[2]);
}

static void header_counts(top_out_t *o, const top_snap_t *s)
{
	top_counts_t c;

	top_count(s, &c);
	top_out_line(o, "Tasks: %zu total; threads: %zu total, %zu running, "
		     "%zu ready, %zu sleeping, %zu zombie", c.tasks, c.threads,
		     c.state[SYSINFO_THREAD_RUNNING], c.state[SYSINFO_THREAD_READY],
		     c.state[SYSINFO_THREAD_SLEEPING], c.state[SYSINFO_THREAD_ZOMBIE]);
}

static void header_cpu(top_out_t *o, const top_pair_t *p, size_t i)
{
	const sysinfo_cpu_t *c = &top_cpus(p->cur)[i];
	char bar[BAR_WIDTH + 3], busy[8], idle[8], irq[8];
	top_cpu_share_t sh;

	if (!c->active) {
		top_out_line(o, "cpu%-3u offline", c->id);
		return;
	}
	top_cpu_shares(p, i, &sh);
	top_fmt_bar(bar, sizeof(bar), sh.busy + sh.irq, BAR_WIDTH);
	stats_fmt_permille(busy, sizeof(busy), sh.busy);
	stats_fmt_permille(idle, sizeof(idle), sh.idle);
	stats_fmt_permille(irq, sizeof(irq), sh.irq);
	top_out_line(o, "cpu%-3u %s %5s%% busy %5s%% idle %5s%% irq", c->id,
		     bar, busy, idle, irq);
}

static void header_mem(top_out_t *o, const sysinfo_physmem_t *m)
{
	char total[16], used[16], free_[16], unavail[16];

	top_fmt_bytes(total, sizeof(total), m->total);
	top_fmt_bytes(used, sizeof(used), m->used);
	top_fmt_bytes(free_, sizeof(free_), m->free);
	top_fmt_bytes(unavail, sizeof(unavail), m->unavailable);
	top_out_line(o, "Mem: %s total, %s used, %s free, %s unavailable",
		     total, used, free_, unavail);
}

static void render_header(top_out_t *o, const top_pair_t *p)
{
	header_time(o, p->cur);
	header_counts(o, p->cur);
	for (size_t i = 0; i < p->cur->ncpus; i++)
		header_cpu(o, p, i);
	header_mem(o, &p->cur->mem);
	top_out_line(o, "%s", "");
}

/* -------------------------------------------------------------- table */

/* Append the text of one cell (right-aligned in its width, or as is). */
static size_t put_cell(char *line, size_t at, const top_col_t *c,
		       const char *text)
{
	if (at >= LINE_MAX - 1)
		return at;
	int n = c->width ? snprintf(line + at, LINE_MAX - at, "%*s ",
				    (int)c->width, text)
		: snprintf(line + at, LINE_MAX - at, "%s", text);
	at += n > 0 ? (size_t)n : 0;
	return at < LINE_MAX - 1 ? at : LINE_MAX - 1;
}

/* Write line without its trailing blanks (a last column without text). */
static void put_trimmed(top_out_t *o, char *line, size_t at)
{
	while (at > 0 && line[at - 1] == ' ')
		line[--at] = '\0';
	top_out_line(o, "%s", line);
}

static void render_titles(top_out_t *o, const top_viewdef_t *def)
{
	char line[LINE_MAX];
	size_t at = 0;

	line[0] = '\0';
	for (unsigned i = 0; i < def->ncols; i++)
		at = put_cell(line, at, &def->cols[i], def->cols[i].title);
	put_trimmed(o, line, at);
}

static void render_row(top_out_t *o, const top_viewdef_t *def,
		       const top_row_t *r)
{
	char line[LINE_MAX], cell[SYSINFO_NAME_MAX + 8];
	size_t at = 0;

	line[0] = '\0';
	for (unsigned i = 0; i < def->ncols; i++) {
		top_fmt_cell(cell, sizeof(cell), &def->cols[i], r, i);
		at = put_cell(line, at, &def->cols[i], cell);
	}
	put_trimmed(o, line, at);
}

/* What is shown and how it is sorted (and, on the screen, the keys). */
static void render_status(top_out_t *o, const top_ui_t *ui)
{
	const top_viewdef_t *def = top_view(ui->view);
	char what[48] = "";

	if (ui->entry.active) {
		top_out_line(o, "threads of task: %s_   (Enter: show, empty: "
			     "all tasks; Esc: never mind)", ui->entry.text);
		return;
	}
	if (ui->view == TOP_VIEW_THREADS && ui->task)
		snprintf(what, sizeof(what), " of task %llu",
			 (unsigned long long)ui->task);
	const char *tail = ui->note[0] ? ui->note : o->screen ? "(h: help, q: quit)" : "";
	top_out_line(o, "%s%s, sorted by %s%s%s%s", def->name, what,
		     def->cols[ui->sort[ui->view]].title,
		     ui->reverse[ui->view] ? ", reversed" : "", tail[0] ? "   " : "", tail);
}

static const char *const help_text[] = {
	"top: the keys",
	"",
	"  t      tasks: threads, %CPU, IMP%, TOTAL%, user and kernel time, memory",
	"  i      IPC: calls and answers sent (>) and received (<), per second",
	"  e      interrupts and exceptions: count, delta, cycles, %CPU",
	"  c      CPUs: busy, idle and irq shares and times, switches",
	"  T      threads of a task: type its id and Enter (empty: all)",
	"  < >    sort by the column to the left / right",
	"  r      reverse the order",
	"  R      dump the flight recorder to /tmp/recorder.N.prof",
	"  h ?    this help (any key leaves it)",
	"  q      quit",
	"",
	"%CPU is a share of one CPU over the interval (elapsed TSC cycles);",
	"a task can reach CPUs x 100%. Thread states: R running, r ready,",
	"S sleeping, Z zombie. IMP%: CPU other tasks spent serving the",
	"task's calls (IPC origin); TOTAL%: %CPU + IMP%.",
};

static void render_help(top_out_t *o)
{
	for (size_t i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
		top_out_line(o, "%s", help_text[i]);
}

void top_render(top_out_t *o, const top_pair_t *p, const top_ui_t *ui,
		const top_table_t *t)
{
	render_header(o, p);
	if (ui->help) {
		render_help(o);
		return;
	}
	render_status(o, ui);
	render_titles(o, t->def);
	for (size_t i = 0; i < t->nrows && out_room(o); i++)
		render_row(o, t->def, &t->rows[i]);
}
