/*
 * tools/prof/vprof_diff.c - `vprof diff`: compare two profiler streams
 * (lib/prof/profdiff.c does the matching and the statistics).
 *
 * Usage: vprof diff [-h] [-m] [-p PERCENT] [-T TASK] [-k KERNEL_ELF] [-r ROOT] A B
 *        vprof diff -F folded|svg [-T TASK] [-k ..] [-r ..] A B
 *
 *   A, B          stream files (sprofile -o / profile -o), A the baseline
 *   -m            match functions by name only (across different builds;
 *                 default: by binary, its hash, and name)
 *   -p PERCENT    hide rows below PERCENT % in both profiles (default 0.5)
 *   -T TASK       only the samples of this task (name or id); shares are
 *                 then of that task's samples
 *   -k, -r        as for vprof (the kernel ELF, the root of guest paths)
 *   -F FORMAT     table (default); folded: the two-column differential
 *                 folded stacks "STACK COUNT_A COUNT_B" that flamegraph.pl
 *                 draws red (more in B) and blue (less); svg: that
 *                 differential flame graph drawn by us (lib/profdiff.h,
 *                 profdiff_folded_flame). A and B are then streams (folded
 *                 as vprof -F folded does, -T applied) or folded-stack
 *                 files ("STACK N" lines)
 *
 * Output (lib/profdiff.h): "A: FILE: N samples", "B: ...", a legend, then
 * the task table and the function table, each row
 *       A        B      B-A        z         p   [binary] name
 *   50.00%   33.33%   -16.67    -9.87  5.60e-23 * workload work_alpha
 * sorted by |z|; * marks p < 0.01. Exit status: 0; 1 for an unreadable
 * or malformed stream, one without samples (of TASK), or with -F a
 * truncated one or a malformed folded file; 2 for bad usage; 3 when
 * binaries were not found (their samples show as addresses).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lib/profdiff.h>
#include <lib/profexport.h>
#include <lib/profreport.h>

#include <binmiss.h>
#include <hostroot.h>
#include "vprof.h"

#define VD_CHUNK 65536
#define VD_PATH 4096

#define VD_TABLE 0
#define VD_FOLDED 1
#define VD_SVG 2

typedef struct vdiff {
	const char *root;
	const char *kernel;
	binmiss_t missing;
	const char *task;               /* -T, for streams folded */
} vdiff_t;

/* Bytes gathered in memory (a stream's folded export). */
typedef struct vd_mem {
	char *p;
	size_t len, cap;
	bool nomem;
} vd_mem_t;

static void vd_usage(FILE *f)
{
	fprintf(f, "Usage: vprof diff [-h] [-m] [-p PERCENT] [-T TASK] [-k KERNEL_ELF] "
		"[-r ROOT] A B\n"
		"       vprof diff -F folded|svg [-T TASK] [-k KERNEL_ELF] [-r ROOT] A B\n"
		"Compare profiler streams A (baseline) and B: each task's and function's\n"
		"share in both, B-A in points, a two-proportion z-test and its p-value;\n"
		"rows by |z|, * marks p < 0.01.\n"
		"  -m            match functions by name only (different builds)\n"
		"  -p PERCENT    hide rows below PERCENT %% in both (default 0.5)\n"
		"  -T TASK       only this task's samples (name or id)\n"
		"  -F FORMAT     table (default); folded: 'STACK COUNT_A COUNT_B' lines\n"
		"                for flamegraph.pl; svg: our differential flame graph\n"
		"                (red: share grew, blue: shrank, p < 0.01); A and B are\n"
		"                streams or folded-stack files (vprof -F folded)\n"
		"  -k KERNEL_ELF kernel ELF (default ROOT/boot/kernel)\n"
		"  -r ROOT       prefix of the streams' binary paths (default: this\n"
		"                build's initrd-root)\n"
		"  -h            this help\n");
}

/* The diff's loader: a stream's binaries (vprof_load_binary). */
static errno_t vd_load(void *ctx, const char *path, void **data, size_t *size)
{
	vdiff_t *vd = ctx;

	return vprof_load_binary(vd->root, vd->kernel, &vd->missing, path, data, size);
}

/* Feed the stream file at path to r. 0, or 1 with a message. */
static int vd_feed(prof_report_t *r, const char *path)
{
	static char buf[VD_CHUNK];
	FILE *f = fopen(path, "rb");
	errno_t err = EOK;
	size_t got;
	prof_counts_t c;

	if (!f) {
		fprintf(stderr, "vprof diff: ");
		perror(path);
		return 1;
	}
	while (err == EOK && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		err = prof_report_feed(r, buf, got);
	fclose(f);
	prof_report_counts(r, &c);
	if (err == ENOTSUP)
		fprintf(stderr, "vprof diff: %s: a stream version this vprof does not read "
			"(it reads %u to %u)\n", path, PROF_VERSION_MIN, PROF_VERSION);
	else if (err != EOK || !c.have_header)
		fprintf(stderr, "vprof diff: %s: %s\n", path, err == ENOMEM ? "out of memory" :
			"not a profiler stream (or a damaged one)");
	return err != EOK || !c.have_header;
}

/* Read stream path and add its rows to side of d. 0, or 1 with a message. */
static int vd_side(profdiff_t *d, unsigned side, const char *path,
		   const prof_env_t *env, const prof_report_opts_t *ro)
{
	prof_report_t *r;

	if (prof_report_new(env, &r) != EOK) {
		fprintf(stderr, "vprof diff: out of memory\n");
		return 1;
	}
	int rc = vd_feed(r, path);
	if (rc == 0 && profdiff_add_report(d, side, r, ro) != EOK) {
		fprintf(stderr, "vprof diff: out of memory\n");
		rc = 1;
	}
	prof_report_free(r);
	return rc;
}

static int vd_run(vdiff_t *vd, const profdiff_opts_t *o, const char *a, const char *b)
{
	prof_stdio_t s = { vd, vd_load, NULL };
	prof_env_t env = prof_env_stdio(&s);
	prof_report_opts_t ro = { PROF_STYLE_SYSTEM, 0, false, vd->kernel, false, 0 };
	profdiff_t *d;

	if (profdiff_new(&env, o, &d) != EOK) {
		fprintf(stderr, "vprof diff: out of memory\n");
		return 1;
	}
	int rc = vd_side(d, 0, a, &env, &ro);
	if (rc == 0)
		rc = vd_side(d, 1, b, &env, &ro);
	for (unsigned side = 0; side < 2 && rc == 0; side++) {
		if (profdiff_total(d, side))
			continue;
		fprintf(stderr, "vprof diff: %s: no samples%s%s%s to compare\n", side ? b : a,
			o->task ? " of task '" : "", o->task ? o->task : "", o->task ? "'" : "");
		rc = 1;
	}
	if (rc == 0)
		profdiff_print(d);
	profdiff_free(d);
	fflush(stdout);
	return rc ? rc : binmiss_warn(&vd->missing, "vprof diff", "the streams", vd->root,
				      "their samples show as addresses; give the staged "
				      "root with -r ROOT");
}

/* Whether data starts like a profiler stream (a HEADER record, the magic). */
static bool vd_is_stream(const void *data, size_t size)
{
	prof_rec_header_t h;

	if (size < sizeof(h))
		return false;
	memcpy(&h, data, sizeof(h));
	return h.h.type == PROF_REC_HEADER && h.magic == PROF_MAGIC;
}

static void vd_mem_write(void *ctx, const void *data, size_t len)
{
	vd_mem_t *m = ctx;

	if (m->nomem)
		return;
	if (m->cap - m->len < len) {
		size_t cap = m->cap ? m->cap : VD_CHUNK;
		while (cap - m->len < len)
			cap *= 2;
		char *p = realloc(m->p, cap);
		if (!p) {
			m->nomem = true;
			return;
		}
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->len, data, len);
	m->len += len;
}

static void vd_file_write(void *ctx, const void *data, size_t len)
{
	fwrite(data, 1, len, ctx);
}

/* -T TASK as a stream filter: an id when all digits, else a name. */
static void vd_task_filter(const char *task, prof_filter_t *f)
{
	char *end;

	memset(f, 0, sizeof(*f));
	if (!task)
		return;
	f->by_task = true;
	f->task_id = strtoull(task, &end, 10);
	if (!(*task >= '0' && *task <= '9' && *end == '\0'))
		f->task_name = task;
}

/* The fed report r exported as folded stacks into m. 0, or 1 with a message. */
static int vd_fold(vdiff_t *vd, prof_report_t *r, const prof_env_t *env, const char *path,
		   vd_mem_t *m)
{
	prof_export_opts_t xo = { PROF_FMT_FOLDED, vd->kernel, path, false, vd->root, false, false };
	prof_export_out_t out = { m, vd_mem_write, NULL };

	if (prof_report_pending(r) > 0) {
		fprintf(stderr, "vprof diff: %s: truncated stream (it ends %zu bytes into a "
			"record)\n", path, prof_report_pending(r));
		return 1;
	}
	errno_t err = prof_export(r, env, &xo, &out);
	if (err == ENOENT)
		fprintf(stderr, "vprof diff: %s: no samples to compare (none in the stream%s)\n",
			path, vd->task ? ", or none of that task" : "");
	else if (err != EOK || m->nomem)
		fprintf(stderr, "vprof diff: out of memory\n");
	return err != EOK || m->nomem;
}

/* The folded stacks of the stream at path (vprof -F folded's). 0, or 1 with a message. */
static int vd_stream_folded(vdiff_t *vd, const char *path, void **text, size_t *len)
{
	prof_stdio_t s = { vd, vd_load, NULL };
	prof_env_t env = prof_env_stdio(&s);
	prof_filter_t filter;
	vd_mem_t m = { 0 };
	prof_report_t *r;

	vd_task_filter(vd->task, &filter);
	if (prof_report_new(&env, &r) != EOK || prof_report_setup(r, &filter, true) != EOK) {
		fprintf(stderr, "vprof diff: out of memory\n");
		prof_report_free(r);
		return 1;
	}
	int rc = vd_feed(r, path);
	if (rc == 0)
		rc = vd_fold(vd, r, &env, path, &m);
	prof_report_free(r);
	if (rc)
		free(m.p);
	*text = rc ? NULL : m.p;
	*len = rc ? 0 : m.len;
	return rc;
}

/* The folded text of path (a folded file, or a stream). 0, or 1 with a message. */
static int vd_folded_input(vdiff_t *vd, const char *path, void **text, size_t *len)
{
	errno_t err = prof_env_read_file(path, text, len);

	if (err != EOK) {
		fprintf(stderr, "vprof diff: %s: %s\n", path, err == ENOENT ? "cannot open" :
			"out of memory");
		return 1;
	}
	if (!vd_is_stream(*text, *len)) {
		if (!vd->task)
			return 0;
		fprintf(stderr, "vprof diff: %s: -T applies to streams, not to folded stacks "
			"(fold with vprof -F folded -T TASK)\n", path);
		return 1;
	}
	free(*text);
	*text = NULL;
	return vd_stream_folded(vd, path, text, len);
}

/* -F folded or svg: the two inputs' stacks joined, or drawn. */
static int vd_folded(vdiff_t *vd, const profdiff_opts_t *o, int format)
{
	prof_stdio_t s = { vd, vd_load, NULL };
	prof_env_t env = prof_env_stdio(&s);
	prof_export_out_t out = { stdout, vd_file_write, NULL };
	void *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	int rc = vd_folded_input(vd, o->name_a, &ta, &la) ||
		 vd_folded_input(vd, o->name_b, &tb, &lb);
	errno_t err = rc ? EOK : format == VD_SVG ?
		profdiff_folded_flame(&env, ta, la, tb, lb, o, &out) :
		profdiff_folded_join(&env, ta, la, tb, lb);

	if (err != EOK) {
		fprintf(stderr, "vprof diff: %s\n", err == EINVAL ?
			"a line of the folded input is not 'STACK COUNT'" : err == ENOENT ?
			"no samples in B to draw" : "out of memory");
		rc = 1;
	}
	free(ta);
	free(tb);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "vprof diff: write error\n");
		rc = 1;
	}
	return rc ? rc : binmiss_warn(&vd->missing, "vprof diff", "the streams", vd->root,
				      "their samples show as addresses; give the staged "
				      "root with -r ROOT");
}

/* -F FORMAT: VD_*, or -1. */
static int vd_format(const char *name)
{
	static const char *const names[] = { "table", "folded", "svg" };

	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int vprof_diff_main(int argc, char **argv)
{
	static char root[VD_PATH];
	vdiff_t vd = { hostroot_default(root, sizeof(root)), NULL, { 0, { "" } }, NULL };
	profdiff_opts_t o = { 50, false, NULL, NULL, NULL };
	int format = VD_TABLE;
	long pct;
	int c;

	optind = 1;
	while ((c = getopt(argc, argv, "hmp:T:k:r:F:")) != -1) {
		switch (c) {
		case 'F':
			if ((format = vd_format(optarg)) < 0) {
				fprintf(stderr, "vprof diff: unknown format '%s'\n", optarg);
				vd_usage(stderr);
				return 2;
			}
			break;
		case 'h':
			vd_usage(stdout);
			return 0;
		case 'm':
			o.by_name = true;
			break;
		case 'p':
			if ((pct = vprof_parse_percent(optarg)) < 0) {
				fprintf(stderr, "vprof diff: bad percentage '%s'\n", optarg);
				vd_usage(stderr);
				return 2;
			}
			o.threshold_centi = (unsigned)pct;
			break;
		case 'T':
			o.task = vd.task = optarg;
			break;
		case 'k':
			vd.kernel = optarg;
			break;
		case 'r':
			vd.root = optarg;
			break;
		default:
			vd_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 2) {
		vd_usage(stderr);
		return 2;
	}
	o.name_a = argv[optind];
	o.name_b = argv[optind + 1];
	if (format != VD_TABLE)
		return vd_folded(&vd, &o, format);
	return vd_run(&vd, &o, argv[optind], argv[optind + 1]);
}
