/*
 * The live view's model (lib/proflive.h): counts since the start and
 * over the last refresh, the view's filters (mode, task) and sorting,
 * the shares, the keys; a refresh from a report fed a stream in two
 * parts; every allocation failing in turn.
 */
#include "tap.h"

#include <string.h>

#include <lib/proflive.h>

#include "prof_testutil.h"

/* A report row: task id and name, function, kernel or not, count. */
static prof_row_info_t row(uint64_t task, const char *name, const char *func,
			   bool kernel, uint64_t count)
{
	prof_row_info_t r;

	memset(&r, 0, sizeof(r));
	r.task_id = task;
	r.task = name;
	r.binary = kernel ? "" : "/bin/app";
	r.function = func;
	r.kernel = kernel;
	r.count = count;
	return r;
}

static void add(prof_live_t *l, uint64_t task, const char *name, const char *func,
		bool kernel, uint64_t count)
{
	prof_row_info_t r = row(task, name, func, kernel, count);

	if (prof_live_add(l, &r) != EOK)
		ok(0, "prof_live_add %s", func);
}

/* The view's rows as "func:last:total" joined by spaces, into buf. */
static const char *shown(prof_live_t *l, const prof_live_view_t *v, uint64_t *total,
			 uint64_t *last, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	if (prof_live_select(l, v, total, last) != EOK)
		return "ENOMEM";
	for (size_t i = 0; i < prof_live_count(l) && at < n; i++) {
		const prof_live_row_t *r = prof_live_at(l, i);
		at += (size_t)snprintf(buf + at, n - at, "%s%s:%llu:%llu", i ? " " : "",
				       r->func, (unsigned long long)r->last,
				       (unsigned long long)r->total);
	}
	return buf;
}

/* Two refreshes: the second's counts are since the start, last the growth. */
static void fill(prof_live_t *l)
{
	prof_live_begin(l);
	add(l, 5, "app", "compute", false, 50);
	add(l, 5, "app", "memcpy", true, 10);
	add(l, PROF_ROW_IDLE, "[idle]", "idle", true, 40);
	add(l, 7, "other", "compute", false, 5);
	prof_live_begin(l);
	add(l, 5, "app", "compute", false, 60);       /* +10 */
	add(l, 5, "app", "memcpy", true, 40);         /* +30 */
	add(l, PROF_ROW_IDLE, "[idle]", "idle", true, 40);
	add(l, 7, "other", "compute", false, 25);     /* +20; no "helper" this time */
}

static void test_counts(void)
{
	prof_env_t env = pt_env;
	prof_live_t *l;
	prof_live_view_t v = { PROF_LIVE_LAST, PROF_XMODE_ALL, false, 0 };
	uint64_t total, last;
	char buf[512];

	ok(prof_live_new(&env, &l) == EOK, "prof_live_new");
	fill(l);
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)),
	       "memcpy:30:40 compute:20:25 compute:10:60 idle:0:40",
	       "by the last refresh: most first, ties by total");
	is_uint(total, 165, "the view's total since the start");
	is_uint(last, 60, "... and over the last refresh");
	is_uint(prof_live_centi(30, last), 5000, "memcpy: 50.00%% of the last refresh");
	is_uint(prof_live_centi(40, total), 2424, "... 24.24%% since the start");
	v.sort = PROF_LIVE_TOTAL;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)),
	       "compute:10:60 idle:0:40 memcpy:30:40 compute:20:25",
	       "by the total (ties by name)");
	v.sort = PROF_LIVE_FUNC;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)),
	       "compute:10:60 compute:20:25 idle:0:40 memcpy:30:40", "by function name");
	v.sort = PROF_LIVE_TASK;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)),
	       "compute:10:60 memcpy:30:40 compute:20:25 idle:0:40",
	       "by task id (idle last), then total");
	prof_live_free(l);
	is_int(pt_live_allocs, 0, "everything released");
}

static void test_filters(void)
{
	prof_env_t env = pt_env;
	prof_live_t *l;
	prof_live_view_t v = { PROF_LIVE_LAST, PROF_XMODE_USER, false, 0 };
	uint64_t total, last;
	char buf[512];

	prof_live_new(&env, &l);
	fill(l);
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "compute:20:25 compute:10:60",
	       "user mode: user functions only");
	is_uint(total, 85, "... shares of their samples (85)");
	v.mode = PROF_XMODE_KERNEL;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "memcpy:30:40 idle:0:40",
	       "kernel mode: kernel functions and idle");
	v.mode = PROF_XMODE_ALL;
	v.by_task = true;
	v.task = 7;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "compute:20:25", "task 7 only");
	is_uint(last, 20, "... its last refresh is the whole");
	v.task = 99;
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "", "no such task: no rows");
	ok(total == 0 && prof_live_centi(1, total) == 0, "... and no share of nothing");
	prof_live_begin(l);
	v.by_task = false;
	shown(l, &v, &total, &last, buf, sizeof(buf));
	ok(last == 0 && total == 165, "a refresh with no rows: nothing last, totals kept");
	prof_live_free(l);
}

static void test_names(void)
{
	prof_env_t env = pt_env;
	prof_live_t *l;
	prof_live_view_t v = { PROF_LIVE_LAST, PROF_XMODE_ALL, false, 0 };
	uint64_t total, last;

	prof_live_new(&env, &l);
	add(l, 5, "?", "main", false, 3);
	add(l, 5, "app", "main", false, 8);
	prof_row_info_t r = row(5, "app", "main", false, 9);
	r.binary = "/bin/other";
	prof_live_add(l, &r);
	prof_live_select(l, &v, &total, &last);
	is_uint(prof_live_count(l), 2, "another binary's main is another row");
	const prof_live_row_t *a = prof_live_at(l, 0);
	is_str(a->task_name, "app", "the task's latest name");
	is_str(a->bin, "/bin/other", "the row's binary");
	is_str(prof_live_at(l, 1)->bin, "/bin/app", "... and the other's");
	is_uint(prof_live_at(l, 1)->total, 8, "a count that grew");
	r.count = 4;
	prof_live_begin(l);
	prof_live_add(l, &r);
	prof_live_select(l, &v, &total, &last);
	ok(last == 0 && total == 12, "a count that shrank: 0 last, not a wrap");
	prof_live_free(l);
}

static void test_keys(void)
{
	prof_live_ui_t ui;

	prof_live_ui_init(&ui);
	ok(ui.view.sort == PROF_LIVE_LAST && ui.view.mode == PROF_XMODE_ALL &&
	   !ui.view.by_task, "start: by the last refresh, all modes and tasks");
	is_int(prof_live_key(&ui, '>'), PROF_LIVE_ACT_DRAW, "> draws");
	is_int(ui.view.sort, PROF_LIVE_TOTAL, "> sorts by the next column");
	prof_live_key(&ui, '<');
	prof_live_key(&ui, '<');
	is_int(ui.view.sort, PROF_LIVE_FUNC, "< wraps to the last column");
	is_str(prof_live_col_name(ui.view.sort), "FUNCTION", "its title");
	prof_live_key(&ui, 'm');
	is_str(prof_live_mode_name(ui.view.mode), "user", "m: user");
	prof_live_key(&ui, 'm');
	is_str(prof_live_mode_name(ui.view.mode), "kernel", "m again: kernel");
	prof_live_key(&ui, 'm');
	is_str(prof_live_mode_name(ui.view.mode), "all", "... and all");
	prof_live_key(&ui, 't');
	ok(ui.entry.active, "t: typing a task id");
	prof_live_key(&ui, '1');
	prof_live_key(&ui, 'x');
	prof_live_key(&ui, '4');
	prof_live_key(&ui, '9');
	prof_live_key(&ui, 0x7f);
	is_str(ui.entry.text, "14", "digits typed, others ignored, DEL erases");
	prof_live_key(&ui, '\r');
	ok(!ui.entry.active && ui.view.by_task && ui.view.task == 14, "Enter: task 14");
	prof_live_key(&ui, 't');
	prof_live_key(&ui, '3');
	prof_live_key(&ui, 0x1b);
	ok(!ui.entry.active && ui.view.task == 14, "Esc: never mind");
	prof_live_key(&ui, 't');
	prof_live_key(&ui, '\r');
	ok(!ui.view.by_task, "Enter alone: every task");
	is_int(prof_live_key(&ui, 'a'), PROF_LIVE_ACT_PAUSE, "a: pause");
	is_int(prof_live_key(&ui, ' '), PROF_LIVE_ACT_PAUSE, "space: pause too");
	is_int(prof_live_key(&ui, 'z'), PROF_LIVE_ACT_NONE, "z: nothing");
	prof_live_key(&ui, 'h');
	ok(ui.help, "h: help");
	is_int(prof_live_key(&ui, 'm'), PROF_LIVE_ACT_DRAW, "any key leaves it...");
	ok(!ui.help && ui.view.mode == PROF_XMODE_ALL, "... and does nothing else");
	is_int(prof_live_key(&ui, 'q'), PROF_LIVE_ACT_QUIT, "q quits");
	prof_live_key(&ui, 't');
	is_int(prof_live_key(&ui, 0x03), PROF_LIVE_ACT_QUIT, "Ctrl-C quits, even typing");
}

/* ---------------------------------------------------------------- from a report */

static void header(pt_sb_t *b)
{
	prof_rec_header_t h;

	memset(&h, 0, sizeof(h));
	pt_sb_hdr(&h.h, PROF_REC_HEADER, sizeof(h), 0);
	h.magic = PROF_MAGIC;
	h.version = PROF_VERSION;
	pt_sb_version = PROF_VERSION;
	h.source = PROF_SRC_TIMER;
	h.hz = 1000;
	h.ncpus = 2;
	h.tsc_hz = 1000000000;
	pt_sb_put(b, &h, sizeof(h));
}

static void samples(pt_sb_t *b, unsigned n, uint64_t task, unsigned mode, uint64_t pc)
{
	prof_rec_sample_t s;

	memset(&s, 0, sizeof(s));
	s.task = task;
	s.thread = task * 10;
	s.pc = pc;
	s.mode = (uint8_t)mode;
	pt_sb_samples(b, n, &s, NULL, 1000);
}

static const char app_nm[] = "0000000000401000 T main\n0000000000401100 T spin\n";

static void test_refresh(void)
{
	prof_env_t env = pt_env;
	prof_report_opts_t o = { .style = PROF_STYLE_SYSTEM };
	prof_live_view_t v = { PROF_LIVE_LAST, PROF_XMODE_ALL, false, 0 };
	prof_report_t *r;
	prof_live_t *l;
	pt_sb_t a = { 0 }, b = { 0 };
	uint64_t total, last;
	char buf[512];

	pt_nfiles = 0;
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	header(&a);
	pt_sb_task(&a, 5, "app");
	pt_sb_load(&a, 5, "/bin/app", 0);
	samples(&a, 30, 5, PROF_MODE_USER, 0x401104);
	samples(&a, 10, 5, PROF_MODE_USER, 0x401004);
	samples(&b, 5, 5, PROF_MODE_USER, 0x401108);
	samples(&b, 15, 5, PROF_MODE_USER, 0x401008);
	ok(prof_report_new(&env, &r) == EOK && prof_live_new(&env, &l) == EOK, "new");
	prof_report_feed(r, a.buf, a.len);
	ok(prof_live_refresh(l, r, &o) == EOK, "a refresh from the report");
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "spin:30:30 main:10:10",
	       "first refresh: everything is last");
	prof_report_feed(r, b.buf, b.len);
	prof_live_refresh(l, r, &o);
	is_str(shown(l, &v, &total, &last, buf, sizeof(buf)), "main:15:25 spin:5:35",
	       "second: the symbols' growth is last, totals since the start");
	is_str(prof_live_at(l, 0)->task_name, "app", "the task's name from its record");
	prof_live_free(l);
	prof_report_free(r);
	free(a.buf);
	free(b.buf);
	is_int(pt_live_allocs, 0, "everything released");
}

/* Allocation n fails: ENOMEM somewhere, no leak, no crash. */
static void test_nomem(void)
{
	prof_env_t env = pt_env;
	prof_live_view_t v = { PROF_LIVE_LAST, PROF_XMODE_ALL, false, 0 };
	bool all_ok = true;
	long n;

	for (n = 0; n < 200; n++) {
		prof_live_t *l = NULL;
		uint64_t total, last;
		errno_t rc;
		pt_fail_at = n;
		pt_nallocs = 0;
		rc = prof_live_new(&env, &l);
		for (unsigned i = 0; i < 40 && rc == EOK; i++) {
			char f[16];
			snprintf(f, sizeof(f), "f%u", i);
			prof_row_info_t r = row(i % 3, "t", f, i & 1, i + 1);
			rc = prof_live_add(l, &r);
		}
		if (rc == EOK)
			rc = prof_live_select(l, &v, &total, &last);
		prof_live_free(l);
		all_ok &= rc == EOK || rc == ENOMEM;
		all_ok &= pt_live_allocs == 0;
		if (rc == EOK)
			break;
	}
	pt_fail_at = -1;
	ok(all_ok && n > 3, "each allocation failing in turn: ENOMEM, nothing leaked (%ld)", n);
}

int main(void)
{
	test_counts();
	test_filters();
	test_names();
	test_keys();
	test_refresh();
	test_nomem();
	return done_testing();
}
