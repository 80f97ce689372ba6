/*
 * Unit tests of IPC-aware profiling in lib/prof/profreport.c and
 * lib/prof/profexport.c (issue 16), on synthetic v3 streams: samples of
 * servers carrying a prof_ipc_t (two clients 3:1, a chain client -> S1
 * -> S2, a redacted sample of a server the owner may not profile). The
 * report by origin (opts.by_origin, -c) and its origin filter; the method
 * table; the folded export by origin (the origin's stack from a
 * PROF_REC_CALL above the [ipc] frame); damaged IPC blocks and CALL
 * records refused with EINVAL and a reason (never a crash, also under
 * random damage); v1 and
 * v2 streams still read; last, build/host/vprof -C on a stream file.
 */
#include "hosttool.h"
#include "prof_testutil.h"
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/profexport.h>
#include <lib/profreport.h>

static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401100 T serve_a\n"
	"0000000000401200 T serve_b\n"
	"0000000000401300 T local_work\n"
	"0000000000401400 T do_calls\n"
	"0000000000401500 T srv_loop\n";
static const char kernel_nm[] = "ffffffff80100000 T kmain\n";

#define M_WORK 1025u                    /* ipcload's WORK, WORK_B */
#define M_WORK_B 1026u
#define M_READ 5u                       /* IPC_M_DATA_READ: fs.READ */

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
	h.hz = 1000;
	h.ncpus = 1;
	h.flags = PROF_F_CALLCHAIN;
	h.depth = 64;
	h.tsc_hz = 1000000000;
	pt_sb_put(b, &h, sizeof(h));
}

/* A sample record with nchain chain words, then ipc (NULL: none) cut to ipc_len bytes. */
typedef struct smp {
	uint64_t task, pc;
	unsigned mode, nchain;
	uint64_t chain[4];
	const prof_ipc_t *ipc;
	size_t ipc_len;
} smp_t;

static void sb_smp(pt_sb_t *b, unsigned count, const smp_t *m)
{
	unsigned char rec[sizeof(prof_rec_sample_t) + 4 * 8 + sizeof(prof_ipc_t) + 8];
	prof_rec_sample_t s;
	size_t ilen = m->ipc ? m->ipc_len : 0;
	size_t size = sizeof(s) + 8 * m->nchain + ((ilen + 7) & ~(size_t)7);

	memset(&s, 0, sizeof(s));
	memset(rec, 0, sizeof(rec));
	pt_sb_hdr(&s.h, PROF_REC_SAMPLE, size, 5);
	s.task = m->task;
	s.thread = m->task * 10;
	s.pc = m->pc;
	s.mode = (uint8_t)m->mode;
	s.nchain = (uint16_t)m->nchain;
	memcpy(rec, &s, sizeof(s));
	memcpy(rec + sizeof(s), m->chain, 8 * m->nchain);
	if (ilen)
		memcpy(rec + sizeof(s) + 8 * m->nchain, m->ipc, ilen);
	for (unsigned i = 0; i < count; i++)
		pt_sb_put(b, rec, size);
}

/* A PROF_REC_CALL: origin task's stack id with n words (claimed: nclaim). */
static void sb_call(pt_sb_t *b, uint64_t id, uint64_t task, unsigned n, unsigned nclaim,
		    const uint64_t *chain)
{
	unsigned char rec[sizeof(prof_rec_call_t) + 8 * 64];
	prof_rec_call_t c;
	size_t size = sizeof(c) + 8 * (size_t)n;

	memset(&c, 0, sizeof(c));
	pt_sb_hdr(&c.h, PROF_REC_CALL, size, 4);
	c.stack = id;
	c.task = task;
	c.thread = task * 10;
	c.nchain = (uint16_t)nclaim;
	memcpy(rec, &c, sizeof(c));
	memcpy(rec + sizeof(c), chain, 8 * (size_t)n);
	pt_sb_put(b, rec, size);
}

static prof_ipc_t mk_ipc(uint64_t method, unsigned nhops, uint64_t h0, uint64_t h1, uint64_t h2)
{
	prof_ipc_t p;

	memset(&p, 0, sizeof(p));
	p.call = 77;
	p.origin_thread = h0 * 10;
	p.method = method;
	p.nhops = (uint16_t)nhops;
	p.depth = (uint16_t)nhops;
	p.hops[0] = h0;
	p.hops[1] = h1;
	p.hops[2] = h2;
	return p;
}

/*
 * The reference: clients 5 and 6 (20 samples of local_work each), server
 * 7 serving 5 for 30 samples and 6 for 10 (serve_a, WORK: 3:1), S2 task
 * 8 serving 5 through 7 for 8 (serve_b, WORK_B, hops 5 -> 7 -> 8), fs
 * (task 9) redacted for 6 (READ) 4 times, 2 idle. 94 samples.
 */
static void build_ref(pt_sb_t *b, uint32_t version)
{
	static prof_ipc_t i5, i6, i58, i6fs;
	smp_t m;

	i5 = mk_ipc(M_WORK, 2, 5, 7, 0);
	i6 = mk_ipc(M_WORK, 2, 6, 7, 0);
	i58 = mk_ipc(M_WORK_B, 3, 5, 7, 8);
	i6fs = mk_ipc(M_READ, 2, 6, 9, 0);
	i5.stack = 99;                  /* cli1's stack: main -> do_calls -> the call */
	i6.stack = 1234;                /* a stack the stream does not carry */
	b->len = 0;
	sb_header(b, version);
	pt_sb_task(b, 5, "cli1");
	pt_sb_task(b, 6, "cli2");
	pt_sb_task(b, 7, "ipcload");
	pt_sb_task(b, 8, "ipcload");
	pt_sb_task(b, 9, "fs");
	for (uint64_t t = 5; t <= 9; t++)
		pt_sb_load(b, t, "/bin/app", 0);
	if (version >= 3) {
		static const uint64_t chain[] = { 0x401410, 0x401008 };
		sb_call(b, 99, 5, 2, 2, chain);
	}
	m = (smp_t){ 5, 0x401310, PROF_MODE_USER, 1, { 0x401008 }, NULL, 0 };
	sb_smp(b, 20, &m);
	m.task = 6;
	sb_smp(b, 20, &m);
	m = (smp_t){ 7, 0x401110, PROF_MODE_USER, 2, { 0x401508, 0x401008 }, &i5, sizeof(i5) };
	sb_smp(b, 30, &m);
	m.ipc = &i6;
	sb_smp(b, 10, &m);
	m = (smp_t){ 8, 0x401210, PROF_MODE_USER, 2, { 0x401508, 0x401008 }, &i58, sizeof(i58) };
	sb_smp(b, 8, &m);
	m = (smp_t){ 9, 0, PROF_MODE_USER, 0, { 0 }, &i6fs, sizeof(i6fs) };
	sb_smp(b, 4, &m);
	m = (smp_t){ 0, 0xffffffff80100010ull, PROF_MODE_IDLE, 0, { 0 }, NULL, 0 };
	sb_smp(b, 2, &m);
}

static void files_default(void)
{
	pt_nfiles = 0;
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
}

/* Feed (step bytes at a time, 0: at once) and print with o; the text, errors. */
static char *report(const pt_sb_t *b, size_t step, const prof_report_opts_t *o,
		    errno_t *feed_err, char *why, size_t why_size)
{
	char *t = pt_report(b->buf, b->len, step, false, o, feed_err, why, why_size);

	return t ? t : strdup("");
}

#define HAS(text, line) ok(pt_has_line(text, line), "line: %s", line)
#define LACKS(text, s) ok(strstr(text, s) == NULL, "no: %s", s)

static const prof_report_opts_t sys = { PROF_STYLE_SYSTEM, 50, false, NULL, false, 0 };
static const prof_report_opts_t byo = { PROF_STYLE_SYSTEM, 0, false, NULL, true, 0 };

static pt_sb_t sb;

/* ---------------------------------------------------------------- tests */

static void test_method_labels(void)
{
	char b[64];

	prof_ipc_label("ipcload", M_WORK, b, sizeof(b));
	is_str(b, "ipcload.WORK", "ipcload WORK");
	prof_ipc_label("ipcload", M_WORK_B, b, sizeof(b));
	is_str(b, "ipcload.WORK_B", "ipcload WORK_B");
	prof_ipc_label("fs", M_READ, b, sizeof(b));
	is_str(b, "fs.READ", "fs: a DATA_READ is READ");
	prof_ipc_label("fs", (1ull << 48) + 0x101, b, sizeof(b));
	is_str(b, "fs.OPEN", "fs OPEN (FS_M_BASE + 1: IPC_M_LIBC + 0x101)");
	prof_ipc_label("ns", (1ull << 48) + 2, b, sizeof(b));
	is_str(b, "ns.RELEASE", "ns RELEASE (IPC_M_LIBC + 2) is not CONNECT_TO_ME (2)");
	prof_ipc_label("ns", 2, b, sizeof(b));
	is_str(b, "ns.REGISTER", "ns: CONNECT_TO_ME is REGISTER");
	prof_ipc_label("other", (1ull << 48) + 7, b, sizeof(b));
	is_str(b, "other.libc+7", "an unknown libc method: libc+N");
	prof_ipc_label("console", 1025, b, sizeof(b));
	is_str(b, "console.WRITE", "console WRITE");
	prof_ipc_label("ns", 3, b, sizeof(b));
	is_str(b, "ns.CONNECT", "ns CONNECT");
	prof_ipc_label("other", 1025, b, sizeof(b));
	is_str(b, "other.1025", "an unknown protocol: the number");
	prof_ipc_label("other", 4, b, sizeof(b));
	is_str(b, "other.WRITE", "any server: DATA_WRITE is WRITE");
}

/* Without -c: serving samples are their server's; a redacted one is its [ipc] frame. */
static void test_plain(void)
{
	errno_t err;

	build_ref(&sb, PROF_VERSION);
	files_default();
	char *t = report(&sb, 0, &sys, &err, NULL, 0);
	note_text("plain:", t);
	is_int(err, EOK, "a v3 stream with IPC blocks feeds");
	HAS(t, " 42.55%       40     40000000  7 ipcload            serve_a");
	HAS(t, "  4.26%        4      4000000  9 fs                 [ipc fs.READ]");
	LACKS(t, "0x0");
	free(t);
}

static void test_by_origin(void)
{
	build_ref(&sb, PROF_VERSION);
	files_default();
	char *t = report(&sb, 0, &byo, NULL, NULL, 0);
	note_text("by origin:", t);
	HAS(t, "ipc: 52 samples serving calls, 4 redacted");
	HAS(t, "     own  imposed    total           ns       %  task");
	HAS(t, "      20       38       58     58000000  61.70%  5 cli1");
	HAS(t, "      20       14       34     34000000  36.17%  6 cli2");
	LACKS(t, "7 ipcload\n");            /* servers: nothing own */
	HAS(t, "origin 5 cli1: 58 samples, 20 own, 38 imposed; 58000000 ns");
	HAS(t, "        30     30000000  51.72%  [ipc ipcload.WORK]  7 ipcload  path 5 -> 7");
	HAS(t, "         8      8000000  13.79%  [ipc ipcload.WORK_B]  8 ipcload  path 5 -> 7 -> 8");
	HAS(t, "        20     20000000  34.48%  local_work");
	HAS(t, "        30     30000000  51.72%  serve_a  (7 ipcload)");
	HAS(t, "        30     30000000  51.72%  do_calls <- main");
	HAS(t, "         8      8000000  13.79%  serve_b  (8 ipcload)");
	HAS(t, "origin 6 cli2: 34 samples, 20 own, 14 imposed; 34000000 ns");
	HAS(t, "        10     10000000  29.41%  [ipc ipcload.WORK]  7 ipcload  path 6 -> 7");
	HAS(t, "         4      4000000  11.76%  [ipc fs.READ]  9 fs  path 6 -> 9");
	HAS(t, "         4      4000000  11.76%  [ipc fs.READ]  (9 fs)");
	/* The 3:1 of the ratio run: the server's samples by origin. */
	ok(strstr(t, "origin 5") < strstr(t, "origin 6"), "origins: most in total first");
	free(t);

	prof_report_opts_t one = byo;
	one.origin = 6;
	t = report(&sb, 0, &one, NULL, NULL, 0);
	HAS(t, "      20       14       34     34000000  36.17%  6 cli2");
	LACKS(t, "5 cli1");
	HAS(t, "origin 6 cli2: 34 samples, 20 own, 14 imposed; 34000000 ns");
	free(t);
	one.origin = 42;
	t = report(&sb, 0, &one, NULL, NULL, 0);
	HAS(t, "no samples of task 42 or for it");
	free(t);
	one.origin = 0;
	one.threshold_centi = 2000;        /* 20 %: hides cli2's fs row, serve_b */
	t = report(&sb, 0, &one, NULL, NULL, 0);
	LACKS(t, "serve_b  (8");
	HAS(t, "  (1 more row)");
	free(t);
}

/*
 * Call sites: CALL records of the same origin and chain (one per call)
 * are one site; the -c report sums the imposed samples per site, and the
 * folded export keeps one line per stack, not per call.
 */
static void test_sites(void)
{
	static const uint64_t chain[] = { 0x401410, 0x401008 };
	static const uint64_t other[] = { 0x401320, 0x401008 };
	prof_ipc_t p = mk_ipc(M_WORK, 2, 5, 7, 0);
	smp_t m = { 7, 0x401110, PROF_MODE_USER, 2, { 0x401508, 0x401008 }, &p, sizeof(p) };

	build_ref(&sb, PROF_VERSION);
	sb_call(&sb, 100, 5, 2, 2, chain);      /* another call from the same place */
	sb_call(&sb, 101, 5, 2, 2, other);      /* a call from local_work */
	p.stack = 100;
	sb_smp(&sb, 5, &m);
	p.stack = 101;
	sb_smp(&sb, 3, &m);
	char *t = report(&sb, 0, &byo, NULL, NULL, 0);
	note_text("sites:", t);
	HAS(t, "  imposed by call site (its stack at the call):");
	HAS(t, "        35     35000000  53.03%  do_calls <- main");
	HAS(t, "         3      3000000   4.55%  local_work <- main");
	free(t);
}

/* Byte-by-byte feeding gives the same -c report; memory is balanced. */
static void test_split(void)
{
	build_ref(&sb, PROF_VERSION);
	files_default();
	char *whole = report(&sb, 0, &byo, NULL, NULL, 0);
	char *bytes = report(&sb, 1, &byo, NULL, NULL, 0);
	char *odd = report(&sb, 13, &byo, NULL, NULL, 0);

	is_str(bytes, whole, "byte by byte: the same -c report");
	is_str(odd, whole, "13-byte pieces: the same -c report");
	is_int(pt_live_allocs, 0, "no memory left allocated");
	free(whole);
	free(bytes);
	free(odd);
}

/* The sample after the reference's records, damaged by how; feed error and reason. */
static errno_t damaged(int how, char *why, size_t size)
{
	prof_ipc_t p = mk_ipc(M_WORK, 2, 5, 7, 0);
	smp_t m = { 7, 0x401110, PROF_MODE_USER, 1, { 0x401008 }, &p, sizeof(p) };
	errno_t err;

	switch (how) {
	case 0: m.ipc_len = 24; break;                  /* cut short */
	case 1: p.nhops = 5; break;                     /* too many hops */
	case 2: p.nhops = 1; break;                     /* too few */
	case 3: p.hops[1] = 8; break;                   /* does not end at the task */
	case 4: p.depth = 1; break;                     /* depth below the hops */
	case 5: m.pc = 0; break;                        /* redacted with a chain */
	case 6: m.mode = PROF_MODE_IDLE; break;         /* an idle CPU serving */
	}
	build_ref(&sb, PROF_VERSION);
	sb_smp(&sb, 1, &m);
	free(report(&sb, 0, &byo, &err, why, size));
	return err;
}

/* A CALL record whose chain does not fit its size, or is too long: EINVAL. */
static void test_damaged_call(void)
{
	static const uint64_t chain[40];
	char why[128];
	errno_t err;

	for (int i = 0; i < 2; i++) {
		build_ref(&sb, PROF_VERSION);
		if (i == 0)
			sb_call(&sb, 7, 5, 2, 3, chain);        /* claims 3 words, has 2 */
		else
			sb_call(&sb, 7, 5, 40, 40, chain);      /* beyond PROF_IPC_STACK_MAX */
		free(report(&sb, 0, &byo, &err, why, sizeof(why)));
		ok(err == EINVAL && strstr(why, "CALL 7"), "damaged CALL %d: EINVAL, '%s'", i,
		   why);
	}
}

static void test_damaged(void)
{
	static const char *const want[] = { "cut short", "hops", "hops", "does not end",
					    "depth", "redacted", "idle" };
	char why[128];

	for (int i = 0; i < 7; i++) {
		errno_t err = damaged(i, why, sizeof(why));
		ok(err == EINVAL && strstr(why, want[i]) && strstr(why, "sample 95"),
		   "damaged block %d: EINVAL, reason '%s'", i, why);
	}
	is_int(pt_live_allocs, 0, "no memory left allocated");
	build_ref(&sb, PROF_VERSION);
	char *t = report(&sb, 0, &byo, NULL, why, sizeof(why));
	is_str(why, "", "a sound stream: no reason");
	free(t);
}

/* Random bytes over the IPC blocks and sample headers: an error or a report, no crash. */
static void test_fuzz(void)
{
	uint64_t seed = 16;
	unsigned refused = 0, fed = 0;

	build_ref(&sb, PROF_VERSION);
	size_t first = 0;
	for (size_t off = 0; off < sb.len;) {   /* the first serving sample */
		prof_rec_t h;
		memcpy(&h, sb.buf + off, sizeof(h));
		if (h.type == PROF_REC_SAMPLE && h.size > sizeof(prof_rec_sample_t) + 16) {
			first = off;
			break;
		}
		off += h.size;
	}
	unsigned char *copy = malloc(sb.len);
	for (int round = 0; round < 2000; round++) {
		memcpy(copy, sb.buf, sb.len);
		for (int k = 0; k < 4; k++) {
			size_t at = first + rng_next(&seed) % (sb.len - first);
			copy[at] = (unsigned char)rng_next(&seed);
		}
		pt_sb_t d = { copy, sb.len, sb.len };
		errno_t err;
		free(report(&d, 0, &byo, &err, NULL, 0));
		if (err == EOK)
			fed++;
		else
			refused++;
	}
	free(copy);
	ok(refused > 0 && fed + refused == 2000,
	   "2000 damaged streams: %u refused, %u read, no crash", refused, fed);
	is_int(pt_live_allocs, 0, "no memory left allocated");
}

/* v1 and v2 streams still read; their trailing words are no IPC block. */
static void test_versions(void)
{
	errno_t err;

	for (uint32_t v = 1; v <= 2; v++) {
		build_ref(&sb, v);
		char *t = report(&sb, 0, &byo, &err, NULL, 0);
		ok(err == EOK && pt_has_line(t, "ipc: 0 samples serving calls, 0 redacted"),
		   "version %u: read, no sample serving", v);
		HAS(t, "      20        0       20     20000000  21.28%  5 cli1");
		free(t);
	}
}

/* ---------------------------------------------------------------- exports */

static errno_t w_open(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return EOK;
}

/* The folded export of the reference, by origin or not (origin: only that one). */
static char *folded(bool by_origin, uint64_t origin)
{
	prof_filter_t all = { 0 };
	prof_export_opts_t o = { PROF_FMT_FOLDED, NULL, "ipc", false, NULL, false, false };
	prof_export_out_t w = { NULL, pt_write, w_open };
	prof_report_t *r;

	build_ref(&sb, PROF_VERSION);
	files_default();
	if (prof_report_new(&pt_env, &r) != EOK || prof_report_setup(r, &all, true) != EOK)
		return strdup("");
	prof_report_set_origin(r, by_origin, origin);
	prof_report_feed(r, sb.buf, sb.len);
	pt_out_len = 0;
	pt_write(NULL, "", 0);
	errno_t err = prof_export(r, &pt_env, &o, &w);
	prof_report_free(r);
	return err == EOK ? strdup(pt_out) : strdup("");
}

static void test_folded(void)
{
	char *t = folded(true, 0);

	note_text("folded by origin:", t);
	HAS(t, "cli1;main;do_calls;[ipc ipcload.WORK];main;srv_loop;serve_a 30");
	HAS(t, "cli1;[ipc ipcload.WORK_B];main;srv_loop;serve_b 8");
	HAS(t, "cli1;main;local_work 20");
	HAS(t, "cli2;[ipc ipcload.WORK];main;srv_loop;serve_a 10");
	HAS(t, "cli2;[ipc fs.READ] 4");
	LACKS(t, "ipcload;");
	free(t);
	t = folded(false, 0);
	note_text("folded:", t);
	HAS(t, "ipcload-7;main;srv_loop;serve_a 40");
	HAS(t, "fs;[ipc fs.READ] 4");
	free(t);
	t = folded(true, 6);
	HAS(t, "cli2;[ipc ipcload.WORK];main;srv_loop;serve_a 10");
	LACKS(t, "cli1");
	free(t);
	is_int(pt_live_allocs, 0, "no memory left allocated");
}

/* ---------------------------------------------------------------- vprof */

static void test_vprof(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/vprof-ipc.XXXXXX", cmd[1024], path[600];
	static char text[1 << 16];

	tool_root(dir, app_nm, kernel_nm);
	build_ref(&sb, PROF_VERSION);
	snprintf(path, sizeof(path), "%s/stream", dir);
	tool_write(path, sb.buf, sb.len);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -p 0 -r %s %s/stream 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -C exits 0");
	HAS(text, "      20       38       58     58000000  61.70%  5 cli1");
	HAS(text, "        30     30000000  51.72%  [ipc ipcload.WORK]  7 ipcload  path 5 -> 7");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -T 6 -r %s %s/stream 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -C -T 6 exits 0");
	ok(strstr(text, "origin 6 cli2: 34 samples") && !strstr(text, "cli1"),
	   "vprof -C -T 6: only task 6's part");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -F folded -r %s %s/stream 2>&1", build,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -C -F folded exits 0");
	HAS(text, "cli1;main;do_calls;[ipc ipcload.WORK];main;srv_loop;serve_a 30");
	if (tool_run("command -v go", text, sizeof(text)) != 0) {
		note("no go here: pprof's origin labels not checked");
	} else {
		snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -F pprof -o %s/p.pb.gz -r %s "
			 "%s/stream && go tool pprof -tags %s/p.pb.gz 2>&1", build, dir, dir,
			 dir, dir);
		int rc = tool_run(cmd, text, sizeof(text));
		ok(rc == 0 && strstr(text, "origin:") && strstr(text, "38.0ms (73.08%): 5") &&
		   strstr(text, "server:") && strstr(text, "40.0ms (76.92%): 7"),
		   "go tool pprof -tags: origin and server labels (%.400s)", text);
	}
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -T cli1 %s/stream 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "vprof -C -T NAME: a usage error");
	prof_ipc_t p = mk_ipc(M_WORK, 7, 5, 7, 0);
	smp_t m = { 7, 0x401110, PROF_MODE_USER, 0, { 0 }, &p, sizeof(p) };
	sb_smp(&sb, 1, &m);
	tool_write(path, sb.buf, sb.len);
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -C -r %s %s/stream 2>&1 >/dev/null", build,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "vprof on a damaged IPC block exits 1");
	ok(strstr(text, "sample 95: ipc block with 7 hops"), "... saying why: %s", text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
}

int main(void)
{
	test_method_labels();
	test_plain();
	test_by_origin();
	test_sites();
	test_split();
	test_damaged();
	test_damaged_call();
	test_fuzz();
	test_versions();
	test_folded();
	test_vprof();
	free(pt_out);
	return done_testing();
}
