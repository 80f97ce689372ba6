/*
 * sprofdiff: compare two profiler streams in the guest (MINIX had one),
 * with the statistics of `vprof diff` (lib/prof/profdiff.c, the same code).
 *
 *   sprofdiff [-h] [-m] [-p PERCENT] [-T TASK] A B
 *     A, B        stream files written by sprofile -o / profile -o;
 *                 A is the baseline
 *     -m          match functions by name only (different builds)
 *     -p PERCENT  hide rows below PERCENT % in both, 0..100 (default 0.5)
 *     -T TASK     only the samples of this task (name or id)
 *
 * Prints the task and the function table: the shares in A and B, B-A in
 * points, a two-proportion z-test's z and two-sided p, * for p < 0.01,
 * rows by |z|. Symbols come from /bin and /boot/kernel. Exit status: 0;
 * 1 for an unreadable or malformed stream; 2 for usage errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lib/profdiff.h>
#include <lib/profreport.h>
#include <profenv.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: sprofdiff [-h] [-m] [-p PERCENT] [-T TASK] A B\n"
		"  compare profiler streams A (baseline) and B: shares, B-A in points,\n"
		"  z and p of a two-proportion z-test, * p < 0.01, rows by |z|\n"
		"  -m          match functions by name only (different builds)\n"
		"  -p PERCENT  hide rows below this share in both (default 0.5)\n"
		"  -T TASK     only this task's samples (name or id)\n");
}

/* malloc, free, whole-file reads, standard output (<profenv.h>). */
static const prof_stdio_t sd_stdio = { NULL, NULL, NULL };

/* "0.5" -> 50 hundredths; -1 unless a number of 0..100. */
static long parse_percent(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 100.0))
		return -1;
	return (long)(v * 100.0 + 0.5);
}

/* Read stream path into a report and add its rows to side. 0, or 1. */
static int add_file(profdiff_t *d, unsigned side, const char *path)
{
	prof_report_opts_t ro = { PROF_STYLE_SYSTEM, 0, false, NULL, false, 0 };
	prof_report_t *r;
	prof_counts_t c;
	void *data;
	size_t size;
	errno_t err = file_read_all(path, SIZE_MAX, &data, &size);
	prof_env_t env = prof_env_stdio(&sd_stdio);

	if (err != EOK) {
		fprintf(stderr, "sprofdiff: %s: %s\n", path, strerror(err));
		return 1;
	}
	err = prof_report_new(&env, &r);
	if (err == EOK)
		err = prof_report_feed(r, data, size);
	free(data);
	if (err == EOK) {
		prof_report_counts(r, &c);
		err = c.have_header ? profdiff_add_report(d, side, r, &ro) : EINVAL;
	}
	prof_report_free(r);
	if (err != EOK)
		fprintf(stderr, "sprofdiff: %s: %s\n", path, err == ENOMEM ? "out of memory" :
			"not a profiler stream (or a damaged one)");
	return err != EOK;
}

int main(int argc, char **argv)
{
	profdiff_opts_t o = { 50, false, NULL, NULL, NULL };
	profdiff_t *d;
	long pct;
	int c;

	while ((c = getopt(argc, argv, "hmp:T:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'm') {
			o.by_name = true;
		} else if (c == 'p' && (pct = parse_percent(optarg)) >= 0) {
			o.threshold_centi = (unsigned)pct;
		} else if (c == 'T') {
			o.task = optarg;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 2) {
		usage(stderr);
		return 2;
	}
	o.name_a = argv[optind];
	o.name_b = argv[optind + 1];
	prof_env_t env = prof_env_stdio(&sd_stdio);
	if (profdiff_new(&env, &o, &d) != EOK) {
		fprintf(stderr, "sprofdiff: out of memory\n");
		return 1;
	}
	int rc = add_file(d, 0, o.name_a) || add_file(d, 1, o.name_b);
	if (!rc)
		profdiff_print(d);
	profdiff_free(d);
	return rc;
}
