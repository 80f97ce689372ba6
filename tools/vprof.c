/*
 * tools/vprof - print the report of a Vernier profiler stream on the host
 * (the same report as the guest tools sprofile and profile, from the same
 * lib/profreport.c).
 *
 * Usage: vprof [-h] [-g] [-p PERCENT] [-t] [-k KERNEL_ELF] [-r ROOT] STREAM
 *        vprof -B SYMFILE
 *        vprof diff [-m] [-p PERCENT] [-T TASK] [-k ..] [-r ..] A B  (tools/vprof_diff.c)
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
 *   -B SYMFILE    benchmark: look up random addresses in SYMFILE's symbols
 *                 (ELF, or nm text) and print `vprof.symbolize N lookups/s`
 *   -h            this help
 *
 * A binary without .symtab (or missing) is tried as PATH.nm (nm output:
 * `ADDR TYPE NAME`). Exit status: 0 on success, 1 for an unreadable or
 * malformed stream, 2 for bad usage, 3 when the report was printed but
 * binaries it names were not found (their samples print as addresses; a
 * warning on stderr lists them and the root).
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lib/profreport.h>
#include <lib/profsym.h>

#include "binmiss.h"
#include "hostroot.h"
#include "vprof.h"

#define VPROF_CHUNK 65536
#define VPROF_PATH 4096

typedef struct vprof {
	const char *root;
	const char *kernel;
	binmiss_t missing;                  /* binaries not found (nor PATH.nm) */
} vprof_t;

static void usage(FILE *f)
{
	fprintf(f, "Usage: vprof [-h] [-g] [-p PERCENT] [-t] [-k KERNEL_ELF] [-r ROOT] STREAM\n"
		"       vprof -B SYMFILE\n"
		"       vprof diff [-h] [-m] [-p PERCENT] [-T TASK] [-k KERNEL_ELF] [-r ROOT] A B\n"
		"Print the profile report of a Vernier profiler stream file.\n"
		"  -g            caller tree of the top functions\n"
		"  -p PERCENT    hide rows below PERCENT %% (default 0.5)\n"
		"  -t            task style (profile's layout)\n"
		"  -k KERNEL_ELF kernel ELF (default ROOT/boot/kernel)\n"
		"  -r ROOT       prefix of the stream's binary paths (default: this build's\n"
		"                initrd-root, found from vprof's own path)\n"
		"  -B SYMFILE    benchmark symbol lookups in SYMFILE\n"
		"  -h            this help\n");
}

static void *vp_alloc(void *ctx, size_t size)
{
	return malloc(size);
}

static void vp_release(void *ctx, void *p)
{
	free(p);
}

static void vp_out(void *ctx, const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
}

/* Read a whole file into malloc'd memory. EOK, ENOENT (cannot open), ENOMEM. */
static errno_t read_file(const char *path, void **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = VPROF_CHUNK, n = 0;
	char *buf = malloc(cap);

	if (!f || !buf) {
		errno_t err = f ? ENOMEM : ENOENT;
		if (f)
			fclose(f);
		free(buf);
		return err;
	}
	for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return ENOMEM;
			}
			buf = nb;
		}
	}
	fclose(f);
	*data = buf;
	*size = n;
	return EOK;
}

/* Stream paths are guest paths: absolute ones are looked up under ROOT. */
static errno_t vp_load(void *ctx, const char *path, void **data, size_t *size)
{
	vprof_t *vp = ctx;
	char full[VPROF_PATH];
	errno_t err = ENOENT;

	if (path[0] != '/' || (vp->kernel && strcmp(path, vp->kernel) == 0))
		err = read_file(path, data, size);
	else if ((size_t)snprintf(full, sizeof(full), "%s%s", vp->root, path) < sizeof(full))
		err = read_file(full, data, size);
	binmiss_note(&vp->missing, path, err);
	return err;
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
				fprintf(stderr, "vprof: %s: %s\n", path, err == EINVAL ?
					"not a profiler stream (or a damaged one)" :
					"out of memory");
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
	profsym_mem_t mem = { NULL, vp_alloc, vp_release };
	profsym_t ps;
	void *data;
	size_t size;

	if (read_file(path, &data, &size) != EOK) {
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

static int run(const char *stream, vprof_t *vp, const prof_report_opts_t *o)
{
	prof_env_t env = { vp, vp_alloc, vp_release, vp_load, vp_out };
	prof_report_t *r;

	if (prof_report_new(&env, &r) != EOK) {
		fprintf(stderr, "vprof: out of memory\n");
		return 1;
	}
	int rc = feed_file(r, stream);
	prof_counts_t c;
	prof_report_counts(r, &c);
	if (rc == 0 && !c.have_header) {
		fprintf(stderr, "vprof: %s: not a profiler stream (no header)\n", stream);
		rc = 1;
	}
	if (rc == 0 && prof_report_print(r, o) != EOK) {
		fprintf(stderr, "vprof: out of memory\n");
		rc = 1;
	}
	prof_report_free(r);
	fflush(stdout);
	return rc ? rc : binmiss_warn(&vp->missing, "vprof", "the stream", vp->root,
					 "their samples print as addresses; give the staged root with -r ROOT");
}

int main(int argc, char **argv)
{
	static char root[VPROF_PATH];
	vprof_t vp = { hostroot_default(root, sizeof(root)), NULL, { 0, { "" } } };
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 50, false, NULL };
	const char *bench_file = NULL;
	long pct;
	int c;

	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return vprof_diff_main(argc - 1, argv + 1);
	while ((c = getopt(argc, argv, "hgp:tk:r:B:")) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'g':
			o.tree = true;
			break;
		case 'p':
			if ((pct = vprof_parse_percent(optarg)) < 0) {
				fprintf(stderr, "vprof: bad percentage '%s'\n", optarg);
				usage(stderr);
				return 2;
			}
			o.threshold_centi = (unsigned)pct;
			break;
		case 't':
			o.style = PROF_STYLE_TASK;
			break;
		case 'k':
			vp.kernel = o.kernel_path = optarg;
			break;
		case 'r':
			vp.root = optarg;
			break;
		case 'B':
			bench_file = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (bench_file && optind == argc)
		return bench(bench_file);
	if (bench_file || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	return run(argv[optind], &vp, &o);
}
