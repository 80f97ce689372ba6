/*
 * tools/vprof - print the report of a Vernier profiler stream on the host
 * (the same report as the guest tools sprofile and profile, from the same
 * lib/prof/profreport.c).
 *
 * Usage: vprof [-h] [-g] [-p PERCENT] [-t] [-k KERNEL_ELF] [-r ROOT] [-F FORMAT]
 *              [-o FILE] [-T TASK] [-m MODE] [-c CPU] [-w FROM,TO] [--threads] [-C]
 *              [-W] [-u UNIT] STREAM
 *        vprof {-a SYMBOL | --lines} [-k ..] [-r ..] [-o ..] [-T ..] [-m ..] [-c ..]
 *              [-w ..] STREAM
 *        vprof -B SYMFILE
 *        vprof -X FORMAT   (benchmark: export a synthetic 1M-sample stream)
 *        vprof diff [-m] [-p PERCENT] [-T TASK] [-F table|folded|svg] [-k ..] [-r ..] A B
 *                          (tools/prof/vprof_diff.c)
 *
 *   STREAM        a stream file (as written by `sprofile -o` / `profile -o`:
 *                 the records of lib/include/abi/profile.h, HEADER first)
 *   -g            add the caller tree of the top functions
 *   -p PERCENT    hide rows below PERCENT % of the samples (default 0.5;
 *                 up to two decimals, 0 shows every row)
 *   -t            task style (profile's layout) instead of the system style
 *   -k KERNEL_ELF the kernel's ELF (default ROOT/boot/kernel)
 *   -r ROOT       directory the stream's absolute binary paths are looked up
 *                 in (default: the initrd-root staged by tools/mkinitrd.sh in
 *                 the build this vprof belongs to, BUILD/host/vprof ->
 *                 BUILD/initrd-root, whatever the current directory)
 *   -F FORMAT     report (default: the report below), folded, pprof,
 *                 callgrind, speedscope, svg, gmon, perf, trace
 *                 (lib/profexport.h; perf: a perf.data file of every
 *                 sample, for perf report, perf script and perf annotate;
 *                 not with -C; trace: a timeline of the kernel trace
 *                 events (streams of -e) and the samples in Chrome's
 *                 trace-event JSON, for Perfetto UI and chrome://tracing)
 *   -o FILE       write to FILE instead of standard output; for gmon, the
 *                 prefix of its files FILE.NAME, one per binary sampled
 *                 (default gmon.out: gmon.out.kernel, gmon.out.app, ...),
 *                 each named on standard output
 *   -T TASK       only samples of TASK (a task id, or a name); with -C:
 *                 only origin TASK's part (an id), its own samples and
 *                 those servers spent for it
 *   -C            by origin (IPC-aware, v3 streams): charge work servers
 *                 did while serving a call to the call's origin task; the
 *                 report by origin (lib/profreport.h), or exports whose
 *                 serving stacks sit under the origin task with an
 *                 "[ipc SERVER.METHOD]" frame (not -c: that is the CPU)
 *   -m MODE       only user, kernel (kernel and idle) or all samples
 *   -c CPU        only samples taken on CPU
 *   -w FROM,TO    only samples taken FROM to TO seconds after the start
 *   --threads     speedscope: one profile per thread (default per task)
 *   -W, --wall    wall clock (issue 17; streams of `profile -w`/`sprofile -w`):
 *                 each off-CPU record weighs cycles * hz / tsc_hz samples on
 *                 its stack under "[off-cpu: REASON]" ("[off-cpu: wait
 *                 SERVER.METHOD]" for an IPC wait); shares are of wall time
 *                 (lib/profreport.h prof_report_set_wall). Not -w: that is
 *                 the time window. pprof's value is then wall/nanoseconds,
 *                 speedscope's weights nanoseconds
 *   -u UNIT       folded: counts in samples (default) or ns (the samples' weights)
 *   -a SYMBOL     annotate: SYMBOL's instructions (objdump -d of its binary
 *                 or the kernel ELF), each with its share of SYMBOL's samples
 *                 and of all, source lines interleaved where the binary has
 *                 DWARF lines (tools/prof/vprof_annotate.c)
 *   --lines       samples per source line (addr2line): function, FILE:LINE
 *   -B SYMFILE    benchmark: look up random addresses in SYMFILE's symbols
 *                 (ELF, or nm text) and print `vprof.symbolize N lookups/s`
 *   -X FORMAT     benchmark: export a synthetic stream of 1,000,000 samples
 *                 with 16-frame chains, print `vprof.export.FORMAT S s`
 *                 and the samples/s (nothing is written)
 *   -h            this help
 *
 * A binary without .symtab (or missing) is tried as PATH.nm (nm output:
 * `ADDR TYPE NAME`). Exit status: 0 on success, 1 for an unreadable or
 * malformed stream (an export also for one cut short, or with no sample
 * left after the filters, or an unwritable FILE), 2 for bad usage, 3 when the report was printed but
 * binaries it names were not found (their samples print as addresses; a
 * warning on stderr lists them and the root). -a: 1 also for an unknown
 * symbol, its binary not found, objdump missing; --lines: 1 for addr2line
 * missing, 3 when binaries were not found (their lines print as ??:0).
 *
 * System style (the default; percentages are of all samples, rounded to
 * hundredths in integer arithmetic; rows sorted by samples, most first):
 *   samples: T total, U user, K kernel, I idle, L lost
 *   throttled: N                       (only when N > 0)
 *   source: rtc-nmi at 1024 Hz on 4 CPUs, 10.0 s
 *   <blank>
 *         %  samples  task             (per task; idle CPUs as [idle])
 *    91.00%       91  5 app
 *     6.00%        6  [idle]
 *   <blank>
 *         %  samples  task                 symbol
 *    40.00%       40  5 app                compute
 *    10.00%       10  5 app                memcpy [k]
 *     1.00%        1  5 app                0x500000
 *   (2 rows below 0.50% hidden)        (only when some are; per table)
 * The task column is "ID NAME" (task 0 is "kernel"); the symbol is the
 * function (samples anywhere in it are summed), " [k]" marks kernel
 * functions, and a PC with no symbol prints as hex.
 *
 * Task style (-t; after the HelenOS profiler's layout):
 *   Samples:      100 total,       84 user,       16 kernel
 *   Lost: 5                            (only when some were)
 *              Address  Samples       %  Symbol
 *   0x0000000000401100       40  40.00%  compute
 *
 * With -g, after the tables: "callers of the top functions:" and, for
 * each of the (at most ten) top rows shown, a blank line, the row again
 * (% samples symbol (task)), then its callers from the call chains as a
 * tree, three levels at most (5, 3, 2 callers per level, the rest summed
 * as "N  in K more callers"); each line is samples, % of that row, caller:
 *    20.00%       20  helper  (5 app)
 *             20 100.00%  <- compute
 *                 20 100.00%  <- main
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lib/profexport.h>
#include <lib/profreport.h>
#include <lib/profsym.h>

#include <binmiss.h>
#include <hostroot.h>
#include "vprof.h"

#define VPROF_CHUNK 65536
#define VPROF_PATH 4096

typedef struct vprof {
	const char *root;
	const char *kernel;
	binmiss_t missing;                  /* binaries not found (nor PATH.nm) */
	FILE *out;                          /* -o FILE, or stdout */
	const char *out_path;
	prof_filter_t filter;
	prof_export_opts_t x;               /* -F and its options */
	const char *gmon_prefix;            /* -F gmon: files PREFIX.NAME */
	const char *annotate;               /* -a SYMBOL */
	bool lines;                         /* --lines */
	char gmon_path[VPROF_PATH];
} vprof_t;

static void usage(FILE *f)
{
	fprintf(f, "Usage: vprof [-h] [-g] [-p PERCENT] [-t] [-k KERNEL_ELF] [-r ROOT] [-F FORMAT]\n"
		"             [-o FILE] [-T TASK] [-m MODE] [-c CPU] [-w FROM,TO] [--threads] [-C]\n"
		"             [-W] [-u UNIT] STREAM\n"
		"       vprof {-a SYMBOL | --lines} [-k KERNEL_ELF] [-r ROOT] [-o FILE] [-T TASK]\n"
		"             [-m MODE] [-c CPU] [-w FROM,TO] STREAM\n"
		"       vprof -B SYMFILE\n"
		"       vprof -X FORMAT\n"
		"       vprof diff [-h] [-m] [-p PERCENT] [-T TASK] [-F table|folded|svg]\n"
		"                  [-k KERNEL_ELF] [-r ROOT] A B\n"
		"Print the profile report of a Vernier profiler stream file, or export it.\n"
		"  -F FORMAT     report (default), folded, pprof, callgrind, speedscope,\n"
		"                svg, gmon, perf (perf.data: perf report/script/annotate),\n"
		"                trace (a timeline of trace events and samples: Chrome\n"
		"                trace-event JSON for Perfetto UI, chrome://tracing)\n"
		"  -o FILE       write to FILE (default standard output); gmon: files\n"
		"                FILE.NAME per binary (default gmon.out.NAME)\n"
		"  -T TASK       only samples of TASK (id or name); with -C the origin ID\n"
		"  -C            by origin: servers' work charged to the task whose call\n"
		"                they served (report by origin; exports: [ipc S.M] frames)\n"
		"  -m MODE       only user, kernel or all samples (default all)\n"
		"  -c CPU        only samples taken on CPU\n"
		"  -w FROM,TO    only samples FROM to TO seconds after the start\n"
		"  --threads     speedscope: one profile per thread\n"
		"  -W, --wall    wall clock: off-CPU records weighted on their stacks under\n"
		"                [off-cpu: REASON] frames (streams of profile -w)\n"
		"  -u UNIT       folded: counts in samples (default) or ns (their weights)\n"
		"  -g            caller tree of the top functions\n"
		"  -p PERCENT    hide rows below PERCENT %% (default 0.5)\n"
		"  -t            task style (profile's layout)\n"
		"  -k KERNEL_ELF kernel ELF (default ROOT/boot/kernel)\n"
		"  -r ROOT       prefix of the stream's binary paths (default: this build's\n"
		"                initrd-root, found from vprof's own path)\n"
		"  -a SYMBOL     annotated disassembly of SYMBOL (objdump): each\n"
		"                instruction's share of SYMBOL's samples and of all, with\n"
		"                the source lines where the binary has them\n"
		"  --lines       samples per source line (addr2line), most first\n"
		"  -B SYMFILE    benchmark symbol lookups in SYMFILE\n"
		"  -X FORMAT     benchmark the export of a synthetic 1M-sample stream\n"
		"  -h            this help\n");
}

static void vp_write(void *ctx, const void *data, size_t len)
{
	vprof_t *vp = ctx;

	fwrite(data, 1, len, vp->out);
}

/* Close the file being written; false (with a message) on a write error. */
static bool vp_close(vprof_t *vp)
{
	bool ok = vp->out && fflush(vp->out) == 0 && !ferror(vp->out);

	if (vp->out && !ok)
		fprintf(stderr, "vprof: %s: write error\n", vp->out_path ? vp->out_path : "stdout");
	if (vp->out && vp->out != stdout)
		fclose(vp->out);
	vp->out = NULL;
	return ok;
}

/* -F gmon: the next file, PREFIX.NAME for the binary at path (NAME its base name). */
static errno_t vp_open(void *ctx, const char *path)
{
	vprof_t *vp = ctx;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (vp->out && !vp_close(vp))
		return EIO;
	snprintf(vp->gmon_path, sizeof(vp->gmon_path), "%s.%s", vp->gmon_prefix, base);
	vp->out_path = vp->gmon_path;
	vp->out = fopen(vp->gmon_path, "wb");
	if (!vp->out) {
		fprintf(stderr, "vprof: ");
		perror(vp->gmon_path);
		return EIO;
	}
	printf("%s: %s\n", vp->gmon_path, path);
	return EOK;
}

/* The file of a stream's binary path: under root, or as given (vprof.h). */
bool vprof_binary_file(const char *root, const char *kernel, const char *path, char *buf,
		       size_t size)
{
	if (path[0] != '/' || (kernel && strcmp(path, kernel) == 0))
		return (size_t)snprintf(buf, size, "%s", path) < size;
	return (size_t)snprintf(buf, size, "%s%s", root, path) < size;
}

errno_t vprof_load_binary(const char *root, const char *kernel, binmiss_t *missing,
			  const char *path, void **data, size_t *size)
{
	char full[VPROF_PATH];
	errno_t err = ENOENT;

	if (vprof_binary_file(root, kernel, path, full, sizeof(full)))
		err = prof_env_read_file(full, data, size);
	binmiss_note(missing, path, err);
	return err;
}

/* The report's loader: a stream's binaries (vprof_load_binary). */
static errno_t vp_load(void *ctx, const char *path, void **data, size_t *size)
{
	vprof_t *vp = ctx;

	return vprof_load_binary(vp->root, vp->kernel, &vp->missing, path, data, size);
}

/* "12", "0.5", "1.25" -> hundredths; -1 when malformed. */
long vprof_parse_percent(const char *s)
{
	long whole = 0, frac = 0;
	int digits = 0;

	if (*s == '\0')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((whole = whole * 10 + (*s - '0')) > 100)
			return -1;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && digits < 2; s++, digits++)
			frac = frac * 10 + (*s - '0');
	if (*s != '\0')
		return -1;
	while (digits++ < 2)
		frac *= 10;
	return whole * 100 + frac > 10000 ? -1 : whole * 100 + frac;
}

/* Feed the stream file to r. 0, or 1 with a message. */
static int feed_file(prof_report_t *r, const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[VPROF_CHUNK];
	size_t got;

	if (!f) {
		fprintf(stderr, "vprof: ");
		perror(path);
		return 1;
	}
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		errno_t err = prof_report_feed(r, buf, got);
		if (err != EOK) {
			if (err == ENOTSUP)
				fprintf(stderr, "vprof: %s: a stream version this vprof does not "
					"read (it reads %u to %u)\n", path, PROF_VERSION_MIN,
					PROF_VERSION);
			else
				fprintf(stderr, "vprof: %s: %s%s%s\n", path, err == EINVAL ?
					"not a profiler stream (or a damaged one)" :
					"out of memory", prof_report_error(r) ? ": " : "",
					prof_report_error(r) ? prof_report_error(r) : "");
			fclose(f);
			return 1;
		}
	}
	fclose(f);
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* -B: random lookups over the address range of SYMFILE's symbols. */
static int bench(const char *path)
{
	profsym_mem_t mem = { NULL, prof_env_malloc, prof_env_free };
	profsym_t ps;
	void *data;
	size_t size;

	if (prof_env_read_file(path, &data, &size) != EOK) {
		fprintf(stderr, "vprof: %s: cannot read\n", path);
		return 1;
	}
	if (profsym_from_elf(&ps, data, size) != EOK &&
	    profsym_from_nm(&ps, data, size, &mem) != EOK) {
		fprintf(stderr, "vprof: %s: no symbols\n", path);
		return 1;
	}
	const elfsym_table_t *t = &ps.table;
	uint64_t lo = t->syms[0].st_value, span = t->syms[t->count - 1].st_value - lo + 1;
	uint64_t seed = 0x9e3779b97f4a7c15ull, n = 2000000, hits = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (uint64_t i = 0; i < n; i++)
		hits += elfsym_lookup(t, lo + xorshift(&seed) % span, NULL) != NULL;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("vprof.symbolize %.0f lookups/s\n", (double)n / s);
	printf("# %zu symbols, %llu of %llu lookups found a symbol\n", t->count,
	       (unsigned long long)hits, (unsigned long long)n);
	profsym_release(&ps, &mem);
	free(data);
	return 0;
}

/* -a or --lines of the fed report r: their exit status. */
static int vp_source(prof_report_t *r, vprof_t *vp)
{
	vprof_annot_t a = { vp->annotate, vp->root, vp->kernel };

	fflush(vp->out);
	return vp->annotate ? vprof_annotate(r, &a, vp->out) : vprof_lines(r, &a, vp->out);
}

/* Write the report, or the export, of the fed report r. 0, or 1 with a message. */
static int emit(prof_report_t *r, const prof_env_t *env, vprof_t *vp,
		const prof_report_opts_t *o, const char *stream)
{
	prof_export_out_t out = { vp, vp_write, vp_open };
	errno_t err;

	if (vp->annotate || vp->lines)
		return vp_source(r, vp);
	if (vp->x.format == PROF_FMT_REPORT)
		err = prof_report_print(r, o);
	else
		err = prof_export(r, env, &vp->x, &out);
	if (err == ENOENT)
		fprintf(stderr, "vprof: %s: no samples to export (none in the stream, or "
			"none left by -T/-m/-c/-w)\n", stream);
	else if (err == ENOMEM)
		fprintf(stderr, "vprof: out of memory\n");
	return err != EOK;
}

/* Check the fed stream: a header; for an export, no record cut short. */
static int check_stream(prof_report_t *r, const vprof_t *vp, const char *stream)
{
	prof_counts_t c;

	prof_report_counts(r, &c);
	if (!c.have_header) {
		fprintf(stderr, "vprof: %s: not a profiler stream (no header)\n", stream);
		return 1;
	}
	if (vp->x.format != PROF_FMT_REPORT && prof_report_pending(r) > 0) {
		fprintf(stderr, "vprof: %s: truncated stream (it ends %zu bytes into a record)\n",
			stream, prof_report_pending(r));
		return 1;
	}
	return 0;
}

static int run(const char *stream, vprof_t *vp, const prof_report_opts_t *o)
{
	prof_stdio_t s = { vp, vp_load, vp->out };
	prof_env_t env = prof_env_stdio(&s);
	prof_report_t *r;

	if (prof_report_new(&env, &r) != EOK ||
	    prof_report_setup(r, &vp->filter, vp->x.format != PROF_FMT_REPORT ||
			      vp->annotate || vp->lines) != EOK) {
		fprintf(stderr, "vprof: out of memory\n");
		return 1;
	}
	prof_report_set_origin(r, o->by_origin, o->origin);
	prof_report_set_wall(r, vp->x.wall);
	prof_report_keep_records(r, vp->x.format == PROF_FMT_PERF ||
				    vp->x.format == PROF_FMT_TRACE);
	int rc = feed_file(r, stream);
	if (rc == 0)
		rc = check_stream(r, vp, stream);
	if (rc == 0)
		rc = emit(r, &env, vp, o, stream);
	if (vp->annotate || vp->lines) {
		prof_report_free(r);
		return vp->out && !vp_close(vp) ? 1 : rc;
	}
	prof_report_free(r);
	if (vp->out && !vp_close(vp))
		rc = 1;
	return rc ? rc : binmiss_warn(&vp->missing, "vprof", "the stream", vp->root,
					 "their samples print as addresses; give the staged root with -r ROOT");
}

/* ---------------------------------------------------------------- -X benchmark */

#define BX_SAMPLES 1000000
#define BX_DEPTH 16
#define BX_STACKS 4096
#define BX_FUNCS 512
#define BX_TASKS 4

typedef struct bx_rec {
	prof_rec_sample_t s;
	uint64_t chain[BX_DEPTH];
} bx_rec_t;

static char bx_nm_user[BX_FUNCS * 40], bx_nm_kernel[BX_FUNCS * 48];

/* nm text of BX_FUNCS functions, 0x100 bytes each, from base. */
static void bx_nm(char *buf, size_t size, uint64_t base, const char *prefix)
{
	size_t n = 0;

	for (int i = 0; i < BX_FUNCS; i++)
		n += (size_t)snprintf(buf + n, size - n, "%016llx T %s%d\n",
				      (unsigned long long)(base + 0x100 * (uint64_t)i), prefix, i);
}

static errno_t bx_load(void *ctx, const char *path, void **data, size_t *size)
{
	const char *text = strcmp(path, "/bin/bench.nm") == 0 ? bx_nm_user :
			   strcmp(path, "/boot/kernel.nm") == 0 ? bx_nm_kernel : NULL;

	(void)ctx;
	if (!text)
		return ENOENT;
	*size = strlen(text);
	*data = malloc(*size);
	if (!*data)
		return ENOMEM;
	memcpy(*data, text, *size);
	return EOK;
}

static void bx_null(void *ctx, const char *s, size_t len)
{
	(void)ctx, (void)s, (void)len;
}

static void bx_null_write(void *ctx, const void *d, size_t len)
{
	*(uint64_t *)ctx += len, (void)d;
}

static errno_t bx_null_open(void *ctx, const char *path)
{
	(void)ctx, (void)path;
	return EOK;
}

/* The stream's header, tasks and loads, fed to r. */
static void bx_prologue(prof_report_t *r)
{
	prof_rec_header_t h = { { PROF_REC_HEADER, sizeof(h), 0, 0 }, PROF_MAGIC, PROF_VERSION,
				PROF_SRC_PMC, 1000, 4, PROF_F_CALLCHAIN, BX_DEPTH, 1000000000,
				0, 0xffffffff80100000ull, 0xffffffff80200000ull, "bench", "pmc" };
	struct { prof_rec_load_t l; char path[16]; } ld;

	prof_report_feed(r, &h, sizeof(h));
	for (uint64_t t = 1; t <= BX_TASKS; t++) {
		memset(&ld, 0, sizeof(ld));
		ld.l = (prof_rec_load_t){ { PROF_REC_LOAD, sizeof(ld), 0, 1 }, t, 0x401000,
					  0x401000 + 0x100 * BX_FUNCS, 0 };
		strcpy(ld.path, "/bin/bench");
		prof_report_feed(r, &ld, sizeof(ld));
	}
}

/* BX_STACKS distinct sample records: 16 return addresses, kernel on top of some. */
static void bx_records(bx_rec_t *recs)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < BX_STACKS; i++) {
		bx_rec_t *b = &recs[i];
		bool kernel = xorshift(&seed) % 4 == 0;
		memset(b, 0, sizeof(*b));
		b->s.h = (prof_rec_t){ PROF_REC_SAMPLE, sizeof(*b), (uint32_t)(i % 4), 0 };
		b->s.task = 1 + (uint64_t)i % BX_TASKS;
		b->s.thread = b->s.task * 10 + (uint64_t)i % 2;
		b->s.mode = kernel ? PROF_MODE_KERNEL : PROF_MODE_USER;
		b->s.nchain = BX_DEPTH;
		b->s.nkernel = kernel ? 4 : 0;
		uint64_t kb = 0xffffffff80100000ull, ub = 0x401000;
		b->s.pc = (kernel ? kb : ub) + 0x100 * (xorshift(&seed) % BX_FUNCS) + 0x10;
		for (int j = 0; j < BX_DEPTH; j++)
			b->chain[j] = (j < b->s.nkernel ? kb : ub) +
				      0x100 * (xorshift(&seed) % (BX_FUNCS / 8)) + 0x20;
	}
}

/* -X: feed the synthetic stream and export it as format; seconds taken. */
static int bench_export(const char *format)
{
	int f = prof_format_parse(format);
	static bx_rec_t recs[BX_STACKS];
	prof_env_t env = { NULL, prof_env_malloc, prof_env_free, bx_load, bx_null };
	prof_filter_t none = { 0 };
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 50, true, NULL, false, 0 };
	prof_export_opts_t xo = { (unsigned)(f < 0 ? 0 : f), NULL, "bench", false, NULL,
				  false, false };
	uint64_t bytes = 0, seed = 1;
	prof_export_out_t out = { &bytes, bx_null_write, bx_null_open };
	struct timespec a, b;
	prof_report_t *r;

	if (f < 0) {
		fprintf(stderr, "vprof: unknown format '%s'\n", format);
		return 2;
	}
	bx_nm(bx_nm_user, sizeof(bx_nm_user), 0x401000, "user_fn");
	bx_nm(bx_nm_kernel, sizeof(bx_nm_kernel), 0xffffffff80100000ull, "kernel_fn");
	bx_records(recs);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (prof_report_new(&env, &r) != EOK || prof_report_setup(r, &none, f != 0) != EOK)
		return 1;
	prof_report_keep_records(r, f == PROF_FMT_PERF || f == PROF_FMT_TRACE);
	bx_prologue(r);
	for (uint64_t i = 0; i < BX_SAMPLES; i++) {
		bx_rec_t *rec = &recs[xorshift(&seed) % BX_STACKS];
		rec->s.h.tsc = 1000 * i;
		prof_report_feed(r, rec, sizeof(*rec));
	}
	errno_t err = f == 0 ? prof_report_print(r, &o) : prof_export(r, &env, &xo, &out);
	prof_report_free(r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("vprof.export.%s %.3f s\n", format, s);
	printf("vprof.export.%s.rate %.0f samples/s\n", format, BX_SAMPLES / s);
	printf("# %d samples, %d distinct %d-frame stacks, %llu bytes out\n", BX_SAMPLES,
	       BX_STACKS, BX_DEPTH, (unsigned long long)bytes);
	return err != EOK;
}

/* "1.5" seconds -> 1500 ms (up to three decimals); false when malformed. */
static bool parse_seconds(const char *s, char **end, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0;
	int digits = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((whole = whole * 10 + (uint64_t)(*s - '0')) > 100000000)
			return false;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && digits < 3; s++, digits++)
			frac = frac * 10 + (uint64_t)(*s - '0');
	while (digits++ < 3)
		frac *= 10;
	*ms = whole * 1000 + frac;
	*end = (char *)s;
	return true;
}

/* -w FROM,TO into the filter; false when malformed or empty. */
static bool parse_window(const char *s, prof_filter_t *f)
{
	char *end;

	if (!parse_seconds(s, &end, &f->from_ms) || *end != ',' ||
	    !parse_seconds(end + 1, &end, &f->to_ms) || *end != '\0')
		return false;
	f->window = true;
	return f->to_ms > f->from_ms;
}

/* -T TASK: an id when all digits, else a name (at most 31 bytes). */
static bool parse_task(const char *s, prof_filter_t *f)
{
	char *end;

	f->by_task = true;
	f->task_id = strtoull(s, &end, 10);
	if (*s >= '0' && *s <= '9' && *end == '\0')
		return true;
	f->task_name = s;
	return *s != '\0' && strlen(s) < 32;
}

static bool parse_mode(const char *s, prof_filter_t *f)
{
	static const char *const modes[] = { "all", "user", "kernel" };

	for (unsigned i = 0; i < 3; i++) {
		if (strcmp(s, modes[i]) == 0) {
			f->mode = i;
			return true;
		}
	}
	return false;
}

static bool parse_cpu(const char *s, prof_filter_t *f)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	f->by_cpu = true;
	f->cpu = (uint32_t)v;
	return *s >= '0' && *s <= '9' && *end == '\0' && v < 4096;
}

static bool parse_format(const char *s, vprof_t *vp)
{
	int f = prof_format_parse(s);

	vp->x.format = (unsigned)(f < 0 ? 0 : f);
	return f >= 0;
}

/* The export and filter options; false for a bad value (message given). */
static bool parse_export_opt(int c, const char *arg, vprof_t *vp)
{
	bool ok = true;

	switch (c) {
	case 'F': ok = parse_format(arg, vp); break;
	case 'o': vp->out_path = arg; break;
	case 'T': ok = parse_task(arg, &vp->filter); break;
	case 'm': ok = parse_mode(arg, &vp->filter); break;
	case 'c': ok = parse_cpu(arg, &vp->filter); break;
	case 'w': ok = parse_window(arg, &vp->filter); break;
	case 'S': vp->x.threads = true; break;
	case 'W': vp->x.wall = true; break;
	case 'u': ok = strcmp(arg, "ns") == 0 || strcmp(arg, "samples") == 0;
		vp->x.ns = strcmp(arg, "ns") == 0; break;
	}
	if (!ok)
		fprintf(stderr, "vprof: bad value '%s' for -%c\n", arg, c);
	return ok;
}

/* The report options; false for a bad value (message given). */
static bool parse_report_opt(int c, const char *arg, vprof_t *vp, prof_report_opts_t *o)
{
	long pct;

	switch (c) {
	case 'g': o->tree = true; break;
	case 'C': o->by_origin = true; break;
	case 't': o->style = PROF_STYLE_TASK; break;
	case 'k': vp->kernel = o->kernel_path = vp->x.kernel_path = arg; break;
	case 'r': vp->root = arg; break;
	case 'p':
		if ((pct = vprof_parse_percent(arg)) < 0) {
			fprintf(stderr, "vprof: bad percentage '%s'\n", arg);
			return false;
		}
		o->threshold_centi = (unsigned)pct;
		break;
	}
	return true;
}

/*
 * -C -T ID: ID is the origin whose part is reported (its own samples and
 * those served for it), not a filter of sampled tasks. False (message
 * given) for a name.
 */
static bool origin_task(vprof_t *vp, prof_report_opts_t *o)
{
	if (vp->filter.task_name || !vp->filter.task_id) {
		fprintf(stderr, "vprof: -C -T wants a task id\n");
		return false;
	}
	o->origin = vp->filter.task_id;
	vp->filter.by_task = false;
	return true;
}

/* -a and --lines: one of them, with the filters only; false with a message. */
static bool source_ok(const vprof_t *vp, const prof_report_opts_t *o)
{
	const char *bad = vp->annotate && vp->lines ? "-a and --lines" :
			  vp->x.format != PROF_FMT_REPORT ? "-F" : o->by_origin ? "-C" :
			  vp->x.wall ? "-W" : o->tree ? "-g" : o->style == PROF_STYLE_TASK ? "-t" :
			  NULL;

	if (!(vp->annotate || vp->lines) || !bad)
		return true;
	fprintf(stderr, "vprof: %s %s: not together\n", vp->annotate ? "-a" : "--lines", bad);
	return false;
}

/*
 * Open -o FILE (stdout without one), run, and drop a FILE left
 * unfinished. -F gmon opens its files itself (-o names their prefix).
 */
static int run_to(const char *stream, vprof_t *vp, const prof_report_opts_t *o)
{
	vp->x.title = stream;
	vp->x.root = vp->root;
	if (vp->x.format == PROF_FMT_GMON) {
		vp->gmon_prefix = vp->out_path ? vp->out_path : "gmon.out";
		return run(stream, vp, o);
	}
	vp->out = vp->out_path ? fopen(vp->out_path, "wb") : stdout;
	if (!vp->out) {
		fprintf(stderr, "vprof: ");
		perror(vp->out_path);
		return 1;
	}
	int rc = run(stream, vp, o);
	if (vp->out_path && rc == 1)
		remove(vp->out_path);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = { { "threads", no_argument, NULL, 'S' },
					       { "wall", no_argument, NULL, 'W' },
					       { "lines", no_argument, NULL, 'L' }, { 0 } };
	static char root[VPROF_PATH];
	vprof_t vp = { .root = hostroot_default(root, sizeof(root)) };
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 50, false, NULL, false, 0 };
	const char *bench_file = NULL, *bench_fmt = NULL;
	int c;

	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return vprof_diff_main(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "hgp:tk:r:B:X:F:o:T:m:c:w:CWu:a:", longs, NULL)) != -1) {
		bool ok = true;
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'a' || c == 'L') {
			vp.annotate = c == 'a' ? optarg : vp.annotate;
			vp.lines |= c == 'L';
		} else if (c == 'B' || c == 'X') {
			*(c == 'B' ? &bench_file : &bench_fmt) = optarg;
		} else if (strchr("gptkrC", c)) {
			ok = parse_report_opt(c, optarg, &vp, &o);
		} else if (strchr("FoTmcwSWu", c)) {
			ok = parse_export_opt(c, optarg, &vp);
		} else {
			ok = false;
		}
		if (!ok) {
			usage(stderr);
			return 2;
		}
	}
	if (vp.x.ns && vp.x.format != PROF_FMT_FOLDED) {
		fprintf(stderr, "vprof: -u ns is for -F folded\n");
		usage(stderr);
		return 2;
	}
	if (o.by_origin && vp.x.format == PROF_FMT_PERF) {
		fprintf(stderr, "vprof: -C is not for -F perf (perf.data has no [ipc] frames)\n");
		usage(stderr);
		return 2;
	}
	if (o.by_origin && vp.x.format == PROF_FMT_TRACE) {
		fprintf(stderr, "vprof: -C is not for -F trace (the timeline shows each thread's own "
			"work; origins are in its slices' args)\n");
		usage(stderr);
		return 2;
	}
	if (o.by_origin && vp.filter.by_task && !origin_task(&vp, &o)) {
		usage(stderr);
		return 2;
	}
	if (!source_ok(&vp, &o)) {
		usage(stderr);
		return 2;
	}
	if ((bench_file || bench_fmt) && optind == argc)
		return bench_file ? bench(bench_file) : bench_export(bench_fmt);
	if (bench_file || bench_fmt || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	return run_to(argv[optind], &vp, &o);
}
