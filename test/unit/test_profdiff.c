/*
 * Unit tests for lib/prof/profdiff.c (vprof diff) and prof_report_rows
 * (lib/prof/profreport.c): the normal tail and the two-proportion z-test
 * against values computed independently (Python's math.erfc:
 * Q(x) = erfc(x / sqrt 2) / 2, and the pooled z by hand), degenerate
 * inputs, matching of tasks and functions (by binary and hash, or by name
 * with -m), the -T filter, the order by |z|, the marks and the threshold
 * in the printed table, memory balance and running out of memory, the
 * rows a report hands out, and last the host tool `vprof diff` on stream
 * files (output, exit codes, usage).
 */
#include "hosttool.h"
#include "prof_testutil.h"
#include "tap.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/profdiff.h>
#include <lib/profreport.h>

/* ---------------------------------------------------------------- env */

static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401100 T work_alpha\n"
	"0000000000401200 T work_beta\n"
	"0000000000401300 T work_gamma\n";
static const char kernel_nm[] =
	"ffffffff80100000 T kmain\n"
	"ffffffff80100200 T memcpy\n";

static bool close_rel(double got, double want, double rel)
{
	if (want == 0.0)
		return got == 0.0;
	return fabs(got - want) <= rel * fabs(want);
}

/* ---------------------------------------------------------------- statistics */

/* Q(x) = P(Z > x), from math.erfc(x / math.sqrt(2)) / 2 in Python. */
static const struct { double x, q; } tails[] = {
	{ -3.0, 0.9986501019683699 },
	{ -1.0, 0.8413447460685429 },
	{ 0.0, 0.5 },
	{ 0.5, 0.3085375387259869 },
	{ 1.0, 0.15865525393145707 },
	{ 1.6448536269514722, 0.05000000000000007 },
	{ 1.959963984540054, 0.02500000000000002 },
	{ 2.5758293035489004, 0.00500000000000001 },
	{ 3.0, 0.0013498980316300957 },
	{ 4.0, 3.1671241833119965e-05 },
	{ 6.0, 9.865876450377012e-10 },
	{ 10.0, 7.619853024160593e-24 },
	{ 20.0, 2.7536241186063314e-89 },
	{ 37.5, 4.605353009582584e-308 },
};

static void test_tail(void)
{
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		double q = profdiff_normal_tail(tails[i].x);
		ok(close_rel(q, tails[i].q, 1e-11), "Q(%g) = %.17g (want %.17g)", tails[i].x,
		   q, tails[i].q);
	}
	/* Both sides of the switch from the series to the continued fraction. */
	double below = profdiff_normal_tail(2.999999), above = profdiff_normal_tail(3.000001);
	ok(below > above && close_rel(below, above, 1e-5), "Q is continuous at 3 (%.12g, %.12g)",
	   below, above);
	bool mono = true;
	for (double x = -8; x < 8; x += 0.01)
		mono &= profdiff_normal_tail(x) >= profdiff_normal_tail(x + 0.01);
	ok(mono, "Q falls monotonically over [-8, 8]");
	is_int(profdiff_normal_tail(50.0) == 0.0, 1, "Q(50) underflows to 0");
}

/* (ca, na, cb, nb, z, p), z and p from the pooled formula in Python. */
static const struct { uint64_t ca, na, cb, nb; double z, p; } ztests[] = {
	{ 30, 100, 50, 100, 2.886751345948129, 0.003892417122778627 },
	{ 500, 10000, 560, 10000, 1.8937529756356748, 0.058257806033516255 },
	{ 2000, 6000, 1000, 6000, -21.081851067789195, 1.1672791469223562e-98 },
	{ 120, 1000, 100, 1200, -2.8544961285922508, 0.004310515706891593 },
	{ 1, 1000, 0, 1000, -1.0002500937890797, 0.31718949224675086 },
};

static void test_ztest(void)
{
	profdiff_test_t t;

	for (size_t i = 0; i < sizeof(ztests) / sizeof(ztests[0]); i++) {
		profdiff_ztest(ztests[i].ca, ztests[i].na, ztests[i].cb, ztests[i].nb, &t);
		ok(close_rel(t.z, ztests[i].z, 1e-12) && close_rel(t.p, ztests[i].p, 1e-10),
		   "%llu/%llu vs %llu/%llu: z %.15g p %.15g (want %.15g, %.15g)",
		   (unsigned long long)ztests[i].ca, (unsigned long long)ztests[i].na,
		   (unsigned long long)ztests[i].cb, (unsigned long long)ztests[i].nb, t.z, t.p,
		   ztests[i].z, ztests[i].p);
	}
	profdiff_ztest(30, 100, 50, 100, &t);
	ok(close_rel(t.share_a, 30.0, 1e-15) && close_rel(t.share_b, 50.0, 1e-15) &&
	   close_rel(t.diff, 20.0, 1e-15), "shares 30%% and 50%%, +20 points");
	profdiff_ztest(25, 100, 250, 1000, &t);
	ok(t.z == 0.0 && t.p == 1.0, "equal shares: z 0, p 1");
	profdiff_ztest(0, 100, 0, 100, &t);
	ok(t.z == 0.0 && t.p == 1.0, "no samples in either: z 0, p 1");
	profdiff_ztest(100, 100, 50, 50, &t);
	ok(t.z == 0.0 && t.p == 1.0, "all samples in both: z 0, p 1");
	profdiff_ztest(5, 0, 5, 100, &t);
	ok(t.z == 0.0 && t.p == 1.0 && t.share_a == 0.0, "an empty profile: z 0, p 1");
}

/* ---------------------------------------------------------------- tables */

static prof_row_info_t row(uint64_t id, const char *task, const char *bin, uint64_t hash,
			   const char *fn, bool kernel, uint64_t count)
{
	return (prof_row_info_t){ id, task, bin, hash, fn, kernel, count, 0 };
}

static const profdiff_row_t *find(const profdiff_t *d, unsigned table, const char *name,
				  const char *bin)
{
	size_t n;
	const profdiff_row_t *r = profdiff_rows(d, table, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].name, name) && (!bin || !strcmp(r[i].bin, bin)))
			return &r[i];
	return NULL;
}

/* A: app (id 5) 600 samples, other (6) 100; B: app (id 9, rebuilt: hash 3). */
static profdiff_t *build_two(bool by_name, const char *task, unsigned threshold)
{
	profdiff_opts_t o = { threshold, by_name, task, "a.dat", "b.dat" };
	profdiff_t *d;

	if (profdiff_new(&pt_env, &o, &d) != EOK)
		return NULL;
	profdiff_add(d, 0, &(prof_row_info_t){ 5, "app", "/bin/app", 1, "compute", false, 400, 0 });
	profdiff_add(d, 0, &(prof_row_info_t){ 5, "app", "/bin/app", 1, "helper", false, 150, 0 });
	profdiff_add(d, 0, &(prof_row_info_t){ 5, "app", "/boot/kernel", 0, "memcpy", true, 50, 0 });
	profdiff_add(d, 0, &(prof_row_info_t){ 6, "other", "/bin/other", 2, "compute", false, 100, 0 });
	profdiff_add(d, 1, &(prof_row_info_t){ 9, "app", "/bin/app", 3, "compute", false, 300, 0 });
	profdiff_add(d, 1, &(prof_row_info_t){ 9, "app", "/bin/app", 3, "helper", false, 300, 0 });
	profdiff_add(d, 1, &(prof_row_info_t){ 9, "app", "/boot/kernel", 0, "memcpy", true, 50, 0 });
	profdiff_add(d, 1, &(prof_row_info_t){ 9, "app", "/bin/app", 3, "memcpy", false, 50, 0 });
	profdiff_add(d, 1, &(prof_row_info_t){ 7, "other", "/bin/other", 2, "compute", false, 100, 0 });
	profdiff_finish(d);
	return d;
}

static void test_match(void)
{
	profdiff_t *d = build_two(false, NULL, 0);
	size_t n;
	const profdiff_row_t *r;

	is_uint(profdiff_total(d, 0), 700, "A: 700 samples");
	is_uint(profdiff_total(d, 1), 800, "B: 800 samples");
	profdiff_rows(d, PROFDIFF_TASKS, &n);
	is_uint(n, 2, "tasks matched by name across ids: 2 rows");
	r = find(d, PROFDIFF_TASKS, "app", NULL);
	ok(r && r->count[0] == 600 && r->count[1] == 700, "app: 600 and 700");
	profdiff_rows(d, PROFDIFF_FUNCS, &n);
	is_uint(n, 7, "by binary+hash+name: the rebuilt app's functions do not match (7 rows)");
	r = find(d, PROFDIFF_FUNCS, "memcpy", "kernel");
	ok(r && r->kernel && r->count[0] == 50 && r->count[1] == 50,
	   "kernel memcpy matched (the kernel has no hash): 50 and 50");
	r = find(d, PROFDIFF_FUNCS, "memcpy", "app");
	ok(r && !r->kernel && r->count[0] == 0 && r->count[1] == 50,
	   "user memcpy is not the kernel's: 0 and 50");
	r = find(d, PROFDIFF_FUNCS, "compute", "other");
	ok(r && r->count[0] == 100 && r->count[1] == 100, "other's compute: its own row");
	profdiff_free(d);

	d = build_two(true, NULL, 0);
	profdiff_rows(d, PROFDIFF_FUNCS, &n);
	is_uint(n, 4, "-m: by name (and kernel or not): 4 rows");
	r = find(d, PROFDIFF_FUNCS, "compute", NULL);
	ok(r && r->count[0] == 500 && r->count[1] == 400 && !strcmp(r->bin, "*"),
	   "-m: compute of app and other summed, binary '*' (%s)", r ? r->bin : "-");
	r = find(d, PROFDIFF_FUNCS, "helper", NULL);
	ok(r && r->count[0] == 150 && r->count[1] == 300 && !strcmp(r->bin, "app"),
	   "-m: helper matched across the builds");
	profdiff_free(d);
	is_int(pt_live_allocs, 0, "all memory given back");
}

static void test_task_filter(void)
{
	profdiff_t *d = build_two(false, "other", 0);
	size_t n;

	is_uint(profdiff_total(d, 0), 100, "-T other: A's total is other's 100");
	is_uint(profdiff_total(d, 1), 100, "-T other: B's 100");
	profdiff_rows(d, PROFDIFF_FUNCS, &n);
	is_uint(n, 1, "-T other: one function");
	profdiff_free(d);
	d = build_two(false, "5", 0);
	is_uint(profdiff_total(d, 0), 600, "-T 5 (an id): A's app");
	is_uint(profdiff_total(d, 1), 0, "-T 5: app has another id in B");
	profdiff_free(d);
}

static void test_order(void)
{
	profdiff_t *d = build_two(false, NULL, 0);
	size_t n;
	const profdiff_row_t *r = profdiff_rows(d, PROFDIFF_FUNCS, &n);
	bool sorted = true;

	for (size_t i = 1; i < n; i++)
		sorted &= fabs(r[i - 1].t.z) >= fabs(r[i].t.z);
	ok(sorted, "function rows by |z|, largest first");
	/* 400/700 -> 0, 0 -> 300/800: the two unmatched compute rows lead. */
	ok(n == 7 && !strcmp(r[0].name, "compute") && !strcmp(r[1].name, "compute"),
	   "the unmatched compute rows come first (%s, %s)", r[0].name, r[1].name);
	/* kernel memcpy 50/700 vs 50/800: |z| 0.69; other's compute 100 vs 100: 1.01. */
	ok(!strcmp(r[n - 1].name, "memcpy") && r[n - 1].kernel &&
	   !strcmp(r[n - 2].name, "compute") && !strcmp(r[n - 2].bin, "other"),
	   "the least changed come last (%s %s, %s %s)", r[n - 2].bin, r[n - 2].name,
	   r[n - 1].bin, r[n - 1].name);
	profdiff_free(d);
	d = build_two(true, NULL, 0);
	profdiff_test_t t;
	profdiff_ztest(150, 700, 300, 800, &t);
	const profdiff_row_t *h = find(d, PROFDIFF_FUNCS, "helper", "app");
	ok(h && h->t.z == t.z && h->t.p == t.p, "a row's test is that of its counts and totals");
	profdiff_free(d);
}

static bool has_line(const char *text, const char *prefix, const char *suffix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strchr(l, '\n') ? (size_t)(strchr(l, '\n') - l) : strlen(l);
		size_t sl = strlen(suffix);
		if (!strncmp(l, prefix, strlen(prefix)) && len >= sl &&
		    !strncmp(l + len - sl, suffix, sl))
			return true;
	}
	return false;
}

static void test_print(void)
{
	profdiff_t *d = build_two(true, NULL, 650);

	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	profdiff_print(d);
	ok(has_line(pt_out, "A: a.dat: 700 samples", "") &&
	   has_line(pt_out, "B: b.dat: 800 samples", ""), "the heading names both profiles");
	/* The numbers from the pooled formula and math.erfc in Python. */
	ok(has_line(pt_out, "  21.43%   37.50%   +16.07     6.78  1.23e-11 * ", "app          helper"),
	   "helper's row: shares, points, z, p, marked");
	ok(has_line(pt_out, "  71.43%   50.00%   -21.43    -8.45  2.87e-17 * ", "*            compute"),
	   "-m: compute of two programs: binary '*'");
	ok(has_line(pt_out, "   7.14%    6.25%    -0.89    -0.69  4.89e-01   ", "kernel       memcpy [k]"),
	   "kernel functions: binary 'kernel', [k]; not significant, not marked");
	ok(has_line(pt_out, "  85.71%   87.50%    +1.79     1.01  3.10e-01   app", ""),
	   "the task table");
	ok(has_line(pt_out, "(1 row below 6.50% in both hidden)", ""),
	   "-p 6.5: rows below it in both are hidden and counted");
	ok(!strstr(pt_out, "    0.00%    6.25%"), "... the user memcpy (6.25%%) is");
	profdiff_free(d);
	d = build_two(false, NULL, 0);
	pt_out_len = 0;
	profdiff_print(d);
	ok(has_line(pt_out, "  57.14%    0.00%   -57.14   -24.97    <1e-99 * ", "app          compute"),
	   "a tiny p prints as <1e-99");
	profdiff_free(d);
	if (!ok(pt_live_allocs == 0, "memory balanced after printing"))
		diag("%s", pt_out);
}

static void test_enomem(void)
{
	bool clean = true;

	for (long budget = 0; budget < 40; budget++) {
		profdiff_opts_t o = { 0, false, NULL, NULL, NULL };
		profdiff_t *d = NULL;
		pt_alloc_budget = budget;
		if (profdiff_new(&pt_env, &o, &d) == EOK) {
			errno_t err = EOK;
			for (int i = 0; i < 30 && err == EOK; i++) {
				char name[16];
				snprintf(name, sizeof(name), "f%d", i);
				err = profdiff_add(d, i & 1, &(prof_row_info_t){ 1, "t", "/bin/x", 0,
						   name, false, 1, 0 });
			}
			profdiff_finish(d);
			profdiff_free(d);
		}
		pt_alloc_budget = -1;
		clean &= pt_live_allocs == 0;
	}
	ok(clean, "out of memory at every allocation: ENOMEM, no leak, no crash");
	profdiff_t *d;
	profdiff_opts_t o = { 0, false, NULL, NULL, NULL };
	profdiff_new(&pt_env, &o, &d);
	prof_row_info_t r = row(1, "t", "/bin/x", 0, "f", false, 1);
	is_int(profdiff_add(d, 2, &r), EINVAL, "side 2: EINVAL");
	profdiff_finish(d);
	is_int(profdiff_add(d, 0, &r), EINVAL, "adding after finish: EINVAL");
	profdiff_free(d);
}

/* ---------------------------------------------------------------- folded */

static const char folded_a[] = "app;main;alpha 30\napp;main;beta 10\napp;main;beta 2\n";
static const char folded_b[] = "app;main;beta 25\r\napp;main;gamma 5\n\napp;main;alpha 5";

static errno_t join(const char *a, const char *b)
{
	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	return profdiff_folded_join(&pt_env, a, strlen(a), b, strlen(b));
}

static void test_folded(void)
{
	is_int(join(folded_a, folded_b), EOK, "folded join: EOK");
	is_str(pt_out, "app;main;alpha 30 5\napp;main;beta 12 25\napp;main;gamma 0 5\n",
	       "one line per stack, 0 where missing, a stack seen twice summed, sorted; "
	       "CRLF, an empty line and no final newline taken");
	is_int(join("a;b c;d 7\n", "a;b c;d 2\n"), EOK, "a frame with a space: EOK");
	is_str(pt_out, "a;b c;d 7 2\n", "... the count is after the last space");
	is_int(join("", ""), EOK, "two empty inputs: EOK");
	is_str(pt_out, "", "... nothing out");
	static const char *const bad[] = { "app;main 1\nnocount\n", "app;main 12x\n",
					   "app;main -3\n", " 5\n", "app;main \n",
					   "a 99999999999999999999\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno_t err = join(folded_a, bad[i]);
		ok(err == EINVAL && pt_out_len == 0, "malformed line %zu: EINVAL, nothing written", i);
	}
	bool clean = true;
	for (long budget = 0; budget < 12; budget++) {
		pt_alloc_budget = budget;
		errno_t err = join(folded_a, folded_b);
		pt_alloc_budget = -1;
		clean &= (err == ENOMEM || err == EOK) && pt_live_allocs == 0;
	}
	ok(clean, "folded join out of memory at each allocation: ENOMEM, no leak");
}

/* ---------------------------------------------------------------- flame */

static void f_write(void *ctx, const void *data, size_t len)
{
	pt_write(ctx, data, len);
}

static errno_t flame(const char *a, const char *b)
{
	profdiff_opts_t o = { 0, false, NULL, "a.folded", "b.folded" };
	prof_export_out_t w = { NULL, f_write, NULL };

	pt_out_len = 0;
	pt_write(NULL, "", 0);
	return profdiff_folded_flame(&pt_env, a, strlen(a), b, strlen(b), &o, &w);
}

/* The data-heat of the frame named name (INT_MIN if none). */
static int heat_of(const char *svg, const char *name)
{
	char pat[128];
	const char *at;

	snprintf(pat, sizeof(pat), "\" data-name=\"%s\">", name);
	for (at = strstr(svg, pat); at && at > svg; at--) {
		if (strncmp(at, "data-heat=\"", 11) == 0)
			return atoi(at + 11);
		if (*at == '<')
			break;
	}
	return INT32_MIN;
}

/* The <title> text of the frame named name ("" if none). */
static const char *title_of(const char *svg, const char *name)
{
	static char buf[256];
	char pat[128];
	const char *at, *end;

	snprintf(pat, sizeof(pat), "\" data-name=\"%s\"><title>", name);
	at = strstr(svg, pat);
	end = at ? strstr(at, "</title>") : NULL;
	buf[0] = '\0';
	if (end) {
		at += strlen(pat);
		snprintf(buf, sizeof(buf), "%.*s", (int)(end - at), at);
	}
	return buf;
}

/*
 * The differential flame graph of two folded texts: A: alpha 600, beta
 * 300, gamma 100 (of 1000); B: alpha 300, beta 300, gamma 400, a kernel
 * frame and an unknown address (of 1010).
 */
static void test_flame(void)
{
	static const char a[] = "app;main;alpha 600\napp;main;beta 300\napp;main;gamma 100\n";
	static const char b[] = "app;main;alpha 300\napp;main;beta 300\napp;main;gamma 400\n"
				"app;main;gamma;memcpy_[k] 5\napp;0x401234_(app) 5\n";

	is_int(flame(a, b), EOK, "differential flame graph: EOK");
	ok(strstr(pt_out, "<title>a.folded vs b.folded - vprof differential flame graph</title>") &&
	   strstr(pt_out, "a.folded vs b.folded: A 1000 samples, B 1010; width: B; red: the share "
		  "grew, blue: it shrank (p &lt; 0.01)</text>") && strstr(pt_out, "</svg>\n"),
	   "a document titled by A and B, the totals and the legend in the heading");
	ok(strstr(pt_out, "window.vprofSearch") && strstr(pt_out, "id=\"search\"") &&
	   strstr(pt_out, "id=\"reset\""), "the plain graph's script: search and zoom");
	is_str(title_of(pt_out, "alpha"), "alpha (A: 600 samples, 60.00%; B: 300 samples, 29.70%; "
	       "-30.30 points)", "hover: alpha's counts and shares in A and B, the change");
	is_int(heat_of(pt_out, "alpha"), -1000, "alpha shrank the most: heat -1000 (deepest blue)");
	ok(strstr(pt_out, "data-heat=\"-1000\" data-name=\"alpha\"><title>") &&
	   strstr(strstr(pt_out, "data-name=\"alpha\""), "fill=\"rgb(60,60,255)\""),
	   "... drawn rgb(60,60,255)");
	int g = heat_of(pt_out, "gamma");
	ok(g > 900 && g < 1000, "gamma grew by 29.7 points: heat %d (red, nearly full)", g);
	ok(strstr(strstr(pt_out, "data-name=\"gamma\""), "fill=\"rgb(255,"),
	   "... drawn red (rgb(255,..))");
	is_int(heat_of(pt_out, "beta"), 0, "beta 30.00%% -> 29.70%%: not significant, heat 0");
	ok(strstr(strstr(pt_out, "data-name=\"beta\""), "fill=\"rgb(225,225,225)\""),
	   "... drawn grey");
	is_int(heat_of(pt_out, "main"), 0, "main: 100%% -> 99.50%%: not significant");
	is_int(heat_of(pt_out, "memcpy [k]"), 0, "memcpy_[k] shown as 'memcpy [k]' (5 new "
	       "samples: p > 0.01)");
	ok(heat_of(pt_out, "0x401234 (app)") == 0, "0x401234_(app) shown as '0x401234 (app)'");
	is_str(title_of(pt_out, "gamma"), "gamma (A: 100 samples, 10.00%; B: 405 samples, 40.10%; "
	       "+30.10 points)", "gamma's hover: its kernel callee's samples too");
	ok(strstr(pt_out, "data-n=\"1010\" data-a=\"1000\" data-heat=\"0\" data-name=\"all\""),
	   "the root: B's 1010 wide, A's 1000");

	is_int(flame("app;x 5\n", "app;x 0\n"), ENOENT, "no sample in B: ENOENT");
	is_int(flame("app;x 5\n", "app;x 5x\n"), EINVAL, "a malformed line: EINVAL");
	is_int(flame("app;x 5\n", "app;x 5\n"), EOK, "the same profile twice: EOK");
	ok(!strstr(pt_out, "data-heat=\"-") && !strstr(pt_out, "data-heat=\"1"),
	   "... every heat 0 (no change)");
	bool clean = true;
	long failures = 0;
	for (long budget = 0; budget < 200; budget++) {
		pt_alloc_budget = budget;
		errno_t err = flame(a, b);
		pt_alloc_budget = -1;
		failures += err == ENOMEM;
		clean &= (err == ENOMEM || err == EOK) && pt_live_allocs == 0;
	}
	ok(clean && failures > 10, "out of memory at each of %ld allocations: ENOMEM, no leak",
	   failures);
}

/* ---------------------------------------------------------------- streams */

static void sb_start(pt_sb_t *b, uint64_t task)
{
	prof_rec_header_t h;

	b->len = 0;
	memset(&h, 0, sizeof(h));
	h.h = (prof_rec_t){ .type = PROF_REC_HEADER, .size = sizeof(h) };
	h.magic = PROF_MAGIC;
	h.version = PROF_VERSION;
	h.source = PROF_SRC_TIMER;
	h.hz = 1000;
	h.ncpus = 1;
	pt_sb_put(b, &h, sizeof(h));
	pt_sb_task(b, task, "app");
	pt_sb_load(b, task, "/bin/app", 0x1234);
}

static void sb_samples(pt_sb_t *b, unsigned n, uint64_t task, unsigned mode, uint64_t pc)
{
	prof_rec_sample_t s;

	memset(&s, 0, sizeof(s));
	s.task = task;
	s.pc = pc;
	s.mode = (uint8_t)mode;
	pt_sb_samples(b, n, &s, NULL, 0);
}

static pt_sb_t sa, sbb;

/* A: alpha 2000, beta 1000, gamma 1000; B: alpha 1000, beta 1000, gamma 1000. */
static void build_streams(void)
{
	sb_start(&sa, 5);
	sb_samples(&sa, 2000, 5, PROF_MODE_USER, 0x401110);
	sb_samples(&sa, 1000, 5, PROF_MODE_USER, 0x401210);
	sb_samples(&sa, 1000, 5, PROF_MODE_USER, 0x401310);
	sb_samples(&sa, 40, 5, PROF_MODE_KERNEL, 0xffffffff80100210ull);
	sb_start(&sbb, 8);
	sb_samples(&sbb, 1000, 8, PROF_MODE_USER, 0x401110);
	sb_samples(&sbb, 1000, 8, PROF_MODE_USER, 0x401220);
	sb_samples(&sbb, 1000, 8, PROF_MODE_USER, 0x401320);
	sb_samples(&sbb, 30, 8, PROF_MODE_KERNEL, 0xffffffff80100220ull);
}

static errno_t collect(void *ctx, const prof_row_info_t *r)
{
	char *buf = ctx;
	size_t len = strlen(buf);

	snprintf(buf + len, 1024 - len, "%llu %s %s %llx %s %d %llu\n",
		 (unsigned long long)r->task_id, r->task, r->binary, (unsigned long long)r->hash,
		 r->function, r->kernel, (unsigned long long)r->count);
	return EOK;
}

static void test_rows(void)
{
	prof_report_t *r;
	prof_report_opts_t o = { PROF_STYLE_TASK, 5000, false, NULL, false, 0 };
	char buf[1024] = "";

	build_streams();
	prof_report_new(&pt_env, &r);
	is_int(prof_report_feed(r, sa.buf, sa.len), EOK, "stream A fed");
	is_int(prof_report_rows(r, &o, collect, buf), EOK, "prof_report_rows: EOK");
	is_str(buf, "5 app /bin/app 1234 work_alpha 0 2000\n"
	       "5 app /bin/app 1234 work_beta 0 1000\n"
	       "5 app /bin/app 1234 work_gamma 0 1000\n"
	       "5 app /boot/kernel 0 memcpy 1 40\n",
	       "every row, most first, with task, binary, hash, function, kernel "
	       "(style and threshold ignored)");
	prof_report_free(r);
	is_int(pt_live_allocs, 0, "memory balanced");
}

/* ---------------------------------------------------------------- vprof diff */

#define FLAMEGRAPH "/usr/share/perl5/Devel/NYTProf/flamegraph.pl"

/* vprof diff -F folded, and flamegraph.pl drawing its output. */
static void test_vprof_folded(const char *build, const char *abuild, const char *dir,
			      char *text, size_t size)
{
	char cmd[1200], path[600];

	snprintf(path, sizeof(path), "%s/a.folded", dir);
	tool_write(path, folded_a, strlen(folded_a));
	snprintf(path, sizeof(path), "%s/b.folded", dir);
	tool_write(path, folded_b, strlen(folded_b));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded %s/a.folded %s/b.folded", build,
		 dir, dir);
	is_int(tool_run(cmd, text, size), 0, "vprof diff -F folded: exit 0");
	is_str(text, "app;main;alpha 30 5\napp;main;beta 12 25\napp;main;gamma 0 5\n",
	       "... the joined stacks");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded %s/a.folded %s/b.folded | "
		 "perl " FLAMEGRAPH " 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, size), 0, "flamegraph.pl draws it (libdevel-nytprof-perl)");
	ok(strstr(text, "<title>alpha (5 samples, 14.29%; -71.43%)</title>") != NULL,
	   "... alpha: 5 samples in B, 71.43 points less");
	/* alpha's -25 is the largest change: pure blue; beta's +13 a red. */
	ok(strstr(text, "rgb(0,0,255)") != NULL && strstr(text, "rgb(255,") != NULL,
	   "... in blue (less) and red (more)");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded -r %s %s/a %s/b", build, dir, dir,
		 dir);
	is_int(tool_run(cmd, text, size), 0, "-F folded of two streams: exit 0");
	is_str(text, "app;memcpy_[k] 40 30\napp;work_alpha 2000 1000\napp;work_beta 1000 1000\n"
	       "app;work_gamma 1000 1000\n", "... their stacks folded (as vprof -F folded) and "
	       "joined");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded -T app -r %s %s/a %s/b", build,
		 dir, dir, dir);
	tool_run(cmd, text, size);
	is_str(text, "app;memcpy_[k] 40 30\napp;work_alpha 2000 1000\napp;work_beta 1000 1000\n"
	       "app;work_gamma 1000 1000\n", "-T app: the same (the only task)");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded -T 8 -r %s %s/a %s/b 2>&1", build,
		 dir, dir, dir);
	is_int(tool_run(cmd, text, size), 1, "-T 8 (only in B): exit 1");
	ok(strstr(text, "/a: no samples to compare (none in the stream, or none of that task)"),
	   "... naming A: %.*s", (int)strcspn(text, "\n"), text);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F svg -T nosuch -r %s %s/a %s/b 2>&1",
		 build, dir, dir, dir);
	is_int(tool_run(cmd, text, size), 1, "-F svg -T nosuch: exit 1");
	ok(strstr(text, "no samples to compare (none in the stream, or none of that task)") &&
	   !strstr(text, "<svg"), "... saying so, no document: %.*s", (int)strcspn(text, "\n"),
	   text);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded -T app %s/a.folded %s/b.folded "
		 "2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, size), 1, "-T with folded-stack files: exit 1");
	ok(strstr(text, "-T applies to streams") != NULL, "... saying so");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F svg -r %s %s/a %s/b", build, dir, dir,
		 dir);
	is_int(tool_run(cmd, text, size), 0, "-F svg of two streams: exit 0");
	ok(strstr(text, "data-heat=\"-1000\" data-name=\"work_alpha\"") &&
	   strstr(text, "data-heat=\"0\" data-name=\"memcpy [k]\""),
	   "... alpha (49.5%% -> 33%%) blue, memcpy (1%% -> 1%%) grey");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F svg %s/a.folded %s/b.folded", build, dir,
		 dir);
	is_int(tool_run(cmd, text, size), 0, "-F svg of two folded files: exit 0");
	ok(strstr(text, "<title>alpha (A: 30 samples, 71.43%; B: 5 samples, 14.29%; -57.14 "
		      "points)</title>"), "... alpha's hover text");
	/* Bad input: a clear message and exit 1, never a crash or a document. */
	static pt_sb_t empty;
	sb_start(&empty, 5);
	snprintf(path, sizeof(path), "%s/empty", dir);
	tool_write(path, empty.buf, empty.len);
	snprintf(path, sizeof(path), "%s/cut", dir);
	tool_write(path, sa.buf, sa.len - 20);
	static const struct { const char *setup, *args, *msg; } bad[] = {
		{ "true", "-F svg cut b", "cut: truncated stream" },
		{ "true", "-F folded cut b", "cut: truncated stream" },
		{ "true", "-F svg a empty", "empty: no samples to compare" },
		{ "true", "-F folded empty b", "empty: no samples to compare" },
		{ "true", "empty b", "empty: no samples to compare" },
		{ "true", "-T 8 a b", "a: no samples of task '8' to compare" },
		{ "true", "-F svg a nofile", "nofile: cannot open" },
		{ "printf 'app;x 1\\nbad\\n' > bad.folded", "-F svg a.folded bad.folded",
		  "not 'STACK COUNT'" },
		{ "head -c 100 bin/app.nm > junk", "-F svg junk a.folded", "not 'STACK COUNT'" },
		{ ": > zero", "-F svg a.folded zero", "no samples in B to draw" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s && %s/host/vprof diff -r %s %s 2>&1; "
			 "echo rc=$?", dir, bad[i].setup, abuild, dir, bad[i].args);
		tool_run(cmd, text, size);
		ok(strstr(text, bad[i].msg) && strstr(text, "rc=1\n") && !strstr(text, "<svg"),
		   "vprof diff %s: '%s', exit 1", bad[i].args, bad[i].msg);
		if (!strstr(text, "rc=1\n") || !strstr(text, bad[i].msg))
			diag("%s", text);
	}
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F folded %s/a.folded %s/bin/app.nm 2>&1",
		 build, dir, dir);
	is_int(tool_run(cmd, text, size), 1, "-F folded of a file that is not folded: exit 1");
	ok(strstr(text, "not 'STACK COUNT'") != NULL, "... saying so");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -F svgz %s/a %s/b 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, size), 2, "-F svgz: exit 2");
}

static void test_vprof_diff(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/vprof-diff.XXXXXX", cmd[1200], path[600];
	static char text[1 << 16];

	tool_root(dir, app_nm, kernel_nm);
	build_streams();
	snprintf(path, sizeof(path), "%s/a", dir);
	tool_write(path, sa.buf, sa.len);
	snprintf(path, sizeof(path), "%s/b", dir);
	tool_write(path, sbb.buf, sbb.len);

	char *abuild = realpath(build, NULL);
	snprintf(cmd, sizeof(cmd), "cd %s && %s/host/vprof diff -r %s a b 2>&1", dir,
		 abuild ? abuild : build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof diff A B exits 0");
	ok(has_line(text, "A: a: 4040 samples", "") && has_line(text, "B: b: 3030 samples", ""),
	   "the totals of both");
	/* Numbers from the pooled formula and math.erfc in Python. */
	ok(has_line(text, "  49.50%   33.00%   -16.50   -13.89  7.00e-44 * ",
		    "app          work_alpha"), "alpha: less in B, significant");
	ok(has_line(text, "  24.75%   33.00%    +8.25     7.62  2.49e-14 * ",
		    "app          work_beta"), "beta: more in B, significant");
	ok(has_line(text, "   0.99%    0.99%    +0.00     0.00  1.00e+00   ",
		    "kernel       memcpy [k]"), "the kernel's memcpy: unchanged, not marked");
	ok(has_line(text, " 100.00%  100.00%    +0.00     0.00  1.00e+00   app", ""),
	   "the task table: app (ids 5 and 8) in both");
	if (!ok(strstr(text, "work_alpha") < strstr(text, "work_beta") &&
		strstr(text, "work_beta") < strstr(text, "memcpy [k]"), "rows by |z|"))
		diag("%s", text);

	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -T app -p 1 -m -r %s %s/a %s/b 2>&1",
		 build, dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "-T app -p 1 -m: exits 0");
	ok(has_line(text, "(1 row below 1.00% in both hidden)", ""), "-p 1 hides memcpy");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -T nosuch -r %s %s/a %s/b 2>&1", build,
		 dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "-T with no such task: exit 1");
	ok(strstr(text, "/a: no samples of task 'nosuch' to compare") != NULL,
	   "... with a message");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -h", build);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof diff -h: exit 0");
	ok(!strncmp(text, "Usage: vprof diff", 17), "... the usage on stdout");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff %s/a 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "one stream only: exit 2");
	ok(strstr(text, "Usage: vprof diff") != NULL, "... with the usage");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -p 200 %s/a %s/b 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "-p 200: exit 2");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -r %s %s/a %s/missing 2>&1", build, dir,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "a missing B: exit 1");
	ok(strstr(text, "missing") != NULL, "... naming it");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -r %s %s/bin/app.nm %s/b 2>&1", build,
		 dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "A not a stream: exit 1");
	ok(strstr(text, "not a profiler stream") != NULL, "... saying so");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof diff -r %s/none %s/a %s/b 2>&1 >/dev/null",
		 build, dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 3, "binaries not found: exit 3");
	ok(strstr(text, "warning") != NULL, "... with a warning");
	test_vprof_folded(build, abuild ? abuild : build, dir, text, sizeof(text));
	free(abuild);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

int main(void)
{
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
	test_tail();
	test_ztest();
	test_match();
	test_task_filter();
	test_order();
	test_print();
	test_enomem();
	test_rows();
	test_folded();
	test_flame();
	test_vprof_diff();
	free(pt_out);
	return done_testing();
}
