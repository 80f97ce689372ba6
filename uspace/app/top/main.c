/*
 * top: tasks, threads, CPUs, interrupts and memory from sysinfo, full
 * screen on the console (keys: see keys.c) or in batch mode as plain-text
 * snapshots, each starting with a line "top - HH:MM:SS up ...".
 *
 *   top [-h] [-b] [-n N] [-d SECONDS] [-t TASK] [-v VIEW] [-s]
 *
 * Each refresh reads a snapshot and compares it with the one before (the
 * first with the counts at boot, so its shares are since boot). -s ends
 * with what a refresh cost: the cycles (rdtsc) of reading, computing and
 * rendering one frame, and top's own task cycles (user + kernel, from
 * sysinfo) per refresh, which include the writing too.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <tsc.h>
#include <unistd.h>
#include <vernier.h>

#include "top.h"

#define DELAY_DEFAULT_NS TOP_NS_PER_S
#define DELAY_MIN_NS (TOP_NS_PER_S / 10)
#define DELAY_MAX_NS (3600 * TOP_NS_PER_S)
#define POLL_NS (50 * 1000000ull)
#define KEYS_MAX 32

typedef struct opts {
	bool batch, stats;
	uint64_t count;           /* snapshots; 0: until q (or killed) */
	uint64_t delay_ns;
	uint64_t task;
	top_view_t view;
} opts_t;

typedef struct top {
	opts_t o;
	top_snap_t snaps[2];
	top_snap_t boot;          /* before the first snapshot */
	unsigned cur;             /* snaps[cur] is the newest */
	top_pair_t pair;
	top_table_t table;
	top_ui_t ui;
	top_out_t out;
	uint64_t frames;
	uint64_t first_cycles;    /* rdtsc: the first refresh */
	uint64_t work_cycles;     /* rdtsc: the later ones, summed */
	uint64_t self_first;      /* this task's cycles at the first refresh */
	uint64_t self_last;
} top_t;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: top [-h] [-b] [-n N] [-d SECONDS] [-t TASK] [-v VIEW] [-s]\n"
		"  tasks, threads, CPUs, interrupts and memory: full screen on the\n"
		"  console (keys below), or -b for plain text\n"
		"  -b          batch: plain-text snapshots, each from a line 'top - '\n"
		"  -n N        stop after N snapshots (default: never)\n"
		"  -d SECONDS  between snapshots (default 1, decimals, at least 0.1)\n"
		"  -t TASK     start with the threads of task TASK\n"
		"  -v VIEW     start with VIEW: t tasks, i IPC, e interrupts and\n"
		"              exceptions, c CPUs, T threads\n"
		"  -s          at the end, what a refresh cost (top.refresh N cycles)\n"
		"  keys: t i e c T views, < > sort column, r reverse, R dump the flight\n"
		"  recorder to /tmp/recorder.N.prof, h help, q quit\n");
}

/* One option into o; false if it is bad. */
static bool parse_opt(opts_t *o, int opt, const char *arg)
{
	switch (opt) {
	case 'b': o->batch = true; return true;
	case 's': o->stats = true; return true;
	case 'n': return top_parse_uint(arg, 1, UINT32_MAX, &o->count);
	case 'd':
		return top_parse_seconds(arg, DELAY_MIN_NS, DELAY_MAX_NS,
					 &o->delay_ns);
	case 't':
		o->view = TOP_VIEW_THREADS;
		return top_parse_uint(arg, 1, UINT64_MAX, &o->task);
	case 'v':
		o->view = top_view_of_key(arg[0]);
		return arg[0] && !arg[1] && o->view != TOP_VIEW_COUNT;
	default: return false;
	}
}

/* Parse the command line into o; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, opts_t *o)
{
	int opt;

	o->delay_ns = DELAY_DEFAULT_NS;
	while ((opt = getopt(argc, argv, "hbsn:d:t:v:")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (!parse_opt(o, opt, optarg)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* Build, sort and render the frame of t->pair (screen: rows x cols). */
static void draw(top_t *t, bool screen, unsigned rows, unsigned cols)
{
	top_view_t v = t->ui.view;

	if (top_table_build(&t->table, &t->pair, v, t->ui.task) != EOK)
		t->table.nrows = 0;
	top_table_sort(&t->table, t->ui.sort[v], t->ui.reverse[v]);
	top_out_begin(&t->out, screen, rows, cols);
	top_render(&t->out, &t->pair, &t->ui, &t->table);
	top_out_end(&t->out);
}

/* This task's user + kernel cycles in the newest snapshot. */
static uint64_t self_cycles(const top_t *t)
{
	const sysinfo_task_t *k = top_find_task(&t->snaps[t->cur], sys_task_id());

	return k ? k->user_cycles + k->kernel_cycles : 0;
}

/* Read a snapshot, compare it with the last one, draw the frame. */
static errno_t refresh(top_t *t, bool screen, unsigned rows, unsigned cols)
{
	uint64_t t0 = tsc_read();

	t->cur = t->frames ? !t->cur : 0;
	errno_t rc = top_snap_read(&t->snaps[t->cur]);
	if (rc != EOK)
		return rc;
	const top_snap_t *now = &t->snaps[t->cur];
	if (t->frames == 0)
		top_snap_at_boot(&t->boot, now);
	top_pair_init(&t->pair, t->frames ? &t->snaps[!t->cur] : &t->boot, now);
	draw(t, screen, rows, cols);
	uint64_t spent = tsc_read() - t0;
	t->self_last = self_cycles(t);
	if (t->frames++ == 0) {
		t->first_cycles = spent;
		t->self_first = t->self_last;
	} else {
		t->work_cycles += spent;
	}
	return EOK;
}

/* Write the frame out. */
static void emit(top_t *t)
{
	fwrite(t->out.buf, 1, t->out.len, stdout);
	fflush(stdout);
}

/* Whether the snapshots asked for are done. */
static bool done(const top_t *t)
{
	return t->o.count && t->frames >= t->o.count;
}

static int run_batch(top_t *t)
{
	for (;;) {
		errno_t rc = refresh(t, false, 0, 0);
		if (rc != EOK)
			return rc;
		if (t->frames > 1)
			fputs("\n", stdout);
		emit(t);
		if (done(t))
			return EOK;
		sys_sleep_ns(t->o.delay_ns);
	}
}

/* R was typed: dump the flight recorder; true if so (the note changed). */
static bool dump_recorder(top_t *t)
{
	char path[40];

	if (!t->ui.dump)
		return false;
	t->ui.dump = false;
	snprintf(path, sizeof(path), "/tmp/recorder.%u.prof", ++t->ui.dumps);
	top_recorder_dump(path, t->ui.note, sizeof(t->ui.note));
	return true;
}

/*
 * Wait out the delay, applying the keys typed meanwhile (redrawing the
 * frame when they change it); true if one of them quits.
 */
static bool wait_keys(top_t *t, top_term_t *term, unsigned rows, unsigned cols)
{
	uint64_t end = sys_clock_ns(CLOCK_MONOTONIC) + t->o.delay_ns;
	char keys[KEYS_MAX];

	for (uint64_t now = 0; (now = sys_clock_ns(CLOCK_MONOTONIC)) < end;) {
		sys_sleep_ns(end - now < POLL_NS ? end - now : POLL_NS);
		size_t n = top_term_keys(term, keys, sizeof(keys));
		bool again = false;
		for (size_t i = 0; i < n && !t->ui.quit; i++)
			again |= top_ui_key(&t->ui, keys[i]);
		if (t->ui.quit)
			return true;
		again |= dump_recorder(t);
		if (again) {
			draw(t, true, rows, cols);
			emit(t);
		}
	}
	return false;
}

static int run_screen(top_t *t)
{
	errno_t rc;
	unsigned rows, cols;
	top_term_t *term = top_term_open(&rc);

	if (!term)
		return rc;
	for (;;) {
		top_term_size(term, &rows, &cols);
		rc = refresh(t, true, rows, cols);
		if (rc != EOK)
			break;
		emit(t);
		if (done(t) || wait_keys(t, term, rows, cols))
			break;
	}
	top_term_close(term);
	return rc;
}

/* -s: what a refresh cost (bench's "name value unit" lines). */
static void print_cost(const top_t *t)
{
	uint64_t n = t->frames > 1 ? t->frames - 1 : 1;
	uint64_t work = t->frames > 1 ? t->work_cycles : t->first_cycles;

	printf("top.refresh %llu cycles\n", (unsigned long long)(work / n));
	printf("top.refresh.first %llu cycles\n",
	       (unsigned long long)t->first_cycles);
	if (t->frames > 1)
		printf("top.refresh.task %llu cycles\n", (unsigned long long)
		       ((t->self_last - t->self_first) / n));
	printf("tsc.hz %llu Hz\n", (unsigned long long)t->snaps[t->cur].tsc_hz);
}

int main(int argc, char **argv)
{
	static top_t t;
	int status = parse_args(argc, argv, &t.o);

	if (status >= 0)
		return status;
	top_ui_init(&t.ui, t.o.view, t.o.task);
	if (!t.o.batch && !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "top: standard output is not a terminal (try -b)\n");
		return 1;
	}
	errno_t rc = t.o.batch ? run_batch(&t) : run_screen(&t);
	if (rc != EOK) {
		fprintf(stderr, "top: %s\n", strerror(rc));
		return 1;
	}
	if (t.o.stats)
		print_cost(&t);
	return 0;
}
