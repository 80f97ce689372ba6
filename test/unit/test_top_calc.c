/*
 * Unit tests for top's pure parts (uspace/app/top/compute.c, table.c,
 * format.c, keys.c, render.c): integer shares and rates between two
 * snapshots, the rows of each view and their sorting, the text of
 * numbers, option parsing, keys, and the frame text.
 */
#include "tap.h"

#include <string.h>

#include "../../uspace/app/top/top.h"

#define GHZ 1000000000ull

static char buf[128];

/* ------------------------------------------------------- fake snapshots */

static sysinfo_cpu_t prev_cpus[2], cur_cpus[2];
static sysinfo_task_t prev_tasks[3], cur_tasks[3];
static sysinfo_thread_t prev_threads[3], cur_threads[4];
static sysinfo_vector_t prev_vecs[2], cur_vecs[2];
static top_snap_t prev, cur;

static void set_task(sysinfo_task_t *t, uint64_t id, const char *name,
		     uint64_t user, uint64_t kernel)
{
	memset(t, 0, sizeof(*t));
	t->id = id;
	strcpy(t->name, name);
	t->threads = 1;
	t->user_cycles = user;
	t->kernel_cycles = kernel;
}

static void set_thread(sysinfo_thread_t *t, uint64_t id, uint64_t task,
		       uint32_t state, uint64_t user)
{
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->task = task;
	t->state = state;
	t->user_cycles = user;
	snprintf(t->name, sizeof(t->name), "th%llu", (unsigned long long)id);
}

static void set_cpu(sysinfo_cpu_t *c, uint32_t id, uint64_t busy,
		    uint64_t idle, uint64_t irq)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->active = 1;
	c->mhz = 1000;
	c->busy_cycles = busy;
	c->idle_cycles = idle;
	c->irq_cycles = irq;
}

/* prev at cycle 10^9, cur one second later, on a 1 GHz TSC, 2 CPUs. */
static void make_snaps(void)
{
	set_cpu(&prev_cpus[0], 0, 1000, 5000, 0);
	set_cpu(&prev_cpus[1], 1, 1000, 5000, 0);
	set_cpu(&cur_cpus[0], 0, 1000 + 990, 5000 + 5, 5);
	set_cpu(&cur_cpus[1], 1, 1000 + 10, 5000 + 990, 0);
	cur_cpus[1].switches = 50;
	/* unsorted on purpose: top_snap_sort orders them */
	set_task(&prev_tasks[0], 2, "spin", 0, 0);
	set_task(&prev_tasks[1], 1, "init", 100, 0);
	set_task(&cur_tasks[0], 3, "new", GHZ / 5, 0);
	set_task(&cur_tasks[1], 1, "init", 100 + GHZ / 40, GHZ / 40);
	set_task(&cur_tasks[2], 2, "spin", GHZ, 0);
	cur_tasks[2].ipc.calls_sent = 7;
	prev_tasks[0].ipc.calls_sent = 2;
	/* init's calls made others work a tenth of the second (IMP%) */
	prev_tasks[1].imposed_cycles = 7;
	cur_tasks[1].imposed_cycles = 7 + GHZ / 10;
	cur_tasks[2].served_cycles = GHZ / 10;
	set_thread(&prev_threads[0], 10, 2, SYSINFO_THREAD_RUNNING, 0);
	set_thread(&cur_threads[0], 10, 2, SYSINFO_THREAD_RUNNING, GHZ / 2);
	set_thread(&cur_threads[1], 11, 2, SYSINFO_THREAD_READY, GHZ / 2);
	set_thread(&cur_threads[2], 12, 1, SYSINFO_THREAD_SLEEPING, 0);
	set_thread(&cur_threads[3], 13, 3, SYSINFO_THREAD_ZOMBIE, 0);
	prev_vecs[0] = (sysinfo_vector_t){ .vector = 32, .desc = "timer",
					   .count = 100, .cycles = 0 };
	cur_vecs[0] = (sysinfo_vector_t){ .vector = 32, .desc = "timer",
					  .count = 200, .cycles = GHZ / 100 };
	cur_vecs[1] = (sysinfo_vector_t){ .vector = 14, .desc = "page fault",
					  .count = 3, .cycles = 0 };

	memset(&prev, 0, sizeof(prev));
	prev.cycles = GHZ;
	prev.tsc_hz = GHZ;
	prev.cpus.data = prev_cpus, prev.ncpus = 2;
	prev.tasks.data = prev_tasks, prev.ntasks = 2;
	prev.threads.data = prev_threads, prev.nthreads = 1;
	prev.vecs.data = prev_vecs, prev.nvecs = 1;
	cur = prev;
	cur.cycles = 2 * GHZ;
	cur.uptime_ns = 94 * GHZ;
	cur.realtime_ns = (86400 + 3661) * GHZ;
	cur.load.avg[0] = SYSINFO_LOAD_ONE;
	cur.mem = (sysinfo_physmem_t){ 256 << 20, 1 << 20, 12 << 20, 244 << 20 };
	cur.cpus.data = cur_cpus;
	cur.tasks.data = cur_tasks, cur.ntasks = 3;
	cur.threads.data = cur_threads, cur.nthreads = 4;
	cur.vecs.data = cur_vecs, cur.nvecs = 2;
	top_snap_sort(&prev);
	top_snap_sort(&cur);
}

/* ---------------------------------------------------------- arithmetic */

static void test_arith(void)
{
	is_uint(top_muldiv(UINT64_MAX, 1000, 1000), UINT64_MAX, "muldiv: no overflow in between");
	is_uint(top_muldiv(1ull << 62, 8, 4), 1ull << 63, "muldiv: 2^62 * 8 / 4");
	is_uint(top_muldiv(UINT64_MAX, 2, 1), UINT64_MAX, "muldiv saturates");
	is_uint(top_delta(5, 3), 2, "delta");
	is_uint(top_delta(3, 5), 0, "a counter that went back: delta 0");
	is_uint(top_permille(1, 2), 500, "1/2 is 500 per mille");
	is_uint(top_permille(1, 3), 333, "1/3 rounds down to 333");
	is_uint(top_permille(2, 3), 667, "2/3 rounds up to 667");
	is_uint(top_permille(5, 0), 0, "a zero whole gives 0");
	is_uint(top_permille(3, 2), 1500, "more than the whole: 1500");
	is_uint(top_permille(1, 2000), 1, "half a per mille rounds up");
	is_uint(top_permille(1, 2001), 0, "less than half rounds down");
	is_uint(top_ms(3 * GHZ, 3 * GHZ), 1000, "a second of cycles is 1000 ms");
	is_uint(top_ms(12345, 0), 0, "unknown frequency: 0 ms");
}

static void test_pair(void)
{
	top_pair_t p;
	top_cpu_share_t sh;
	top_snap_t zero;
	top_counts_t c;

	make_snaps();
	top_pair_init(&p, &prev, &cur);
	is_uint(p.elapsed, GHZ, "elapsed cycles between the snapshots");
	top_cpu_shares(&p, 0, &sh);
	ok(sh.busy == 990 && sh.idle == 5 && sh.irq == 5,
	   "cpu0: 99.0%% busy, 0.5%% idle, 0.5%% irq (got %u %u %u)", sh.busy,
	   sh.idle, sh.irq);
	top_cpu_shares(&p, 1, &sh);
	ok(sh.busy == 10 && sh.idle == 990 && sh.irq == 0,
	   "cpu1: 1.0%% busy, 99.0%% idle (got %u %u %u)", sh.busy, sh.idle, sh.irq);
	is_uint(top_rate(&p, 5), 5, "5 in one second is 5/s");
	top_snap_at_boot(&zero, &cur);
	is_uint(zero.cycles, 0, "at boot: an uptime longer than the cycles gives 0");
	cur.cycles = 100 * GHZ;
	top_snap_at_boot(&zero, &cur);
	is_uint(zero.cycles, 6 * GHZ, "at boot: cycles minus the uptime");
	top_pair_init(&p, &zero, &cur);
	top_cpu_shares(&p, 0, &sh);
	is_uint(sh.busy, 1990 * 1000 / 7000, "since boot: the totals' shares");
	top_pair_init(&p, &cur, &cur);
	is_uint(p.elapsed, 1, "no time between them: elapsed 1, not 0");
	top_count(&cur, &c);
	ok(c.tasks == 3 && c.threads == 4 && c.state[SYSINFO_THREAD_RUNNING] == 1 &&
	   c.state[SYSINFO_THREAD_READY] == 1 && c.state[SYSINFO_THREAD_SLEEPING] == 1 &&
	   c.state[SYSINFO_THREAD_ZOMBIE] == 1, "counts by state");
	ok(top_find_task(&cur, 2) == &cur_tasks[1] && !top_find_task(&cur, 9),
	   "find a task by id in the sorted array");
}

/* ------------------------------------------------------------- tables */

static const char *order(const top_table_t *t)
{
	static char ids[64];
	size_t at = 0;

	ids[0] = '\0';
	for (size_t i = 0; i < t->nrows && at < sizeof(ids) - 8; i++)
		at += (size_t)snprintf(ids + at, sizeof(ids) - at, "%s%llu",
				       i ? "," : "", (unsigned long long)t->rows[i].v[0]);
	return ids;
}

static void test_tasks_table(void)
{
	top_table_t t = { 0 };
	top_pair_t p;

	make_snaps();
	top_pair_init(&p, &prev, &cur);
	ok(top_table_build(&t, &p, TOP_VIEW_TASKS, 0) == EOK && t.nrows == 3,
	   "tasks: a row per task");
	top_table_sort(&t, t.def->sort, false);
	is_str(t.def->cols[t.def->sort].title, "%CPU", "tasks sort by %%CPU first");
	is_str(order(&t), "2,3,1", "by %%CPU, biggest first");
	is_uint(t.rows[0].v[2], 1000, "the spinner: 100.0%% of a CPU");
	is_uint(t.rows[1].v[2], 200, "a new task: its cycles since it started");
	is_uint(t.rows[2].v[2], 50, "user + kernel cycles count");
	is_str(t.rows[0].text, "spin", "the name is the text");
	top_table_sort(&t, t.def->sort, true);
	is_str(order(&t), "1,3,2", "reversed");
	top_table_sort(&t, 0, false);
	is_str(order(&t), "1,2,3", "by id, ascending");
	is_str(t.def->cols[3].title, "IMP%", "tasks: IMP%% after %%CPU");
	is_str(t.def->cols[4].title, "TOTAL%", "... then TOTAL%%");
	top_table_sort(&t, 3, false);
	is_str(order(&t), "1,2,3", "by IMP%%: the task others worked for first");
	is_uint(t.rows[0].v[3], 100, "IMP%%: the imposed cycles' delta, 10.0%%");
	is_uint(t.rows[0].v[2], 50, "... its own %%CPU stays 5.0%%");
	is_uint(t.rows[0].v[4], 150, "TOTAL%%: own + imposed, 15.0%%");
	is_uint(t.rows[1].v[3], 0, "the server: no IMP%% (served cycles are its own)");
	top_table_sort(&t, 4, false);
	is_str(order(&t), "2,3,1", "by TOTAL%%: 100, 20, 15");
	top_table_sort(&t, 9, false);
	is_str(order(&t), "1,3,2", "by name");
	top_table_sort(&t, 1, false);
	is_str(order(&t), "1,2,3", "equal keys: by id");
	top_table_free(&t);
}

static void test_other_tables(void)
{
	top_table_t t = { 0 };
	top_pair_t p;

	make_snaps();
	top_pair_init(&p, &prev, &cur);
	top_table_build(&t, &p, TOP_VIEW_THREADS, 2);
	top_table_sort(&t, 0, false);
	is_str(order(&t), "10,11", "threads of task 2 only");
	is_uint(t.rows[0].v[5], 500, "a thread's %%CPU over the interval");
	top_table_build(&t, &p, TOP_VIEW_THREADS, 0);
	is_uint(t.nrows, 4, "threads of every task");
	top_table_build(&t, &p, TOP_VIEW_VECTORS, 0);
	top_table_sort(&t, 0, false);
	is_str(order(&t), "14,32", "vectors by number");
	ok(t.rows[1].v[2] == 100 && t.rows[1].v[4] == 10 && t.rows[0].v[2] == 3,
	   "vector deltas and %%CPU (a new vector: all its count)");
	top_table_build(&t, &p, TOP_VIEW_IPC, 0);
	top_table_sort(&t, 0, false);
	ok(t.rows[1].v[1] == 7 && t.rows[1].v[2] == 5, "IPC: calls sent and per second");
	top_table_build(&t, &p, TOP_VIEW_CPUS, 0);
	ok(t.nrows == 2 && t.rows[0].v[3] == 990 && t.rows[1].v[9] == 50,
	   "CPUs: busy share, switches per second");
	top_table_free(&t);
}

/* ------------------------------------------------------------ format */

#define FMT(fn, ...) (fn(buf, sizeof(buf), __VA_ARGS__), buf)

static void test_format(void)
{
	is_str(FMT(top_fmt_ms, 0), "0:00.00", "0 ms");
	is_str(FMT(top_fmt_ms, 61234), "1:01.23", "61234 ms");
	is_str(FMT(top_fmt_ms, 60000000), "16h40", "1000 minutes: hours");
	is_str(FMT(top_fmt_bytes, 0), "0B", "0 bytes");
	is_str(FMT(top_fmt_bytes, 1023), "1023B", "1023 bytes");
	is_str(FMT(top_fmt_bytes, 1536), "1.5K", "1.5 KiB");
	is_str(FMT(top_fmt_bytes, 102400), "100K", "100 KiB: no decimal");
	is_str(FMT(top_fmt_bytes, 1048575), "1.0M", "just under 1 MiB rounds to 1.0M");
	is_str(FMT(top_fmt_bytes, 999 << 10), "999K", "999 KiB");
	is_str(FMT(top_fmt_bytes, 256ull << 20), "256M", "256 MiB");
	is_str(FMT(top_fmt_bytes, 3ull << 39), "1.5T", "1.5 TiB");
	is_str(FMT(top_fmt_count, 99999), "99999", "small counts as they are");
	is_str(FMT(top_fmt_count, 100000), "100K", "100000");
	is_str(FMT(top_fmt_count, 1234567), "1.2M", "1234567");
	is_str(FMT(top_fmt_count, 5000000000ull), "5.0G", "5 * 10^9");
	is_str(FMT(stats_fmt_permille, 1000), "100.0", "1000 per mille");
	is_str(FMT(stats_fmt_permille, 5), "0.5", "5 per mille");
	is_str(FMT(top_fmt_bar, 500, 10), "[|||||     ]", "a half bar");
	is_str(FMT(top_fmt_bar, 2000, 4), "[||||]", "a bar is never over full");
	is_str(FMT(top_fmt_bar, 0, 4), "[    ]", "an empty bar");
	top_fmt_bar(buf, 5, 500, 4);
	is_str(buf, "", "no room: no bar");
	is_str(FMT(top_fmt_clock, (86400ull + 3661) * GHZ), "01:01:01", "clock time of day");
	is_str(FMT(top_fmt_uptime, 94 * GHZ), "0:01:34", "uptime");
	is_str(FMT(top_fmt_uptime, 90061 * GHZ), "1 day, 1:01:01", "uptime of a day");
	is_str(FMT(top_fmt_uptime, 2 * 86400 * GHZ), "2 days, 0:00:00", "uptime of days");
	is_str(FMT(stats_fmt_load, SYSINFO_LOAD_ONE), "1.00", "load 1");
	is_str(FMT(stats_fmt_load, 1741), "0.85", "load 0.85");
	is_str(FMT(stats_fmt_load, 3 * SYSINFO_LOAD_ONE + SYSINFO_LOAD_ONE / 2), "3.50", "load 3.5");
}

static void test_parse(void)
{
	uint64_t v = 0;
	const uint64_t min = GHZ / 10, max = 3600 * GHZ;

	ok(top_parse_seconds("1", min, max, &v) && v == GHZ, "-d 1");
	ok(top_parse_seconds("0.5", min, max, &v) && v == GHZ / 2, "-d 0.5");
	ok(top_parse_seconds(".25", min, max, &v) && v == GHZ / 4, "-d .25");
	ok(top_parse_seconds("0.1", min, max, &v) && v == GHZ / 10, "-d 0.1 is the least");
	ok(!top_parse_seconds("0.05", min, max, &v), "-d 0.05 is too short");
	ok(!top_parse_seconds("3601", min, max, &v), "-d 3601 is too long");
	ok(!top_parse_seconds("99999999999999999999", min, max, &v), "-d: overflow");
	ok(!top_parse_seconds("abc", min, max, &v), "-d abc");
	ok(!top_parse_seconds("1.5x", min, max, &v), "-d 1.5x");
	ok(!top_parse_seconds("", min, max, &v), "-d ''");
	ok(!top_parse_seconds(".", min, max, &v), "-d .");
	ok(!top_parse_seconds("-1", min, max, &v), "-d -1");
	ok(top_parse_uint("12", 1, 100, &v) && v == 12, "12");
	ok(!top_parse_uint("0", 1, 100, &v), "0 below the least");
	ok(!top_parse_uint("12a", 1, 100, &v), "12a");
	ok(!top_parse_uint("", 1, 100, &v), "''");
	ok(!top_parse_uint("99999999999999999999", 1, UINT64_MAX, &v), "overflow");
}

/* --------------------------------------------------------------- keys */

static void test_keys(void)
{
	top_ui_t ui;

	top_ui_init(&ui, TOP_VIEW_TASKS, 0);
	ok(ui.view == TOP_VIEW_TASKS && ui.sort[TOP_VIEW_TASKS] == 2, "starts in tasks by %%CPU");
	ok(top_ui_key(&ui, 'e') && ui.view == TOP_VIEW_VECTORS, "e: interrupts and exceptions");
	ok(top_ui_key(&ui, '>') && ui.sort[TOP_VIEW_VECTORS] == 1, "> sorts by the next column");
	top_ui_key(&ui, '<');
	top_ui_key(&ui, '<');
	is_uint(ui.sort[TOP_VIEW_VECTORS], top_view(TOP_VIEW_VECTORS)->ncols - 1,
		"< wraps to the last column");
	ok(top_ui_key(&ui, 'r') && ui.reverse[TOP_VIEW_VECTORS] &&
	   !ui.reverse[TOP_VIEW_TASKS], "r reverses this view only");
	ok(top_ui_key(&ui, 'R') && ui.dump && ui.view == TOP_VIEW_VECTORS,
	   "R asks for a dump of the flight recorder, in the same view");
	ui.dump = false;
	snprintf(ui.note, sizeof(ui.note), "recorder: 4 KiB to /tmp/recorder.1.prof");
	ok(top_ui_key(&ui, 'h') && ui.help && !ui.note[0], "h: help (a key clears the note)");
	ok(top_ui_key(&ui, 'c') && !ui.help && ui.view == TOP_VIEW_VECTORS,
	   "any key leaves the help, and does nothing else");
	ok(top_ui_key(&ui, 'c') && ui.view == TOP_VIEW_CPUS, "c: CPUs");
	ok(!top_ui_key(&ui, 'x'), "x means nothing");
	top_ui_key(&ui, 'T');
	ok(ui.entry.active && ui.view == TOP_VIEW_CPUS, "T asks for a task");
	top_ui_key(&ui, '1');
	top_ui_key(&ui, '9');
	top_ui_key(&ui, 0x7f);
	top_ui_key(&ui, '2');
	top_ui_key(&ui, '\r');
	ok(!ui.entry.active && ui.view == TOP_VIEW_THREADS && ui.task == 12,
	   "T 1 9 Backspace 2 Enter: threads of task 12 (task %llu)",
	   (unsigned long long)ui.task);
	top_ui_key(&ui, 'T');
	top_ui_key(&ui, '\r');
	ok(ui.view == TOP_VIEW_THREADS && ui.task == 0, "T Enter: every thread");
	top_ui_key(&ui, 't');
	top_ui_key(&ui, 'T');
	top_ui_key(&ui, '5');
	top_ui_key(&ui, 0x1b);
	ok(!ui.entry.active && ui.view == TOP_VIEW_TASKS, "T 5 Esc: never mind");
	ok(!top_ui_key(&ui, 'q') && ui.quit, "q quits");
	top_ui_init(&ui, TOP_VIEW_THREADS, 7);
	top_ui_key(&ui, 'T');
	top_ui_key(&ui, 0x03);
	ok(ui.quit, "Ctrl-C quits, even while a task id is typed");
	ok(top_view_of_key('i') == TOP_VIEW_IPC && top_view_of_key('T') == TOP_VIEW_THREADS &&
	   top_view_of_key('x') == TOP_VIEW_COUNT, "the view of a key");
}

/* ------------------------------------------------------------- render */

static unsigned count_char(const char *s, char c)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* The longest line of s, not counting escape sequences ESC [ ... letter. */
static size_t longest_line(const char *s)
{
	size_t best = 0, n = 0;

	for (; *s; s++) {
		if (*s == '\x1b') {
			while (s[1] && !(s[1] >= '@' && s[1] <= '~' && s[1] != '['))
				s++;
			s++;
			continue;
		}
		n = *s == '\n' ? 0 : n + 1;
		best = n > best ? n : best;
	}
	return best;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_render(void)
{
	top_out_t o = { 0 };
	top_table_t t = { 0 };
	top_pair_t p;
	top_ui_t ui;

	make_snaps();
	top_pair_init(&p, &prev, &cur);
	top_ui_init(&ui, TOP_VIEW_TASKS, 0);
	top_table_build(&t, &p, ui.view, 0);
	top_table_sort(&t, ui.sort[ui.view], false);
	top_out_begin(&o, false, 0, 0);
	top_render(&o, &p, &ui, &t);
	top_out_end(&o);
	ok(starts_with(o.buf, "top - 01:01:01 up 0:01:34, load average: 1.00 0.00 0.00\n"),
	   "batch: the first line (%.40s)", o.buf);
	ok(strstr(o.buf, "\ncpu0   [||||||||||||||||||||]  99.0% busy   0.5% idle   0.5% irq\n") != NULL,
	   "batch: a CPU line with its bar");
	ok(strstr(o.buf, "Tasks: 3 total; threads: 4 total, 1 running, 1 ready, "
		  "1 sleeping, 1 zombie\n") != NULL, "batch: the counts");
	ok(strstr(o.buf, "Mem: 256M total, 12.0M used, 244M free, 1.0M unavailable\n") != NULL,
	   "batch: memory");
	ok(strstr(o.buf, "\n    2    1  100.0") != NULL, "batch: the spinner's row first");
	ok(!strchr(o.buf, '\x1b') && count_char(o.buf, '\n') == 11,
	   "batch: no escapes, 11 lines (%u)", count_char(o.buf, '\n'));
	top_out_begin(&o, true, 10, 40);
	top_render(&o, &p, &ui, &t);
	top_out_end(&o);
	ok(!strncmp(o.buf, "\x1b[H", 3) && count_char(o.buf, '\n') == 9 &&
	   longest_line(o.buf) <= 39, "screen: 9 lines of at most 39 columns (%u, %zu)",
	   count_char(o.buf, '\n'), longest_line(o.buf));
	ui.help = true;
	top_out_begin(&o, true, 40, 80);
	top_render(&o, &p, &ui, &t);
	top_out_end(&o);
	ok(strstr(o.buf, "top: the keys") && count_char(o.buf, '\n') == 39,
	   "screen: the help, blank lines to the bottom");
	top_out_free(&o);
	top_table_free(&t);
}

int main(void)
{
	test_arith();
	test_pair();
	test_tasks_table();
	test_other_tables();
	test_format();
	test_parse();
	test_keys();
	test_render();
	return done_testing();
}
