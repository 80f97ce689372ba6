/*
 * Unit tests of wall-clock profiling in lib/prof/profreport.c and
 * lib/prof/profexport.c (issue 17), on a synthetic v4 stream with known
 * shares: a client that computes 400 samples' worth (on-CPU samples),
 * sleeps 300 samples' worth (600 off-CPU records of half a sample each:
 * the weights' remainders must carry) and waits 300 for a server's
 * answer (3 records of an IPC wait on ipcload.WORK). Without the wall
 * clock the off-CPU records are only summed; with it the shares are
 * 40 / 30 / 30 exactly, in the report, the task style, the caller tree
 * and the folded export (samples and nanoseconds). A v3 stream reads as
 * before; damaged records are refused; last, build/host/vprof -W on a
 * stream file (and go tool pprof's wall/nanoseconds when go is here).
 */
#include "hosttool.h"
#include "prof_testutil.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/profexport.h>
#include <lib/profreport.h>

static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401200 T do_sleep\n"
	"0000000000401300 T compute\n"
	"0000000000401400 T do_call\n";
static const char kernel_nm[] =
	"ffffffff80100000 T kmain\n"
	"ffffffff80100100 T sched_block\n";

#define M_WORK 1025u                    /* ipcload's WORK */
#define TSC_HZ 1000000000ull
#define HZ 1000u
#define CYC (TSC_HZ / HZ)               /* cycles per sample */

/* ---------------------------------------------------------------- builder */

static void sb_header(pt_sb_t *b, uint32_t version)
{
	prof_rec_header_t h;

	memset(&h, 0, sizeof(h));
	pt_sb_hdr(&h.h, PROF_REC_HEADER, sizeof(h), 0);
	h.magic = PROF_MAGIC;
	h.version = version;
	pt_sb_version = version;
	h.source = PROF_SRC_TIMER;
	h.hz = HZ;
	h.ncpus = 1;
	h.flags = PROF_F_CALLCHAIN | PROF_F_OFFCPU;
	h.depth = 64;
	h.tsc_hz = TSC_HZ;
	pt_sb_put(b, &h, sizeof(h));
}

/* An off-CPU record of task 5: why, cycles, chain (nkernel kernel words first). */
typedef struct off {
	uint32_t why;
	uint64_t cycles;
	unsigned nchain, nkernel;
	uint64_t chain[4];
	uint64_t wait_task, wait_method;
	size_t cut;                     /* bytes left off the record's end (damage) */
} off_t_;

static void sb_off(pt_sb_t *b, unsigned count, const off_t_ *o)
{
	unsigned char rec[sizeof(prof_rec_offcpu_t) + 4 * 8];
	prof_rec_offcpu_t r;
	size_t size = sizeof(r) + 8 * o->nchain - o->cut;

	memset(&r, 0, sizeof(r));
	pt_sb_hdr(&r.h, PROF_REC_OFFCPU, size, 7);
	r.task = 5;
	r.thread = 50;
	r.cycles = o->cycles;
	r.why = o->why;
	r.nchain = (uint16_t)o->nchain;
	r.nkernel = (uint16_t)o->nkernel;
	r.wait_task = o->wait_task;
	r.wait_method = o->wait_method;
	memcpy(rec, &r, sizeof(r));
	memcpy(rec + sizeof(r), o->chain, 8 * o->nchain);
	for (unsigned i = 0; i < count; i++)
		pt_sb_put(b, rec, size);
}

static const off_t_ sleep_rec = { WAIT_WHY_SLEEP, CYC / 2, 3, 1,
				  { 0xffffffff80100110, 0x401210, 0x401008 }, 0, 0, 0 };
static const off_t_ ipc_rec = { WAIT_WHY_IPC, 100 * CYC, 2, 0, { 0x401410, 0x401008 },
				7, M_WORK, 0 };

/* A user sample of task's thread task * 10 in compute, called from main. */
static void mk_sample(prof_rec_sample_t *s, uint64_t task)
{
	memset(s, 0, sizeof(*s));
	s->task = task;
	s->thread = task * 10;
	s->pc = 0x401310;
	s->mode = PROF_MODE_USER;
	s->nchain = 1;
}

/* The reference: 400 samples computing, 300 asleep, 300 waiting for ipcload.WORK. */
static void build_ref(pt_sb_t *b, uint32_t version, bool offcpu)
{
	static const uint64_t chain[] = { 0x401008 };
	prof_rec_sample_t s;

	b->len = 0;
	sb_header(b, version);
	pt_sb_task(b, 5, "cli");
	pt_sb_load(b, 5, "/bin/app", 0);
	pt_sb_task(b, 7, "ipcload");
	mk_sample(&s, 5);
	pt_sb_samples(b, 400, &s, chain, 10);
	if (!offcpu)
		return;
	sb_off(b, 600, &sleep_rec);
	sb_off(b, 3, &ipc_rec);
}

static void files_default(void)
{
	pt_nfiles = 0;
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
}

/* Feed b (step bytes at a time, 0: at once), wall clock or not; print with o. */
static char *report(const pt_sb_t *b, size_t step, bool wall, const prof_report_opts_t *o,
		    errno_t *feed_err, char *why, size_t why_size)
{
	files_default();
	char *t = pt_report(b->buf, b->len, step, wall, o, feed_err, why, why_size);

	return t ? t : strdup("");
}

#define HAS(text, line) ok(pt_has_line(text, line), "line: %s", line)
#define LACKS(text, s) ok(strstr(text, s) == NULL, "no: %s", s)

static const prof_report_opts_t sys = { PROF_STYLE_SYSTEM, 50, false, NULL, false, 0 };
static const prof_report_opts_t tree = { PROF_STYLE_SYSTEM, 50, true, NULL, false, 0 };
static const prof_report_opts_t task = { PROF_STYLE_TASK, 50, false, NULL, false, 0 };

static pt_sb_t sb;

/* ---------------------------------------------------------------- report */

/* Without the wall clock: the on-CPU report, and a summary of the records. */
static void test_plain(void)
{
	errno_t err;

	build_ref(&sb, PROF_VERSION, true);
	char *t = report(&sb, 0, false, &sys, &err, NULL, 0);
	note_text("plain:", t);
	is_int(err, EOK, "a v4 stream with off-CPU records reads");
	HAS(t, "off-cpu: 603 records, 0.6 s");
	HAS(t, "100.00%      400    400000000  5 cli                compute");
	LACKS(t, "[off-cpu");
	free(t);
}

/* With it: 40 / 30 / 30 of wall time, fed at once and in 7-byte pieces. */
static void test_wall(void)
{
	static const size_t steps[] = { 0, 7 };

	build_ref(&sb, PROF_VERSION, true);
	for (size_t i = 0; i < 2; i++) {
		errno_t err;
		char *t = report(&sb, steps[i], true, &sys, &err, NULL, 0);
		if (i == 0)
			note_text("wall:", t);
		is_int(err, EOK, "wall, fed in pieces of %zu: read", steps[i]);
		HAS(t, "off-cpu: 603 records, 0.6 s; wall clock: 1000 samples = 400 on-CPU "
		       "+ 600 off-CPU");
		HAS(t, "100.00%     1000   1000000000  5 cli");
		HAS(t, " 40.00%      400    400000000  5 cli                compute");
		HAS(t, " 30.00%      300    300000000  5 cli                [off-cpu: sleep]");
		HAS(t, " 30.00%      300    300000000  5 cli                [off-cpu: wait ipcload.WORK]");
		free(t);
	}
	char *t = report(&sb, 0, true, &task, NULL, NULL, 0);
	note_text("wall, task style:", t);
	ok(strstr(t, "      300    300000000  30.00%  [off-cpu: wait ipcload.WORK]") != NULL,
	   "task style: the IPC wait's row");
	HAS(t, "off-cpu: 603 records, 0.6 s; wall clock: 1000 samples = 400 on-CPU "
	       "+ 600 off-CPU");
	free(t);
}

/*
 * The reference with 250 samples of the server (task 7) working for the
 * client's calls: a task session on the client (target 5) counts each
 * moment once, so the wait keeps 50 (300 - 250) beside serve's 250; a
 * system session keeps both threads' time, unless by origin (-C).
 */
static void build_served(pt_sb_t *b, uint64_t target, bool offcpu)
{
	static const uint64_t chain[] = { 0x401008 };
	prof_rec_sample_t s;
	prof_ipc_t ipc;

	build_ref(b, PROF_VERSION, offcpu);
	((prof_rec_header_t *)b->buf)->target = target;
	pt_sb_load(b, 7, "/bin/app", 0);
	mk_sample(&s, 7);
	memset(&ipc, 0, sizeof(ipc));
	ipc.call = 9;
	ipc.origin_thread = 50;
	ipc.method = M_WORK;
	ipc.nhops = ipc.depth = 2;
	ipc.hops[0] = 5;
	ipc.hops[1] = 7;
	pt_sb_served(b, 250, &s, chain, &ipc, 20);
}

static void test_served(void)
{
	static const prof_report_opts_t origin = { PROF_STYLE_SYSTEM, 50, false, NULL, true, 0 };

	build_served(&sb, 5, true);
	char *t = report(&sb, 0, true, &sys, NULL, NULL, 0);
	note_text("wall, task session with a server's work:", t);
	HAS(t, "off-cpu: 603 records, 0.6 s; wall clock: 1000 samples = 650 on-CPU "
	       "+ 350 off-CPU");
	HAS(t, "  5.00%       50     50000000  5 cli                [off-cpu: wait ipcload.WORK]");
	HAS(t, " 25.00%      250    250000000  7 ipcload            compute");
	free(t);
	build_served(&sb, 0, true);
	t = report(&sb, 0, true, &sys, NULL, NULL, 0);
	note_text("wall, system session with a server's work:", t);
	HAS(t, " 24.00%      300    300000000  5 cli                [off-cpu: wait ipcload.WORK]");
	HAS(t, "off-cpu: 603 records, 0.6 s; wall clock: 1250 samples = 650 on-CPU "
	       "+ 600 off-CPU");
	free(t);
	t = report(&sb, 0, true, &origin, NULL, NULL, 0);
	note_text("wall, system session by origin:", t);
	ok(strstr(t, "wall clock: 1000 samples = 650 on-CPU + 350 off-CPU") != NULL,
	   "system session by origin: each moment once");
	free(t);
	build_served(&sb, 5, false);            /* a server's samples, no wait to take them */
	errno_t err;
	t = report(&sb, 0, true, &sys, &err, NULL, 0);
	ok(err == EOK && strstr(t, " 38.46%      250    250000000  7 ipcload            compute") != NULL,
	   "wall clock, a server's samples and no off-CPU records: nothing to settle");
	free(t);
}

/* The caller tree: each wait under the user stack that waited. */
static void test_tree(void)
{
	build_ref(&sb, PROF_VERSION, true);
	char *t = report(&sb, 0, true, &tree, NULL, NULL, 0);
	note_text("wall -g:", t);
	const char *w = strstr(t, " 30.00%      300    300000000  [off-cpu: wait ipcload.WORK]  (5 cli)");
	ok(w != NULL, "tree: the IPC wait's row");
	ok(w && strstr(w, "300    300000000 100.00%  <- do_call") &&
	   strstr(w, "300    300000000 100.00%  <- main"),
	   "... called from do_call <- main");
	const char *s = strstr(t, " 30.00%      300    300000000  [off-cpu: sleep]  (5 cli)");
	ok(s && strstr(s, "<- do_sleep"), "tree: the sleep under do_sleep (kernel frames left out)");
	free(t);
}

/* Weights: cycles * hz / tsc_hz with the remainders carried; rounding down alone would lose them. */
static void test_weights(void)
{
	off_t_ third = sleep_rec;

	third.cycles = CYC / 4;
	pt_sb_t b = { 0 };
	build_ref(&b, PROF_VERSION, false);
	sb_off(&b, 400, &third);
	char *t = report(&b, 0, true, &sys, NULL, NULL, 0);
	HAS(t, " 80.00%      400    400000000  5 cli                compute");
	HAS(t, " 20.00%      100    100000000  5 cli                [off-cpu: sleep]");
	free(t);
	free(b.buf);
}

/* Older streams and streams without off-CPU records read as before. */
static void test_versions(void)
{
	errno_t err;

	build_ref(&sb, 3, false);
	char *t = report(&sb, 0, false, &sys, &err, NULL, 0);
	ok(err == EOK && pt_has_line(t, "100.00%      400    400000000  5 cli                compute"),
	   "v3: read as before");
	LACKS(t, "off-cpu");
	free(t);
	t = report(&sb, 0, true, &sys, &err, NULL, 0);
	HAS(t, "wall clock: no off-CPU records (a session without -w, or a stream before "
	       "v4): on-CPU samples only");
	HAS(t, "100.00%      400    400000000  5 cli                compute");
	free(t);
}

/* A chain longer than the record, more kernel frames than frames: EINVAL, saying why. */
static void test_damaged(void)
{
	off_t_ cut = ipc_rec, nk = ipc_rec;
	char why[128];
	errno_t err;

	cut.cut = 8;
	nk.nkernel = 3;
	for (int i = 0; i < 2; i++) {
		build_ref(&sb, PROF_VERSION, false);
		sb_off(&sb, 1, i ? &nk : &cut);
		char *t = report(&sb, 0, true, &sys, &err, why, sizeof(why));
		ok(err == EINVAL && strstr(why, "off-CPU record 1"), "damage %d: EINVAL (%s)", i,
		   why);
		free(t);
	}
	is_int(pt_live_allocs, 0, "no memory left allocated");
}

/* ---------------------------------------------------------------- exports */

static errno_t w_open(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return EOK;
}

/* The folded export of the reference with the wall clock (ns: counts in ns). */
static char *folded(bool wall, bool ns)
{
	prof_filter_t all = { 0 };
	prof_export_opts_t o = { PROF_FMT_FOLDED, NULL, "wall", false, NULL, wall, ns };
	prof_export_out_t w = { NULL, pt_write, w_open };
	prof_report_t *r;

	build_ref(&sb, PROF_VERSION, true);
	files_default();
	if (prof_report_new(&pt_env, &r) != EOK || prof_report_setup(r, &all, true) != EOK)
		return strdup("");
	prof_report_set_wall(r, wall);
	prof_report_feed(r, sb.buf, sb.len);
	pt_out_len = 0;
	pt_write(NULL, "", 0);
	errno_t err = prof_export(r, &pt_env, &o, &w);
	prof_report_free(r);
	return err == EOK ? strdup(pt_out) : strdup("");
}

static void test_folded(void)
{
	char *t = folded(true, false);

	note_text("folded -W:", t);
	HAS(t, "cli;main;compute 400");
	HAS(t, "cli;main;do_sleep;sched_block_[k];[off-cpu: sleep] 300");
	HAS(t, "cli;main;do_call;[off-cpu: wait ipcload.WORK] 300");
	free(t);
	t = folded(true, true);
	HAS(t, "cli;main;compute 400000000");
	HAS(t, "cli;main;do_call;[off-cpu: wait ipcload.WORK] 300000000");
	free(t);
	t = folded(false, false);
	HAS(t, "cli;main;compute 400");
	LACKS(t, "off-cpu");
	free(t);
	is_int(pt_live_allocs, 0, "no memory left allocated");
}

/* ---------------------------------------------------------------- vprof */

static void vprof_checks(const char *build, const char *dir)
{
	static char text[1 << 16];
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s/host/vprof -W -r %s %s/stream 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -W exits 0");
	HAS(text, " 30.00%      300    300000000  5 cli                [off-cpu: wait ipcload.WORK]");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -r %s %s/stream 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof exits 0");
	HAS(text, "100.00%      400    400000000  5 cli                compute");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof --wall -F folded -u ns -r %s %s/stream 2>&1",
		 build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof --wall -F folded -u ns exits 0");
	HAS(text, "cli;main;do_sleep;sched_block_[k];[off-cpu: sleep] 300000000");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -W -F speedscope -r %s %s/stream 2>&1", build,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -W -F speedscope exits 0");
	ok(strstr(text, "\"unit\":\"nanoseconds\"") && strstr(text, "\"endValue\":1000000000"),
	   "speedscope -W: weights in nanoseconds, 1 s in all");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -W -u ns %s/stream 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "vprof -u ns without -F folded: exit 2");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -W -F folded -u ms %s/stream 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "vprof -u ms: exit 2");
}

static void pprof_checks(const char *build, const char *dir)
{
	static char text[1 << 16];
	char cmd[1024];

	if (tool_run("command -v go", text, sizeof(text)) != 0) {
		note("no go here: pprof's wall/nanoseconds not checked");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -W -F pprof -o %s/p.pb.gz -r %s %s/stream && "
		 "go tool pprof -raw %s/p.pb.gz 2>&1", build, dir, dir, dir, dir);
	int rc = tool_run(cmd, text, sizeof(text));
	ok(rc == 0 && strstr(text, "samples/count wall/nanoseconds"),
	   "go tool pprof -raw: sample types samples/count wall/nanoseconds (%.200s)", text);
	snprintf(cmd, sizeof(cmd), "go tool pprof -top -sample_index=wall %s/p.pb.gz 2>&1", dir);
	rc = tool_run(cmd, text, sizeof(text));
	ok(rc == 0 && strstr(text, "300ms 30.00% 70.00%      300ms 30.00%  [off-cpu: sleep]") &&
	   strstr(text, "400ms 40.00% 40.00%      400ms 40.00%  compute") && strstr(text, "of 1000ms total"),
	   "go tool pprof -top: 400ms compute, 300ms per wait, of 1s (%.600s)", text);
}

static void test_vprof(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/vprof-wall.XXXXXX", cmd[1024], path[600];

	tool_root(dir, app_nm, kernel_nm);
	build_ref(&sb, PROF_VERSION, true);
	snprintf(path, sizeof(path), "%s/stream", dir);
	tool_write(path, sb.buf, sb.len);
	vprof_checks(build, dir);
	pprof_checks(build, dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
}

int main(void)
{
	test_plain();
	test_wall();
	test_served();
	test_tree();
	test_weights();
	test_versions();
	test_damaged();
	test_folded();
	test_vprof();
	free(sb.buf);
	free(pt_out);
	return done_testing();
}
