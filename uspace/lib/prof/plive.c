/*
 * The live view of a running session (`sprofile -l`, `profile -l`; like
 * `perf top`). ptool_live_run reads the stream as ptool_run does (the
 * same DATA_READs into the same report and -o sink) and every refresh
 * period (-i, 1 s) takes the report's rows into the live table
 * (lib/proflive.h: counts since the start and over the last refresh)
 * and draws a frame on the console as top does: ESC[H, each line ended
 * by ESC[K and cut to the screen's width, the rows below blanked. The
 * frame: what is sampled, the last refresh's and the total samples, the
 * view (mode, task, sort), the keys; the hottest rows of the view; the
 * status line (samples, lost, missed, rate, elapsed: the kernel's
 * counts). Keys: prof_live_key. A session that ends by itself (-d, the
 * target's end) stays on the screen, "(ended: q quits)".
 */
#include <console.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include <lib/proflive.h>
#include <ptool.h>

#define ROWS_MIN 8
#define LINE_MAX 256
#define FRAME_MIN 4096
#define KEYS_MAX 32
#define NS_PER_S 1000000000ull
#define IDLE_POLL_NS (100 * 1000000ull)
#define TASK_WIDTH 20

typedef unsigned long long ull;

typedef struct plive {
	ptool_t *t;
	prof_live_t *table;
	prof_live_ui_t ui;
	unsigned rows, cols;            /* the console's */
	uint64_t next_ns;               /* the next refresh */
	uint64_t last_ns, span_ns;      /* the last refresh, and what it covered */
	prof_status_t st;               /* the kernel's counts at the last look */
	char status[LINE_MAX];          /* ... as the status line says them */
	bool nomem;                     /* a refresh ran out of memory */
	char *frame;                    /* the frame being made */
	size_t len, cap;
	unsigned lines;                 /* its lines so far */
} plive_t;

/* ------------------------------------------------------------ the frame */

/* Append n bytes of s to the frame (dropped without memory). */
static void frame_put(plive_t *p, const char *s, size_t n)
{
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : FRAME_MIN;
		char *f = cap >= p->len + n ? realloc(p->frame, cap) : NULL;
		if (!f)
			return;
		p->frame = f;
		p->cap = cap;
	}
	memcpy(p->frame + p->len, s, n);
	p->len += n;
}

/* One line of the frame (printf-style), cut to the width; none past the screen. */
static __attribute__((format(printf, 2, 3)))
void frame_line(plive_t *p, const char *fmt, ...)
{
	char line[LINE_MAX];
	va_list ap;

	if (p->lines + 1 >= p->rows)
		return;                 /* the last row stays empty: no scrolling */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	if (n > p->cols - 1)
		n = p->cols - 1;
	frame_put(p, line, n);
	frame_put(p, "\x1b[K\n", 4);
	p->lines++;
}

/* Blank lines down to the status line, the status line, then out. */
static void frame_end(plive_t *p)
{
	const ptool_t *t = p->t;

	while (p->lines + 2 < p->rows)
		frame_line(p, "%s", "");
	frame_line(p, "%s%s%s", p->status, t->drained ? " (ended: q quits)" : "",
		   p->nomem ? " (out of memory)" : "");
	fwrite(p->frame, 1, p->len, stdout);
	fflush(stdout);
	p->len = 0;
	p->lines = 0;
}

/* ------------------------------------------------------------ drawing */

/* "SOURCE at HZ Hz on N CPUs", and the target of a task session. */
static void draw_what(plive_t *p)
{
	char src[PROF_SRC_NAME_MAX], task[32] = "";
	const ptool_t *t = p->t;

	if (t->target)
		snprintf(task, sizeof(task), ", task %llu", (ull)t->target);
	frame_line(p, "%s -l: %s at %u Hz on %u CPUs%s, refresh %llu.%llu s", t->o->prog,
		   ptool_source_name(p->st.source, src), p->st.hz, p->st.ncpus, task,
		   (ull)(t->o->refresh_ns / NS_PER_S),
		   (ull)(t->o->refresh_ns / (NS_PER_S / 10) % 10));
}

/* The view's line: the last refresh's and the total samples, mode, task, sort. */
static void draw_view(plive_t *p, uint64_t total, uint64_t last)
{
	const prof_live_ui_t *ui = &p->ui;
	char task[NUM_ENTRY_MAX + 8];

	if (ui->entry.active)
		snprintf(task, sizeof(task), "%s_", ui->entry.text);
	else if (ui->view.by_task)
		snprintf(task, sizeof(task), "%llu", (ull)ui->view.task);
	else
		strcpy(task, "all");
	frame_line(p, "last %llu.%llu s: %llu samples, since start: %llu; show %s, "
		   "task %s, sort %s", (ull)(p->span_ns / NS_PER_S),
		   (ull)(p->span_ns / (NS_PER_S / 10) % 10), (ull)last, (ull)total,
		   prof_live_mode_name(ui->view.mode), task,
		   prof_live_col_name(ui->view.sort));
}

/* Column c's title, with '>' after the one sorted by, into buf. */
static const char *col_title(const plive_t *p, prof_live_col_t c, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", prof_live_col_name(c), p->ui.view.sort == c ? ">" : "");
	return buf;
}

static void draw_titles(plive_t *p)
{
	char a[16], b[16], c[16], d[24], e[16];

	frame_line(p, "%7s %7s %9s  %-*s  %s", col_title(p, PROF_LIVE_LAST, a, sizeof(a)),
		   col_title(p, PROF_LIVE_TOTAL, b, sizeof(b)),
		   col_title(p, PROF_LIVE_SAMPLES, c, sizeof(c)), TASK_WIDTH,
		   col_title(p, PROF_LIVE_TASK, d, sizeof(d)),
		   col_title(p, PROF_LIVE_FUNC, e, sizeof(e)));
}

/* One row: its shares of the view's last refresh and total, samples, task, function. */
static void draw_row(plive_t *p, const prof_live_row_t *r, uint64_t total, uint64_t last)
{
	unsigned l = prof_live_centi(r->last, last), s = prof_live_centi(r->total, total);
	char task[TASK_WIDTH + 1];

	if (r->task == PROF_ROW_IDLE)
		snprintf(task, sizeof(task), "[idle]");
	else
		snprintf(task, sizeof(task), "%llu %s", (ull)r->task, r->task_name);
	frame_line(p, "%3u.%02u%% %3u.%02u%% %9llu  %-*s  %s%s", l / 100, l % 100, s / 100,
		   s % 100, (ull)r->total, TASK_WIDTH, task, r->func, r->kernel ? " [k]" : "");
}

static void draw_table(plive_t *p)
{
	uint64_t total = 0, last = 0;

	if (prof_live_select(p->table, &p->ui.view, &total, &last) != EOK)
		p->nomem = true;
	draw_what(p);
	draw_view(p, total, last);
	frame_line(p, "keys: < > sort, m all/user/kernel, t task, a pause, h help, q quit");
	draw_titles(p);
	for (size_t i = 0; i < prof_live_count(p->table) && p->lines + 2 < p->rows; i++)
		draw_row(p, prof_live_at(p->table, i), total, last);
}

static void draw(plive_t *p)
{
	if (p->ui.help) {
		for (size_t i = 0; prof_live_help[i]; i++)
			frame_line(p, "%s", prof_live_help[i]);
	} else {
		draw_table(p);
	}
	frame_end(p);
}

/* ------------------------------------------------------------ the loop */

/* The kernel's counts into the status line (kept when it does not answer). */
static void status_update(plive_t *p)
{
	prof_status_t st;
	char line[LINE_MAX];

	if (!ptool_status_text(p->t, &st, line, sizeof(line)))
		return;
	p->st = st;
	strcpy(p->status, line);
}

/* Take the report's rows into the table: the refresh at now. */
static void refresh(plive_t *p, uint64_t now)
{
	prof_report_opts_t ro = { .style = p->t->o->style };

	if (prof_live_refresh(p->table, p->t->report, &ro) != EOK)
		p->nomem = true;
	p->span_ns = now - p->last_ns;
	p->last_ns = now;
	p->next_ns = now + p->t->o->refresh_ns;
	status_update(p);
}

/* The keys typed since the last look; whether to draw again. */
static bool take_keys(plive_t *p)
{
	char keys[KEYS_MAX];
	size_t n = console_keys_take(p->t->keys, keys, sizeof(keys));
	bool again = false;

	for (size_t i = 0; i < n && !p->t->quit; i++) {
		prof_live_act_t a = prof_live_key(&p->ui, keys[i]);
		if (a == PROF_LIVE_ACT_QUIT) {
			p->t->quit = true;
			ptool_end(p->t);
		} else if (a == PROF_LIVE_ACT_PAUSE) {
			ptool_pause(p->t);
			status_update(p);
		}
		again |= a != PROF_LIVE_ACT_NONE;
	}
	return again;
}

/*
 * Read once (or wait, once drained), keys, the refresh (an ended session
 * keeps its last one). EOK or the read's error.
 */
static errno_t step(plive_t *p)
{
	ptool_t *t = p->t;
	bool drained = t->drained;
	errno_t rc = drained ? EOK : ptool_read_once(t);

	if (rc != EOK)
		return rc;
	if (drained)
		sys_sleep_ns(IDLE_POLL_NS);
	uint64_t now = sys_clock_ns(CLOCK_MONOTONIC);
	ptool_check_end(t, now);
	bool again = take_keys(p);
	if ((now >= p->next_ns && !drained) || t->drained != drained) {
		refresh(p, now);
		again = true;
	}
	if (again && !t->quit)
		draw(p);
	return EOK;
}

/* The table, the keys' state, the console's size; the screen cleared. */
static bool live_open(plive_t *p, ptool_t *t)
{
	static const prof_stdio_t none = { NULL, NULL, NULL };
	prof_env_t env = prof_env_stdio(&none);

	memset(p, 0, sizeof(*p));
	p->t = t;
	if (prof_live_new(&env, &p->table) != EOK)
		return false;
	prof_live_ui_init(&p->ui);
	console_size_or_default(console_stdio_phone(), ROWS_MIN, &p->rows, &p->cols);
	p->last_ns = t->start_ns;
	p->next_ns = t->start_ns + t->o->refresh_ns;
	snprintf(p->status, sizeof(p->status), "%s: starting", t->o->prog);
	status_update(p);
	fputs("\x1b[H\x1b[2J", stdout);
	return true;
}

int ptool_live_run(ptool_t *t)
{
	plive_t p;
	errno_t rc = EOK;

	if (!live_open(&p, t)) {
		fprintf(stderr, "%s: out of memory\n", t->o->prog);
		return 1;
	}
	draw(&p);
	while (!t->quit && rc == EOK)
		rc = step(&p);
	while (rc == EOK && !t->drained)
		rc = ptool_read_once(t);        /* the rest, for -o */
	if (rc == EOK)
		fputs("\x1b[H\x1b[2J", stdout);    /* a read error's message stays */
	fflush(stdout);
	status_update(&p);
	fprintf(stderr, "%s\n", p.status);
	prof_live_free(p.table);
	free(p.frame);
	return rc == EOK ? 0 : 1;
}
