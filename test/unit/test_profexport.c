/*
 * Unit tests for the stack walk of lib/prof/profreport.c (prof_report_setup,
 * prof_report_walk) and the exporters of lib/prof/profexport.c, on a synthetic
 * stream with known counts against nm-format symbol files served by a
 * fake loader: the resolved stacks (task, thread, CPU, mode, frames root
 * first, kernel flags, binaries, return addresses adjusted to the call),
 * every filter, the folded and callgrind texts line by line, the gzip
 * framing and CRC of pprof, the speedscope JSON's profiles and weights,
 * empty and unkept profiles, out-of-memory at every allocation (no leak),
 * and the host tool build/host/vprof on bad input (exit codes, messages).
 * The real consumers (flamegraph.pl, go tool pprof, callgrind_annotate,
 * ajv, chromium) read these files in test/export.t.
 */
#define _GNU_SOURCE             /* memmem */
#include "hosttool.h"
#include "prof_testutil.h"
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>             /* perf.data's layouts, to check ours against */

#include <lib/profexport.h>
#include <lib/proffolded.h>
#include <lib/profreport.h>

/* ---------------------------------------------------------------- stream builder */

static pt_sb_t sb;

static void sb_header(void)
{
	prof_rec_header_t h;

	memset(&h, 0, sizeof(h));
	h.h = (prof_rec_t){ PROF_REC_HEADER, sizeof(h), 0, 0 };
	h.magic = PROF_MAGIC;
	h.version = PROF_VERSION;
	h.source = PROF_SRC_PMC;
	h.hz = 1000;
	h.ncpus = 2;
	h.flags = PROF_F_CALLCHAIN;
	h.depth = 8;
	h.tsc_hz = 1000000000;
	h.ktext_start = 0xffffffff80100000ull;
	h.ktext_end = 0xffffffff80200000ull;
	pt_sb_put(&sb, &h, sizeof(h));
}

/* count samples at second sec on cpu; chain: n return addresses. */
static void sb_samples(unsigned count, uint64_t task, uint64_t thread, uint32_t cpu,
		       unsigned sec, unsigned mode, uint64_t pc, unsigned nkernel,
		       unsigned n, const uint64_t *chain)
{
	struct { prof_rec_sample_t s; } r;

	memset(&r, 0, sizeof(r));
	r.s.task = task;
	r.s.thread = thread;
	r.s.pc = pc;
	r.s.mode = (uint8_t)mode;
	r.s.nchain = (uint16_t)n;
	r.s.nkernel = (uint16_t)nkernel;
	r.s.h.cpu = cpu;
	pt_sb_samples(&sb, count, &r.s, chain, 1000000000ull * sec);
}

#define K(x) (0xffffffff80100000ull + (x))

/*
 * The reference: task 5 "app" (threads 50, 51), task 7 "app", task 9
 * "other", idle; 71 samples.
 *   30  app-5  t50 cpu0 1s  main;compute
 *   20  app-5  t51 cpu1 2s  main;compute;helper
 *   10  app-5  t50 cpu0 3s  main;compute;syscall_entry[k];memcpy[k]
 *    5  app-7  t70 cpu1 4s  main;leaf
 *    4  other  t90 cpu0 5s  main;compute (compute at another PC)
 *    1  app-5  t50 cpu0 5s  0x500000 (no symbol)
 *    1  idle   cpu1 5s      kmain[k]
 */
static bool recursive;           /* build_ref adds 7 samples of a recursive stack */
static bool traced;              /* ... and trace records (sb_traces) */
static bool no_samples;          /* ... without its samples */

/* A TRACE record at tsc on cpu: kind, who (task, thread), the other side, call, arg. */
static void sb_trace(uint64_t tsc, uint32_t cpu, unsigned kind, uint64_t task, uint64_t thread,
		     uint64_t task2, uint64_t thread2, uint64_t call, uint32_t arg)
{
	prof_rec_trace_t t;

	memset(&t, 0, sizeof(t));
	t.h = (prof_rec_t){ PROF_REC_TRACE, sizeof(t), cpu, tsc };
	t.kind = (uint16_t)kind;
	t.arg = arg;
	t.task = task;
	t.thread = thread;
	t.task2 = task2;
	t.thread2 = thread2;
	t.call = call;
	t.method = call ? 0x4242 : 0;
	t.origin = kind == PROF_TR_RECEIVE || kind == PROF_TR_ANSWER ? 5 : 0;
	t.why = kind == PROF_TR_SWITCH && arg == PROF_TS_WAITING ? (thread == 50 ? WAIT_WHY_IPC :
									  WAIT_WHY_RECV) : 0;
	pt_sb_put(&sb, &t, sizeof(t));
}

/*
 * Trace events (ns): app-5 t50 runs on cpu0 from 100, in system call 9
 * from 300 makes call 1 to app-7 at 400 and waits (ipc) from 500; t70,
 * on cpu1 from 200, receives it at 600, answers at 700; t50 is woken at
 * 800 and runs on cpu1 from 900 (t70 waits in recv), takes the answer at
 * 1000, its system call ends at 1100. Then one record of an unknown kind.
 */
static void sb_traces(void)
{
	sb_trace(100, 0, PROF_TR_SWITCH, 0, 0, 5, 50, 0, 0);
	sb_trace(200, 1, PROF_TR_SWITCH, 0, 0, 7, 70, 0, 0);
	sb_trace(300, 0, PROF_TR_SYSCALL_ENTER, 5, 50, 0, 0, 0, 9);
	sb_trace(400, 0, PROF_TR_CALL, 5, 50, 7, 0, 1, 0);
	sb_trace(500, 0, PROF_TR_SWITCH, 5, 50, 0, 0, 0, PROF_TS_WAITING);
	sb_trace(600, 1, PROF_TR_RECEIVE, 7, 70, 5, 50, 1, 0);
	sb_trace(700, 1, PROF_TR_ANSWER, 7, 70, 5, 50, 1, 0);
	sb_trace(800, 1, PROF_TR_WAKEUP, 5, 50, 7, 70, 0, 0);
	sb_trace(900, 1, PROF_TR_SWITCH, 7, 70, 5, 50, 0, PROF_TS_WAITING);
	sb_trace(1000, 1, PROF_TR_ANSWERED, 5, 50, 0, 0, 1, 0);
	sb_trace(1100, 1, PROF_TR_SYSCALL_EXIT, 5, 50, 0, 0, 0, 9);
	sb_trace(1200, 1, PROF_TR_COUNT + 7, 5, 50, 0, 0, 0, 0);
}

static void build_ref(void)
{
	static const uint64_t c1[] = { 0x401020 }, c2[] = { 0x401130, 0x401020 },
		c3[] = { K(0x110), 0x401150, 0x401020 }, c4[] = { 0x401040 },
		c5[] = { 0x401130, 0x401160, 0x401020 };

	sb.len = 0;
	sb_header();
	pt_sb_task(&sb, 0, "");
	pt_sb_task(&sb, 5, "app");
	pt_sb_task(&sb, 7, "app");
	pt_sb_task(&sb, 9, "other");
	pt_sb_load(&sb, 5, "/bin/app", 0);
	if (traced)
		sb_traces();
	if (no_samples)
		return;
	pt_sb_load(&sb, 7, "/bin/app", 0);
	pt_sb_load(&sb, 9, "/bin/app", 0);
	sb_samples(30, 5, 50, 0, 1, PROF_MODE_USER, 0x401110, 0, 1, c1);
	sb_samples(20, 5, 51, 1, 2, PROF_MODE_USER, 0x401204, 0, 2, c2);
	sb_samples(10, 5, 50, 0, 3, PROF_MODE_KERNEL, K(0x208), 1, 3, c3);
	sb_samples(5, 7, 70, 1, 4, PROF_MODE_USER, 0x401300, 0, 1, c4);
	sb_samples(4, 9, 90, 0, 5, PROF_MODE_USER, 0x401180, 0, 1, c1);
	sb_samples(1, 5, 50, 0, 5, PROF_MODE_USER, 0x500000, 0, 0, NULL);
	sb_samples(1, 0, 0, 1, 5, PROF_MODE_IDLE, K(4), 0, 0, NULL);
	if (recursive)      /* main;compute;compute;helper: compute twice in a stack */
		sb_samples(7, 5, 50, 0, 6, PROF_MODE_USER, 0x401204, 0, 3, c5);
}

/* ---------------------------------------------------------------- fake env */

static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401100 T compute\n"
	"0000000000401200 t helper\n"
	"0000000000401300 0000000000000010 T leaf\n";
static const char kernel_nm[] =
	"ffffffff80100000 T kmain\n"
	"ffffffff80100100 T syscall_entry\n"
	"ffffffff80100200 W memcpy\n";

/* out.open: a marker line "\n@PATH\n" in the output; EIO for fail_open. */
static const char *fail_open;

static errno_t f_open(void *ctx, const char *path)
{
	if (fail_open && strcmp(path, fail_open) == 0)
		return EIO;
	pt_write(ctx, "\n@", 2);
	pt_write(ctx, path, strlen(path));
	pt_write(ctx, "\n", 1);
	return EOK;
}
static const prof_filter_t all = { 0 };

/* A report of the reference stream with filter f (stacks kept). */
static prof_report_t *fed(const prof_filter_t *f, errno_t *err)
{
	prof_report_t *r;

	build_ref();
	*err = prof_report_new(&pt_env, &r);
	if (*err != EOK)
		return NULL;
	*err = prof_report_setup(r, f, true);
	prof_report_keep_records(r, true);       /* for perf.data */
	if (*err == EOK)
		*err = prof_report_feed(r, sb.buf, sb.len);
	if (*err != EOK) {
		prof_report_free(r);
		return NULL;
	}
	return r;
}

/* ---------------------------------------------------------------- walk */

/* prof_walk_fn_t: one line per stack into out. */
static errno_t w_line(void *ctx, const prof_walk_info_t *info, const prof_xstack_t *s)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%llu %s t%llu c%u m%u x%llu:",
			 (unsigned long long)s->task, s->task_name,
			 (unsigned long long)s->thread, s->cpu, s->mode,
			 (unsigned long long)s->count);

	(void)ctx, (void)info;
	for (size_t i = 0; i < s->nframes; i++) {
		const prof_frame_t *f = &s->frames[i];
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %s%s@%llx%s", f->name,
			      f->kernel ? "[k]" : "", (unsigned long long)f->addr,
			      f->path ? "" : "?");
	}
	pt_write(NULL, line, (size_t)n);
	pt_write(NULL, "\n", 1);
	return EOK;
}

static char *walk_text(const prof_filter_t *f)
{
	errno_t err;
	prof_report_t *r = fed(f, &err);

	pt_out_len = 0;
	pt_write(NULL, "", 0);
	if (!r)
		return NULL;
	err = prof_report_walk(r, NULL, w_line, NULL);
	prof_report_free(r);
	return err == EOK ? strdup(pt_out) : NULL;
}

static const char walk_all[] =
	"0 [idle] t0 c1 m2 x1: kmain[k]@ffffffff80100004\n"
	"5 app t50 c0 m0 x30: main@40101f compute@401110\n"
	"5 app t51 c1 m0 x20: main@40101f compute@40112f helper@401204\n"
	"5 app t50 c0 m1 x10: main@40101f compute@40114f syscall_entry[k]@ffffffff8010010f "
	"memcpy[k]@ffffffff80100208\n"
	"5 app t50 c0 m0 x1: 0x500000@500000\n"
	"7 app t70 c1 m0 x5: main@40103f leaf@401300\n"
	"9 other t90 c0 m0 x4: main@40101f compute@401180\n";

static void test_walk(void)
{
	char *t = walk_text(&all);

	is_str(t, walk_all, "walk: every stack, root first, return addresses - 1");
	free(t);
	is_int(pt_live_allocs, 0, "walk: no memory left");
}

static void test_filters(void)
{
	prof_filter_t f = all;
	char *t;

	f.by_task = true;
	f.task_id = 7;
	t = walk_text(&f);
	is_str(t, "7 app t70 c1 m0 x5: main@40103f leaf@401300\n", "-T 7: task 7 only");
	free(t);
	f.task_name = "other";
	t = walk_text(&f);
	is_str(t, "9 other t90 c0 m0 x4: main@40101f compute@401180\n", "-T other: by name");
	free(t);
	f = all;
	f.mode = PROF_XMODE_KERNEL;
	t = walk_text(&f);
	ok(t && strstr(t, "x10:") && strstr(t, "m2 x1:") && !strstr(t, "m0 "),
	   "-m kernel: kernel and idle samples only");
	free(t);
	f.mode = PROF_XMODE_USER;
	t = walk_text(&f);
	ok(t && !strstr(t, "m1 ") && !strstr(t, "m2 ") && strstr(t, "x30:"),
	   "-m user: user samples only");
	free(t);
	f = all;
	f.by_cpu = true;
	f.cpu = 1;
	t = walk_text(&f);
	is_str(t, "0 [idle] t0 c1 m2 x1: kmain[k]@ffffffff80100004\n"
	       "5 app t51 c1 m0 x20: main@40101f compute@40112f helper@401204\n"
	       "7 app t70 c1 m0 x5: main@40103f leaf@401300\n", "-c 1: CPU 1 only");
	free(t);
	f = all;
	f.window = true;
	f.from_ms = 1500;
	f.to_ms = 3500;
	t = walk_text(&f);
	ok(t && strstr(t, "x20:") && strstr(t, "x10:") && !strstr(t, "x30:") &&
	   !strstr(t, "x5:"), "-w 1.5,3.5: the samples of seconds 2 and 3 only");
	free(t);
}

/*
 * A report never set up (the guest tools' case) takes every sample, of
 * every CPU. (Before the fix: the zeroed filter meant "CPU 0 only", and
 * sprofile/profile lost the other CPUs' samples.)
 */
static void test_no_setup(void)
{
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 0, false, NULL, false, 0 };
	prof_report_t *r;

	build_ref();
	prof_report_new(&pt_env, &r);
	is_int(prof_report_feed(r, sb.buf, sb.len), EOK, "no setup: fed");
	pt_out_len = 0;
	pt_write(NULL, "", 0);
	is_int(prof_report_print(r, &o), EOK, "no setup: printed");
	ok(strncmp(pt_out, "samples: 71 total, 60 user, 10 kernel, 1 idle, 0 lost\n", 53) == 0,
	   "no setup: every sample counted, CPU 1's too: %.*s", (int)strcspn(pt_out, "\n"), pt_out);
	ok(strstr(pt_out, " 20     20000000  5 app                helper") != NULL, "no setup: CPU 1's helper row");
	is_int(prof_report_walk(r, NULL, w_line, NULL), EINVAL, "no setup: no stacks to walk");
	prof_report_free(r);
}

/* ---------------------------------------------------------------- exports */

/* The export of the reference stream (filter all) as format; its error. */
static errno_t export_as(unsigned format, bool threads)
{
	prof_export_opts_t o = { format, NULL, "ref.prof", threads, NULL, false, false };
	prof_export_out_t w = { NULL, pt_write, f_open };
	errno_t err;
	prof_report_t *r = fed(&all, &err);

	pt_out_len = 0;
	pt_write(NULL, "", 0);
	if (!r)
		return err;
	err = prof_export(r, &pt_env, &o, &w);
	prof_report_free(r);
	return err;
}

static const char folded_ref[] =
	"[idle];kmain_[k] 1\n"
	"app-5;0x500000_(app) 1\n"
	"app-5;main;compute 30\n"
	"app-5;main;compute;helper 20\n"
	"app-5;main;compute;syscall_entry_[k];memcpy_[k] 10\n"
	"app-7;main;leaf 5\n"
	"other;main;compute 4\n";

static void test_folded(void)
{
	is_int(export_as(PROF_FMT_FOLDED, false), EOK, "folded: EOK");
	is_str(pt_out, folded_ref, "folded: sorted unique stacks, task first, _[k], hex (binary)");
	is_int(pt_live_allocs, 0, "folded: no memory left");
}

static char fold_text[256];
static size_t fold_len;

static void fold_sink(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len && fold_len + 1 < sizeof(fold_text); i++)
		fold_text[fold_len++] = s[i];
	fold_text[fold_len] = '\0';
}

/* The folded encoder both profiles write with (lib/proffolded.h). */
static void test_folded_encoder(void)
{
	fmt_out_t o = { fold_sink, NULL };

	fold_len = 0;
	prof_folded_root(&o, "my task;x", true, 12);
	prof_folded_frame(&o, "a b\tc;d", 0, "_[k]");
	prof_folded_frame(&o, "[ipc fs.READ x;y]", 5, "");
	prof_folded_frame(&o, "0x40", 0, "_(");
	prof_folded_name(&o, "my app");
	fold_sink(NULL, ")", 1);
	prof_folded_end(&o, 42);
	is_str(fold_text, "my_task_x-12;a_b_c_d_[k];[ipc fs.READ x_y];0x40_(my_app) 42\n",
	       "folded encoder: ';' and whitespace made '_', an ipc frame keeps its spaces");
	fold_len = 0;
	prof_folded_root(&o, "t", false, 3);
	prof_folded_frame(&o, "", 7, "");
	prof_folded_end(&o, 0);
	is_str(fold_text, "t; 0\n", "folded encoder: no id, an empty name, keep past its end");
}

static void test_callgrind(void)
{
	is_int(export_as(PROF_FMT_CALLGRIND, false), EOK, "callgrind: EOK");
	ok(strncmp(pt_out, "# callgrind format\nversion: 1\n", 30) == 0, "callgrind: header");
	ok(strstr(pt_out, "\nevents: Samples\nsummary: 71\n") != NULL, "callgrind: events, total");
	/* main: self 0; calls compute in 30 + 20 + 10 + 4 stacks, leaf in 5. */
	ok(strstr(pt_out, "\nob=/bin/app\nfl=???\nfn=main\n0 0\ncfn=compute\ncalls=64 0\n0 64\n"
		  "cfn=leaf\ncalls=5 0\n0 5\n") != NULL, "callgrind: main's arcs, inclusive");
	ok(strstr(pt_out, "\nfn=compute\n0 34\ncfn=helper\ncalls=20 0\n0 20\n"
		  "cob=/boot/kernel\ncfn=syscall_entry [k]\ncalls=10 0\n0 10\n") != NULL,
	   "callgrind: compute self 34, arcs to helper and into the kernel (cob=)");
	ok(strstr(pt_out, "\nob=/boot/kernel\nfl=???\nfn=memcpy [k]\n0 10\n") != NULL,
	   "callgrind: kernel functions under ob=/boot/kernel, named NAME [k]");
	ok(strstr(pt_out, "\nob=/bin/app\nfl=???\nfn=0x500000\n0 1\n") != NULL,
	   "callgrind: an address without symbol");
	/* Every stack's root is called from (below main): main, and kmain for a kernel stack. */
	const char *root = strstr(pt_out, "\nob=???\nfl=???\nfn=(below main)\n0 0\n");
	ok(root && strstr(root, "cob=/bin/app\ncfn=main\ncalls=") != NULL,
	   "callgrind: stacks' roots called from (below main), for callgrind_annotate's "
	   "inclusive costs");
}

/*
 * A function twice in one stack (recursion, or a leaf caller recovered
 * next to the walk's) passes each sample on once: only from its deepest
 * occurrence, so callgrind_annotate's inclusive cost (self + calls) counts
 * it once. (Before the fix: a compute -> compute arc, compute counted the
 * 7 samples twice.)
 */
static void test_callgrind_recursion(void)
{
	recursive = true;
	is_int(export_as(PROF_FMT_CALLGRIND, false), EOK, "callgrind, recursive stack: EOK");
	recursive = false;
	ok(strstr(pt_out, "\nfn=compute\n0 34\ncfn=helper\ncalls=27 0\n0 27\n") &&
	   !strstr(pt_out, "cfn=compute\ncalls=7 0"),
	   "callgrind: compute twice in a stack: one arc to helper, none to itself");
	ok(strstr(pt_out, "\nfn=main\n0 0\ncfn=compute\ncalls=71 0\n0 71\n") != NULL,
	   "callgrind: main passes the 7 samples to compute once");
}

static uint32_t crc32_ref(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

/* Undo the stored-block gzip of out into buf; its length, or -1. */
static long gunzip_stored(const unsigned char *p, size_t n, unsigned char *buf, size_t size)
{
	size_t at = 10, len = 0;

	if (n < 18 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8)
		return -1;
	for (int final = 0; !final;) {
		if (at + 5 > n)
			return -1;
		final = p[at] & 1;
		size_t bl = p[at + 1] | (size_t)p[at + 2] << 8;
		if ((p[at] & 6) || (bl ^ 0xffff) != (p[at + 3] | (size_t)p[at + 4] << 8) ||
		    at + 5 + bl > n || len + bl > size)
			return -1;
		memcpy(buf + len, p + at + 5, bl);
		len += bl;
		at += 5 + bl;
	}
	uint32_t crc = p[at] | p[at + 1] << 8 | p[at + 2] << 16 | (uint32_t)p[at + 3] << 24;
	uint32_t isz = p[at + 4] | p[at + 5] << 8 | p[at + 6] << 16 | (uint32_t)p[at + 7] << 24;
	return at + 8 == n && crc == crc32_ref(buf, len) && isz == len ? (long)len : -1;
}

static bool has_bytes(const unsigned char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return true;
	return false;
}

static void test_pprof(void)
{
	static unsigned char pb[1 << 16];

	is_int(export_as(PROF_FMT_PPROF, false), EOK, "pprof: EOK");
	long n = gunzip_stored((unsigned char *)pt_out, pt_out_len, pb, sizeof(pb));
	ok(n > 0, "pprof: a gzip member of stored blocks, CRC and size right (%ld bytes)", n);
	ok(n > 0 && pb[0] == (1 << 3 | 2), "pprof: starts with a sample_type");
	ok(n > 0 && has_bytes(pb, (size_t)n, "nanoseconds") &&
	   has_bytes(pb, (size_t)n, "syscall_entry [k]") && has_bytes(pb, (size_t)n, "/bin/app"),
	   "pprof: the string table names units, kernel functions, binaries");
}

static void test_speedscope(void)
{
	is_int(export_as(PROF_FMT_SPEEDSCOPE, false), EOK, "speedscope: EOK");
	ok(strstr(pt_out, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"") &&
	   strstr(pt_out, "\"exporter\":\"vprof\"") && strstr(pt_out, "\"name\":\"ref.prof\""),
	   "speedscope: schema, exporter, name");
	ok(strstr(pt_out, "\"name\":\"app (task 5)\"") && strstr(pt_out, "\"name\":\"app (task 7)\"") &&
	   strstr(pt_out, "\"name\":\"other (task 9)\""), "speedscope: one profile per task");
	ok(strstr(pt_out, "\"weights\":[30000000,20000000,10000000,1000000],\"endValue\":61000000}") != NULL,
	   "speedscope: task 5's weights (ns) sum to 61 ms");
	ok(strstr(pt_out, "{\"name\":\"memcpy [k]\",\"file\":\"/boot/kernel\"}") != NULL,
	   "speedscope: kernel frames marked, with their file");
	is_int(export_as(PROF_FMT_SPEEDSCOPE, true), EOK, "speedscope --threads: EOK");
	ok(strstr(pt_out, "\"name\":\"app (task 5, thread 51)\"") &&
	   strstr(pt_out, "\"weights\":[30000000,10000000,1000000],\"endValue\":41000000}"),
	   "speedscope --threads: one profile per thread");
}

static void test_svg(void)
{
	is_int(export_as(PROF_FMT_SVG, false), EOK, "svg: EOK");
	ok(strncmp(pt_out, "<?xml", 5) == 0 && strstr(pt_out, "</svg>\n") &&
	   strstr(pt_out, "<title>ref.prof - vprof flame graph</title>"), "svg: a document, titled");
	ok(strstr(pt_out, "ref.prof: pmc at 1000 Hz on 2 CPUs, 71 samples, 0 lost</text>") != NULL,
	   "svg: the heading names source, rate, CPUs, samples, lost");
	ok(strstr(pt_out, "data-depth=\"0\" data-x=\"0\" data-n=\"71\" data-name=\"all\"") &&
	   strstr(pt_out, "data-depth=\"1\" data-x=\"0\" data-n=\"61\" data-name=\"app-5\"") &&
	   strstr(pt_out, "data-n=\"10\" data-name=\"memcpy [k]\"><title>memcpy [k] "
		  "(10 samples, 14.08%)</title>"), "svg: root, tasks (largest first), frames");
	ok(strstr(pt_out, "data-name=\"0x500000 (app)\"") != NULL, "svg: an unknown address");
	ok(strstr(pt_out, "window.vprofSearch") && strstr(pt_out, "<![CDATA["), "svg: its script inline");
}

static uint64_t le(const char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | (unsigned char)p[i];
	return v;
}

/* The gmon.out of path in out (after its "@path" line), its size in *n. */
static const char *gmon_of(const char *path, size_t *n)
{
	char mark[64];

	snprintf(mark, sizeof(mark), "\n@%s\n", path);
	const char *p = memmem(pt_out, pt_out_len, mark, strlen(mark));
	if (!p)
		return NULL;
	p += strlen(mark);
	const char *end = memmem(p, pt_out_len - (size_t)(p - pt_out), "\n@/", 3);
	*n = end ? (size_t)(end - p) : pt_out_len - (size_t)(p - pt_out);
	return p;
}

static void test_gmon(void)
{
	size_t n, kn;

	is_int(export_as(PROF_FMT_GMON, false), EOK, "gmon: EOK");
	const char *g = gmon_of("/bin/app", &n), *k = gmon_of("/boot/kernel", &kn);
	ok(g && k, "gmon: one file for the program, one for the kernel");
	ok(g && n > 61 && memcmp(g, "gmon\1\0\0\0", 8) == 0 && g[20] == 0,
	   "gmon: header gmon, version 1, then a histogram record");
	if (!g || n <= 61 || !k)
		return;
	uint64_t lo = le(g + 21, 8), hi = le(g + 29, 8), bins = le(g + 37, 4);
	ok(lo == 0x401100 && hi == lo + 4 * bins && hi > 0x500000 && le(g + 41, 4) == 1000 &&
	   memcmp(g + 45, "seconds", 8) == 0 && g[60] == 's',
	   "gmon: range from the first sampled function's start to the last PC (0x500000), "
	   "4-byte bins, the rate, seconds");
	uint64_t at = 61 + 2 * bins, sum = 0;
	for (uint64_t i = 0; i < bins; i++)
		sum += le(g + 61 + 2 * i, 2);
	is_uint(sum, 30 + 20 + 5 + 4 + 1, "gmon: the program's histogram holds its leaf samples");
	is_uint(le(g + 61 + 2 * ((0x401204 - lo) / 4), 2), 20, "gmon: helper's PC bin holds 20");
	is_uint(le(g + 61 + 2 * ((0x401110 - lo) / 4), 2), 30, "gmon: compute's PC bin holds 30");
	size_t arcs = 0;
	uint64_t helper = 0;
	for (; at + 21 <= n && g[at] == 1; at += 21, arcs++) {
		if (le(g + at + 1, 8) == 0x40112f && le(g + at + 9, 8) == 0x401200)
			helper = le(g + at + 17, 4);
	}
	ok(at == n && arcs == 3 && helper == 20,
	   "gmon: 3 arcs inside the program (main->compute, main->leaf, compute->helper "
	   "from its call site: %llu)", (unsigned long long)helper);
	fail_open = "/boot/kernel";
	is_int(export_as(PROF_FMT_GMON, false), EIO, "gmon: an error from open stops it");
	fail_open = NULL;
}

/* ---------------------------------------------------------------- perf.data */

/* A record of perf.data's data section (one pass of the walk). */
typedef struct pd_rec {
	struct perf_event_header h;
	const char *body;               /* after the header */
} pd_rec_t;

/* The record of data section d (n bytes) at *at, moving on; false at the end. */
static bool pd_next(const char *d, size_t n, size_t *at, pd_rec_t *r)
{
	if (*at + sizeof(r->h) > n)
		return false;
	memcpy(&r->h, d + *at, sizeof(r->h));
	if (r->h.size < sizeof(r->h) || *at + r->h.size > n)
		return false;
	r->body = d + *at + sizeof(r->h);
	*at += r->h.size;
	return true;
}

/* The file header and the attr: sizes, offsets, the event, its sample type. */
static void perf_head(const char *f, size_t n)
{
	struct perf_event_attr a;

	ok(n > 256 && memcmp(f, "PERFILE2", 8) == 0 && le(f + 8, 8) == 104 &&
	   le(f + 16, 8) == PERF_ATTR_SIZE_VER7 + 16,
	   "perf: magic PERFILE2, a 104-byte header, attr entries of attr (128) + ids section");
	if (n <= 256)
		return;
	ok(le(f + 24, 8) == 104 && le(f + 32, 8) == 144 && le(f + 40, 8) == 256 &&
	   le(f + 40, 8) + le(f + 48, 8) < n && le(f + 56, 8) == 0 && le(f + 64, 8) == 0,
	   "perf: attrs at 104 (one), data after the attr's id at 248, no event types");
	memset(&a, 0, sizeof(a));
	memcpy(&a, f + 104, PERF_ATTR_SIZE_VER7);
	ok(a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_CPU_CLOCK &&
	   a.size == PERF_ATTR_SIZE_VER7 && a.sample_period == 1000000 && a.sample_id_all &&
	   a.mmap2 && a.comm && !a.freq && a.sample_type == (PERF_SAMPLE_IDENTIFIER |
	   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN),
	   "perf: attr cpu-clock, software, period 1 ms (1000 Hz), sample_id_all, mmap2, "
	   "sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN");
	ok(le(f + 232, 8) == 248 && le(f + 240, 8) == 8 && le(f + 248, 8) == 1,
	   "perf: the attr's ids section holds its one id (1)");
	uint64_t bits = le(f + 72, 8);
	ok(bits == ((1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 11) | (1u << 12) |
		    (1u << 21)),
	   "perf: features OSRELEASE VERSION ARCH NRCPUS CMDLINE EVENT_DESC SAMPLE_TIME (no "
	   "build-id: the fake env's binaries are nm text) (%#llx)", (unsigned long long)bits);
}

/* The fields of a SAMPLE in sample_type order; its callchain into ips (nr words). */
typedef struct pd_sample {
	uint64_t id, ip, time, period, nr;
	uint32_t pid, tid, cpu;
	uint64_t ips[16];
} pd_sample_t;

static void pd_sample(const pd_rec_t *r, pd_sample_t *s)
{
	const char *b = r->body;

	s->id = le(b, 8);
	s->ip = le(b + 8, 8);
	s->pid = (uint32_t)le(b + 16, 4);
	s->tid = (uint32_t)le(b + 20, 4);
	s->time = le(b + 24, 8);
	s->cpu = (uint32_t)le(b + 32, 4);
	s->period = le(b + 40, 8);
	s->nr = le(b + 48, 8);
	for (uint64_t i = 0; i < s->nr && i < 16; i++)
		s->ips[i] = le(b + 56 + 8 * i, 8);
}

/* Per record type: the count, and whether every record's size is its layout's. */
typedef struct pd_counts {
	unsigned comm, mmap2, sample, other, badsize;
	pd_sample_t first, kernel, idle;
	char kmap[64];
	uint64_t kstart, klen, kpgoff;
	int kpid;
} pd_counts_t;

/* Size of a name padded with its NUL to 8. */
static size_t pd_name8(const char *s)
{
	return (strlen(s) + 8) / 8 * 8;
}

static void pd_count(const pd_rec_t *r, pd_counts_t *c)
{
	pd_sample_t s;

	if (r->h.type == PERF_RECORD_COMM) {
		c->comm++;
		c->badsize += r->h.size != 8 + 8 + pd_name8(r->body + 8) + 32;
	} else if (r->h.type == PERF_RECORD_MMAP2) {
		const char *name = r->body + 64;
		c->mmap2++;
		c->badsize += r->h.size != 8 + 64 + pd_name8(name) + 32;
		if ((r->h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
			snprintf(c->kmap, sizeof(c->kmap), "%s", name);
			c->kpid = (int)le(r->body, 4);
			c->kstart = le(r->body + 8, 8);
			c->klen = le(r->body + 16, 8);
			c->kpgoff = le(r->body + 24, 8);
		}
	} else if (r->h.type == PERF_RECORD_SAMPLE) {
		pd_sample(r, &s);
		c->badsize += r->h.size != 8 + 56 + 8 * s.nr;
		if (c->sample++ == 0)
			c->first = s;
		if (s.pid == 5 && (r->h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
			c->kernel = s;
		if (s.pid == 0)
			c->idle = s;
	} else {
		c->other++;
	}
}

static void test_perf(void)
{
	pd_counts_t c;
	size_t at = 0;
	pd_rec_t r;

	is_int(export_as(PROF_FMT_PERF, false), EOK, "perf: EOK");
	perf_head(pt_out, pt_out_len);
	if (pt_out_len <= 256)
		return;
	const char *d = pt_out + le(pt_out + 40, 8);
	size_t n = le(pt_out + 48, 8);
	memset(&c, 0, sizeof(c));
	while (pd_next(d, n, &at, &r))
		pd_count(&r, &c);
	ok(at == n && c.other == 0 && c.badsize == 0,
	   "perf: the data section is whole records, each of its layout's size");
	ok(c.comm == 5 && c.mmap2 == 4 && c.sample == 71,
	   "perf: a COMM per thread (5), an MMAP2 per sampled task's program and the "
	   "kernel (4), a SAMPLE per sample (71): %u %u %u", c.comm, c.mmap2, c.sample);
	ok(strcmp(c.kmap, "[kernel.kallsyms]__text_start") == 0 && c.kpid == -1 &&
	   c.kstart == K(0) && c.klen == 0x100000 && c.kpgoff == K(0),
	   "perf: the kernel's MMAP2: [kernel.kallsyms] of pid -1 over the header's text, "
	   "pgoff its reference symbol's address (%s)", c.kmap);
	pd_sample_t *s = &c.first;
	ok(s->id == 1 && s->ip == 0x401110 && s->pid == 5 && s->tid == 50 &&
	   s->time == 1000000000 && s->cpu == 0 && s->period == 1000000 && s->nr == 3 &&
	   s->ips[0] == PERF_CONTEXT_USER && s->ips[1] == 0x401110 && s->ips[2] == 0x401020,
	   "perf: a user sample: id, ip, pid/tid, time (ns), cpu, period (its weight, ns), "
	   "callchain [user, ip, return address]");
	s = &c.kernel;
	ok(s->ip == K(0x208) && s->nr == 6 && s->ips[0] == PERF_CONTEXT_KERNEL &&
	   s->ips[1] == K(0x208) && s->ips[2] == K(0x110) && s->ips[3] == PERF_CONTEXT_USER &&
	   s->ips[4] == 0x401150 && s->ips[5] == 0x401020 && s->time == 3000000009ull,
	   "perf: a kernel sample (the last of ten, 9 ns after the first): [kernel, ip, kernel "
	   "frame, user, user frames] (ip %#llx, "
	   "nr %llu, time %llu)", (unsigned long long)s->ip, (unsigned long long)s->nr,
	   (unsigned long long)s->time);
	s = &c.idle;
	ok(s->ip == K(4) && s->tid == 0 && s->cpu == 1 && s->nr == 2,
	   "perf: the idle sample: pid 0, [kernel, ip]");
	ok(memmem(pt_out, pt_out_len, "cpu-clock", 10) && memmem(pt_out, pt_out_len, "x86_64", 7),
	   "perf: features name the event and the arch");
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void)
{
	prof_export_opts_t o = { PROF_FMT_FOLDED, NULL, NULL, false, NULL, false, false };
	prof_export_out_t w = { NULL, pt_write, NULL };
	prof_filter_t f = all;
	prof_report_t *r;
	errno_t err;

	f.by_cpu = true;
	f.cpu = 3;
	r = fed(&f, &err);
	is_int(r ? prof_export(r, &pt_env, &o, &w) : err, ENOENT, "no sample left: ENOENT");
	prof_report_free(r);
	prof_report_new(&pt_env, &r);
	prof_report_feed(r, sb.buf, sb.len);
	is_int(prof_export(r, &pt_env, &o, &w), EINVAL, "stacks not kept: EINVAL");
	is_int(prof_report_setup(r, &all, true), EINVAL, "setup after the header: EINVAL");
	o.format = PROF_FMT_REPORT;
	is_int(prof_export(r, &pt_env, &o, &w), EINVAL, "format report: EINVAL");
	prof_report_free(r);
	r = fed(&all, &err);
	o.format = PROF_FMT_GMON;
	is_int(prof_export(r, &pt_env, &o, &w), EINVAL, "gmon without out.open: EINVAL");
	prof_report_free(r);
	is_int(prof_format_parse("pprof"), PROF_FMT_PPROF, "format by name");
	is_int(prof_format_parse("png"), -1, "unknown format: -1");
	is_int(pt_live_allocs, 0, "no memory left");
}

/* How often needle occurs in text. */
static unsigned count_of(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* The timeline of the reference with trace records: the slices, the flow, the samples. */
static void test_trace(void)
{
	traced = true;
	is_int(export_as(PROF_FMT_TRACE, false), EOK, "trace: EOK");
	ok(strncmp(pt_out, "{\"traceEvents\":[\n", 16) == 0 &&
	   strstr(pt_out, "\"displayTimeUnit\":\"ns\"") != NULL, "trace: the object form");
	ok(strstr(pt_out, "{\"ph\":\"s\",\"pid\":5,\"tid\":50,\"ts\":0.4003906250,\"cat\":\"ipc\","
		  "\"id\":1,\"name\":\"ipc app.16962\"}") != NULL &&
	   strstr(pt_out, "{\"ph\":\"t\",\"pid\":7,\"tid\":70,\"ts\":0.5996093750,") != NULL &&
	   strstr(pt_out, "{\"ph\":\"f\",\"pid\":5,\"tid\":50,\"ts\":1.0000000000,\"cat\":\"ipc\","
		  "\"id\":1,\"bp\":\"e\"") != NULL,
	   "trace: the call's flow, s at CALL, t at RECEIVE, f at ANSWERED");
	ok(strstr(pt_out, "{\"ph\":\"X\",\"pid\":5,\"tid\":50,\"ts\":0.5000000000,\"dur\":0.2998046875,"
		  "\"name\":\"waiting: ipc\",\"args\":{}}") != NULL &&
	   strstr(pt_out, "{\"ph\":\"X\",\"pid\":5,\"tid\":50,\"ts\":0.2998046875,\"dur\":0.2001953125,"
		  "\"name\":\"syscall 9\",\"args\":{\"number\":9}}") != NULL &&
	   strstr(pt_out, "{\"ph\":\"X\",\"pid\":1000000000,\"tid\":1,\"ts\":0.2001953125,"
		  "\"dur\":0.7001953125,\"name\":\"app:70\",\"args\":{\"task\":7,\"thread\":70,"
		  "\"origin\":5,\"origin_name\":\"app\"}}") != NULL,
	   "trace: waiting, the system call's piece, the CPU's slice with its origin");
	is_int(count_of(pt_out, "\"cat\":\"sample\""), 70, "trace: an instant per sample (not idle)");
	ok(count_of(pt_out, "\"name\":\"compute\",\"args\":{\"cpu\":0,\"stack\":"
		    "[\"compute\",\"main\"]}") == 34 &&
	   count_of(pt_out, "\"stack\":[\"memcpy [k]\",\"syscall_entry [k]\",\"compute\","
		    "\"main\"]") == 10, "trace: the samples' stacks, innermost first");
	ok(strstr(pt_out, "\"trace_events\":11,\"unknown_kinds\":1,\"flows\":1,"
		  "\"flows_left_out\":0,") != NULL, "trace: otherData counts");
	no_samples = true;
	is_int(export_as(PROF_FMT_TRACE, false), EOK, "trace: trace records without samples: EOK");
	traced = false;
	is_int(export_as(PROF_FMT_TRACE, false), ENOENT, "trace: neither samples nor events: ENOENT");
	no_samples = false;
	is_int(pt_live_allocs, 0, "trace: no memory left");
}

/* Out of memory at each allocation of one export: an error, no leak. */
static void enomem_format(unsigned fmt)
{
	long failures = 0, leaks = 0, wrong = 0;

	for (pt_fail_at = 0;; pt_fail_at++) {
		pt_nallocs = 0;
		errno_t err = export_as(fmt, false);
		leaks += pt_live_allocs != 0;
		pt_live_allocs = 0;
		if (pt_nallocs <= pt_fail_at)
			break;          /* no allocation failed: done */
		failures++;
		wrong += err != ENOMEM && err != EOK;   /* EOK: symbols lost */
	}
	pt_fail_at = -1;
	ok(failures > 10 && leaks == 0 && wrong == 0,
	   "%s%s: out of memory at each of %ld allocations: ENOMEM (or EOK "
	   "without symbols), no leak (%ld), no other error (%ld)",
	   prof_format_name(fmt), traced ? " (trace records)" : "", failures, leaks, wrong);
}

/* Out of memory at every allocation of each export (the timeline also with trace records). */
static void test_enomem(void)
{
	for (unsigned fmt = PROF_FMT_FOLDED; fmt < PROF_FMT_COUNT; fmt++)
		enomem_format(fmt);
	traced = true;
	enomem_format(PROF_FMT_TRACE);
	traced = false;
}

/*
 * Fuzz: the reference stream with bytes changed, cut short, or with a
 * random body after its header, fed in random pieces and exported in every
 * format: only EOK, EINVAL/ENOTSUP (from feeding) or ENOENT (no sample);
 * every allocation released (ASan finds any bad access).
 */
static void test_fuzz(void)
{
	static unsigned char ref[1 << 16];
	uint64_t seed = 0x2545f4914f6cdd1dull;
	unsigned counts[4] = { 0 }, bad = 0;
	prof_export_out_t w = { NULL, pt_write, f_open };

	build_ref();
	size_t rlen = sb.len;
	memcpy(ref, sb.buf, rlen);
	for (int i = 0; i < 1200; i++) {
		size_t len = rlen;
		memcpy(sb.buf, ref, rlen);
		if (i % 3 == 0) {
			for (int j = 0; j < 1 + i % 7; j++)
				sb.buf[sizeof(prof_rec_header_t) + rng_next(&seed) %
				     (len - sizeof(prof_rec_header_t))] = (unsigned char)rng_next(&seed);
		} else if (i % 3 == 1) {
			len = rng_next(&seed) % rlen;
		} else {
			len = sizeof(prof_rec_header_t) + rng_next(&seed) % 2048;
			for (size_t j = sizeof(prof_rec_header_t); j < len; j++)
				sb.buf[j] = (unsigned char)rng_next(&seed);
		}
		prof_report_t *r;
		prof_export_opts_t o = { 1 + (unsigned)i % (PROF_FMT_COUNT - 1), NULL, "fuzz",
					 (i & 8) != 0, NULL, false, false };
		errno_t err = prof_report_new(&pt_env, &r);
		if (err == EOK)
			err = prof_report_setup(r, &all, true);
		if (err == EOK)
			prof_report_keep_records(r, true);
		for (size_t at = 0, step; err == EOK && at < len; at += step) {
			step = 1 + rng_next(&seed) % 200;
			step = step < len - at ? step : len - at;
			err = prof_report_feed(r, sb.buf + at, step);
		}
		pt_out_len = 0;
		if (err == EOK)
			err = prof_export(r, &pt_env, &o, &w);
		prof_report_free(r);
		if (err == EOK)
			counts[0]++;
		else if (err == EINVAL || err == ENOTSUP)
			counts[1]++;
		else if (err == ENOENT)
			counts[2]++;
		else
			bad++;
	}
	note("fuzz: %u exported, %u malformed, %u without samples", counts[0], counts[1],
	     counts[2]);
	ok(bad == 0 && counts[0] > 0 && counts[1] > 0 && counts[2] > 0,
	   "fuzz: only EOK, EINVAL/ENOTSUP or ENOENT");
	is_int(pt_live_allocs, 0, "fuzz: every allocation released");
}

/* ---------------------------------------------------------------- vprof */

/*
 * Every export format on bad input: a stream cut inside a record, a
 * stream with no sample (the header alone), a file that is not a stream:
 * exit 1 with a message naming the file and no output file left; binaries
 * not found: exit 3, a warning naming them, the export still written
 * (samples as addresses).
 */
static void test_vprof_bad(const char *build, const char *dir, char *text, size_t size)
{
	static const char *const fmts[] = { "folded", "pprof", "callgrind", "speedscope", "svg",
					    "gmon" };
	static const struct { const char *file, *msg; } bad[] = {
		{ "cut", "cut: truncated stream (it ends " },
		{ "empty", "empty: no samples to export" },
		{ "bin/app.nm", "app.nm: not a profiler stream" },
	};
	char cmd[1400], path[600];
	char *abuild = realpath(build, NULL);

	build = abuild ? abuild : build;
	snprintf(path, sizeof(path), "%s/empty", dir);
	tool_write(path, sb.buf, sizeof(prof_rec_header_t));
	snprintf(path, sizeof(path), "%s/cut", dir);
	tool_write(path, sb.buf, sb.len - 20);
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(cmd, sizeof(cmd), "cd %s && rm -f out* && %s/host/vprof -F %s -r %s "
				 "-o out %s 2>&1; echo rc=$?; ls out* 2>/dev/null", dir, build,
				 fmts[f], dir, bad[i].file);
			tool_run(cmd, text, size);
			ok(strstr(text, bad[i].msg) && strstr(text, "rc=1\n") &&
			   !strstr(text, "\nout"), "vprof -F %s of %s: '%s', exit 1, no file",
			   fmts[f], bad[i].file, bad[i].msg);
			if (!strstr(text, "rc=1\n") || !strstr(text, bad[i].msg))
				diag("%s", text);
		}
		snprintf(cmd, sizeof(cmd), "cd %s && rm -f out* && %s/host/vprof -F %s -r %s/none "
			 "-o out stream 2>&1; echo rc=$?; ls out* 2>/dev/null", dir, build, fmts[f],
			 dir);
		tool_run(cmd, text, size);
		ok(strstr(text, "warning") && strstr(text, "/bin/app") && strstr(text, "rc=3\n") &&
		   strstr(text, "\nout"), "vprof -F %s, binaries not found: a warning naming "
		   "them, exit 3, the file written", fmts[f]);
	}
	free(abuild);
}

static void test_vprof(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/vprof-export.XXXXXX", cmd[1400], path[600];
	static char text[1 << 16];

	tool_root(dir, app_nm, kernel_nm);
	build_ref();
	snprintf(path, sizeof(path), "%s/stream", dir);
	tool_write(path, sb.buf, sb.len);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F folded -r %s %s/stream", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -F folded exits 0");
	is_str(text, folded_ref, "vprof -F folded writes the folded stacks");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F folded -T app -m user -c 0 -w 0,2 -r %s "
		 "-o %s/out %s/stream && cat %s/out", build, dir, dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof with every filter and -o exits 0");
	is_str(text, "app;main;compute 30\n", "... and writes the filtered stacks to FILE "
	       "(one task named app left: no id)");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F folded -c 1 -r %s %s/stream", build, dir,
		 dir);
	tool_run(cmd, text, sizeof(text));
	ok(strstr(text, "app-5;main;compute;helper 20\n") && !strstr(text, " 30\n"),
	   "-c 1 takes CPU 1's samples");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F pprof -T 9 -r %s %s/stream | "
		 "od -An -tx1 -N2", build, dir, dir);
	tool_run(cmd, text, sizeof(text));
	is_str(text, " 1f 8b\n", "vprof -F pprof writes gzip");

	/* Bad input: a clear message and a non-zero exit, never a crash. */
	snprintf(cmd, sizeof(cmd), "head -c %zu %s/stream > %s/cut && %s/host/vprof -F folded "
		 "-r %s -o %s/cut.out %s/cut 2>&1; echo rc=$?; ls %s/cut.out 2>&1", sb.len - 20,
		 dir, dir, build, dir, dir, dir, dir);
	tool_run(cmd, text, sizeof(text));
	ok(strstr(text, "truncated stream") && strstr(text, "rc=1") &&
	   strstr(text, "No such file"), "truncated stream: message, exit 1, no FILE left");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F callgrind -T 4 -r %s %s/stream 2>&1", build,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "no sample after -T 4: exit 1");
	ok(strstr(text, "no samples to export") != NULL, "... saying so: %.*s",
	   (int)strcspn(text, "\n"), text);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F speedscope -r %s/nothing %s/stream 2>&1 "
		 ">/dev/null", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 3, "binaries missing: exit 3");
	ok(strstr(text, "/bin/app") != NULL, "... naming them");
	test_vprof_bad(build, dir, text, sizeof(text));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F svgz %s/stream 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "unknown format: exit 2");
	ok(strstr(text, "bad value 'svgz' for -F") && strstr(text, "Usage:"), "... with usage");
	static const char *const bad[] = { "-m both", "-c x", "-w 2,1", "-w 1", "-T ''" };
	int rcs = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s/host/vprof %s %s/stream 2>/dev/null", build, bad[i],
			 dir);
		rcs += tool_run(cmd, text, sizeof(text)) == 2;
	}
	is_int(rcs, 5, "bad -m, -c, -w, -T values: exit 2 each");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -F folded -o /nonexistent/dir/x %s/stream 2>&1",
		 build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "unwritable -o FILE: exit 1");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
}

int main(void)
{
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
	test_no_setup();
	test_walk();
	test_filters();
	test_folded();
	test_folded_encoder();
	test_callgrind();
	test_callgrind_recursion();
	test_pprof();
	test_speedscope();
	test_svg();
	test_gmon();
	test_perf();
	test_trace();
	test_errors();
	test_enomem();
	test_fuzz();
	test_vprof();
	free(pt_out);
	return done_testing();
}
