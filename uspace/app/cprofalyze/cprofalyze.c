/*
 * cprofalyze - print call profiles (the MINIX 3 thesis's cprofalyze.pl,
 * section 4.1, without its clock argument: milliseconds come from the
 * TSC frequency in the file). One source for both sides: built for the
 * guest as /bin/cprofalyze and for the host as build/host/cprofalyze
 * (-DCPROFALYZE_HOST: another default root). The report is
 * lib/prof/cprof/.
 *
 * Usage: cprofalyze [-h] [-f] [-a|-o|-c|-t] [-i] [-n N] [-r ROOT] FILE...
 *        cprofalyze -F callgrind|folded|pprof [-r ROOT] FILE
 *
 *   FILE     a call profile (lib/include/abi/cprof.h; `cprof get` writes it)
 *   -f       totals per function (the paths' order is lost)
 *   -a       sort alphabetically by path (the default)
 *   -o       no sort: the order in the file (the tree: callees in that order)
 *   -c       sort by calls, most first
 *   -t       sort by wall time, most first
 *   -i       with -a/-o: full paths, not the tree
 *   -n N     at most N lines per table
 *   -F FMT   instead of the report, write FILE's tables as callgrind
 *            (`events: Wall Cpu` in cycles, calls= exact; callgrind_annotate,
 *            KCachegrind), folded stacks (per call path its self wall
 *            cycles; flamegraph.pl) or pprof (gzipped profile.proto: calls,
 *            wall and cpu nanoseconds per path; go tool pprof) to standard
 *            output
 *   -r ROOT  the directory the binaries named in the file are looked up
 *            in (default /; on the host the initrd-root of the build this
 *            cprofalyze belongs to, BUILD/host/cprofalyze -> BUILD/initrd-root,
 *            as vprof -r)
 *
 * Output: the notes, then per table (the kernel's first):
 *   kernel (task 0, /boot/kernel): 2 parts, 4 call paths
 *   warning: kernel (task 0): call stack overrun: 12 calls not recorded
 *       calls    wall ms     cpu ms  path
 *          10       0.01       0.01  a
 *          10       0.01       0.01    b
 * The tree (-a, -o without -i) shows each path's last function indented
 * two spaces per level; -i, -c and -t print full paths ("a b d"); -f one
 * line per function. A binary without .symtab is tried as PATH.nm.
 * Exit status: 0, 1 for an unreadable or malformed FILE (a message names
 * it; the other files are still printed), 2 for bad usage, 3 when the
 * reports were printed but binaries they name were not found under ROOT
 * (a warning lists them; their functions print as addresses).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/cprofreport.h>
#include <profenv.h>

#define CPA_PATH 1024

#include <binmiss.h>

#ifdef CPROFALYZE_HOST
#include <hostroot.h>
#define CPA_ROOT_DEFAULT(buf) hostroot_default(buf, sizeof(buf))
#define CPA_ROOT "BUILD/initrd-root"
#else
#define CPA_ROOT_DEFAULT(buf) ((void)(buf), CPA_ROOT)
#define CPA_ROOT "/"
#endif

typedef struct cpa {
	const char *root;
	bool noted;                     /* the notes were printed */
	unsigned format;                /* -F: PROF_FMT_*, PROF_FMT_REPORT for the report */
	binmiss_t missing;              /* binaries not found (nor PATH.nm) */
} cpa_t;

static void usage(FILE *f)
{
	fprintf(f, "usage: cprofalyze [-h] [-f] [-a|-o|-c|-t] [-i] [-n N] [-r ROOT] FILE...\n"
		"       cprofalyze -F callgrind|folded|pprof [-r ROOT] FILE\n"
		"  print call profiles (written by cprof get)\n"
		"  -F FMT   write FILE as callgrind (events: Wall Cpu), folded stacks or\n"
		"           pprof\n"
		"  -f       totals per function (the paths' order is lost)\n"
		"  -a       sort alphabetically by path (default)\n"
		"  -o       no sort: the order in the file\n"
		"  -c       sort by calls, most first\n"
		"  -t       sort by wall time, most first\n"
		"  -i       with -a/-o: full paths, not the tree\n"
		"  -n N     at most N lines per table\n"
		"  -r ROOT  where the binaries named in the file are (default %s)\n"
		"  -h       this help\n", CPA_ROOT);
}

/* -F NAME: PROF_FMT_CALLGRIND, _FOLDED or _PPROF; PROF_FMT_REPORT for others. */
static unsigned cpa_format(const char *name)
{
	int f = prof_format_parse(name);

	if (f == PROF_FMT_CALLGRIND || f == PROF_FMT_FOLDED || f == PROF_FMT_PPROF)
		return (unsigned)f;
	return PROF_FMT_REPORT;
}

/* Paths in the file are guest paths: absolute ones are looked up under root. */
static errno_t cpa_load(void *ctx, const char *path, void **data, size_t *size)
{
	cpa_t *c = ctx;
	char full[CPA_PATH];
	size_t rlen = strlen(c->root);
	errno_t err = ENOENT;

	while (rlen > 0 && c->root[rlen - 1] == '/')
		rlen--;
	if (path[0] != '/' || rlen == 0)
		err = prof_env_read_file(path, data, size);
	else if ((size_t)snprintf(full, sizeof(full), "%.*s%s", (int)rlen, c->root, path) <
		 sizeof(full))
		err = prof_env_read_file(full, data, size);
	binmiss_note(&c->missing, path, err);
	return err;
}

/* Print the report of one file; 0, or 1 with a message. */
static int cpa_file(cpa_t *c, const char *file, const cprofreport_opts_t *o, bool named)
{
	prof_stdio_t s = { c, cpa_load, NULL };
	prof_env_t env = prof_env_stdio(&s);
	char why[160];
	void *data;
	size_t size;
	cprofreport_t *pc;

	errno_t err = prof_env_read_file(file, &data, &size);
	if (err != EOK) {
		fprintf(stderr, "cprofalyze: %s: cannot read it (%s)\n", file, err == ENOENT ?
			"cannot open" : err == ENOMEM ? "out of memory" : "I/O error");
		return 1;
	}
	err = cprofreport_parse(&env, data, size, &pc, why, sizeof(why));
	free(data);
	if (err != EOK) {
		fprintf(stderr, "cprofalyze: %s: %s%s\n", file,
			err == EINVAL ? "not a call profile or damaged: " : "", why);
		return 1;
	}
	if (c->format != PROF_FMT_REPORT) {
		err = c->format == PROF_FMT_PPROF ? cprofreport_pprof(pc, prof_env_write, stdout) :
			cprofreport_export(pc, c->format);
		cprofreport_free(pc);
		fflush(stdout);
		if (err != EOK)
			fprintf(stderr, "cprofalyze: %s: out of memory\n", file);
		return err != EOK;
	}
	if (!c->noted)
		cprofreport_notes(&env);
	c->noted = true;
	if (named)
		printf("\n%s:\n", file);
	if (cprofreport_tables(pc) == 0)
		printf("\n(no call-profiled tasks)\n");
	err = cprofreport_print(pc, o);
	cprofreport_free(pc);
	fflush(stdout);
	if (err != EOK) {
		fprintf(stderr, "cprofalyze: %s: out of memory\n", file);
		return 1;
	}
	return 0;
}

/* "N" (1 or more) into *n; false when malformed. */
static bool parse_count(const char *s, uint64_t *n)
{
	uint64_t v = 0;

	if (*s == '\0')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*n = v;
	return *s == '\0' && v > 0;
}

int main(int argc, char **argv)
{
	cprofreport_opts_t o = { CPROFREPORT_SORT_ALPHA, false, false, 0 };
	static char root[CPA_PATH];
	cpa_t c = { CPA_ROOT_DEFAULT(root), false, 0, { 0, { "" } } };
	int opt, status = 0;

	while ((opt = getopt(argc, argv, "hfaoctin:r:F:")) != -1) {
		switch (opt) {
		case 'F':
			c.format = cpa_format(optarg);
			if (c.format == PROF_FMT_REPORT) {
				fprintf(stderr, "cprofalyze: unknown format '%s'\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			o.functions = true;
			break;
		case 'a':
			o.sort = CPROFREPORT_SORT_ALPHA;
			break;
		case 'o':
			o.sort = CPROFREPORT_SORT_FILE;
			break;
		case 'c':
			o.sort = CPROFREPORT_SORT_CALLS;
			break;
		case 't':
			o.sort = CPROFREPORT_SORT_TIME;
			break;
		case 'i':
			o.full_paths = true;
			break;
		case 'n':
			if (!parse_count(optarg, &o.max_lines)) {
				fprintf(stderr, "cprofalyze: bad line count '%s'\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'r':
			c.root = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || (c.format != PROF_FMT_REPORT && argc - optind != 1)) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++)
		status |= cpa_file(&c, argv[i], &o, argc - optind > 1);
	return status ? status : binmiss_warn(&c.missing, "cprofalyze", "the profiles", c.root,
						 "their functions print as addresses; give the root with -r ROOT");
}
