/*
 * Comparing two profiles (vprof diff): the share of every task and every
 * function in profile A and in profile B, the difference in percentage
 * points and a two-proportion z-test of it (pooled standard error) with
 * its two-sided p-value; rows sorted by |z|, rows with p < 0.01 marked.
 * Freestanding: memory and output through a prof_env_t; the normal tail
 * and the square root are computed here (no libm).
 *
 * Use: profdiff_new, profdiff_add_report (or profdiff_add per row) for
 * side 0 (A) and side 1 (B), then profdiff_finish (the tests and the
 * order), then profdiff_print and/or profdiff_rows, then profdiff_free.
 *
 * Matching: a task row is the task's name (ids differ between runs); a
 * function row is, by default, the binary (its path and, for programs,
 * the hash of the file profiled) plus the symbol, so functions of
 * different builds do not match; with by_name (-m) only the symbol and
 * whether it is a kernel function, so they do (and same-named functions
 * of different programs are summed).
 */
#ifndef LIB_PROFDIFF_H
#define LIB_PROFDIFF_H

#include <abi/errno.h>
#include <lib/profexport.h>
#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFDIFF_ALPHA 0.01             /* rows with p below this are marked */

#define PROFDIFF_TASKS 0                /* the per-task table */
#define PROFDIFF_FUNCS 1                /* the per-function table */

/* The test of one row. */
typedef struct profdiff_test {
	double share_a, share_b;        /* percent of each profile's samples */
	double diff;                    /* share_b - share_a, percentage points */
	double z;                       /* 0 when undefined (a total of 0, or no samples) */
	double p;                       /* two-sided; 1 when undefined */
} profdiff_test_t;

typedef struct profdiff_row {
	char *key;                      /* what rows are matched by */
	char *name;                     /* task or symbol as shown */
	char bin[24];                   /* the binary's file name, "*" when several */
	bool kernel;
	uint64_t count[2];              /* samples in A and in B */
	profdiff_test_t t;
} profdiff_row_t;

typedef struct profdiff_opts {
	unsigned threshold_centi;       /* hide rows with both shares below (1/100 %) */
	bool by_name;                   /* -m: match functions by name only */
	const char *task;               /* -T: only this task (name or id); NULL: all */
	const char *name_a, *name_b;    /* the profiles' names in the heading */
} profdiff_opts_t;

typedef struct profdiff profdiff_t;

/* P(Z > x) for a standard normal Z; relative error below 1e-12. */
double profdiff_normal_tail(double x);

/*
 * The two-proportion z-test of ca of na samples (A) against cb of nb (B)
 * with the pooled proportion: z = (cb/nb - ca/na) / sqrt(p (1 - p)
 * (1/na + 1/nb)), p = (ca + cb) / (na + nb); the p-value is 2 P(Z > |z|).
 */
void profdiff_ztest(uint64_t ca, uint64_t na, uint64_t cb, uint64_t nb,
		    profdiff_test_t *t);

/* A new, empty comparison (env and opts copied; strings must outlive it). */
errno_t profdiff_new(const prof_env_t *env, const profdiff_opts_t *o,
		     profdiff_t **out);

/*
 * Count one report row in side (0: A, 1: B), in the task and the function
 * table, unless opts.task excludes it. EOK or ENOMEM; EINVAL after
 * profdiff_finish or for a side above 1.
 */
errno_t profdiff_add(profdiff_t *d, unsigned side, const prof_row_info_t *row);

/* Add every row of report r (symbolized with ro) to side. EOK or ENOMEM. */
errno_t profdiff_add_report(profdiff_t *d, unsigned side, prof_report_t *r,
			    const prof_report_opts_t *ro);

/* Run the tests and sort each table by |z|, largest first. */
void profdiff_finish(profdiff_t *d);

/* The rows of table (PROFDIFF_*) and their number (after finish). */
const profdiff_row_t *profdiff_rows(const profdiff_t *d, unsigned table, size_t *n);

/* The samples counted in side. */
uint64_t profdiff_total(const profdiff_t *d, unsigned side);

/* Print both tables (finishing first if needed) to env.out. */
void profdiff_print(profdiff_t *d);

void profdiff_free(profdiff_t *d);

/*
 * Join two folded-stack texts ("STACK N" lines, as flamegraph.pl reads
 * them; a stack may contain spaces, N is after the last one) into the
 * two-column differential form "STACK A B" (what Brendan Gregg's
 * difffolded.pl writes and flamegraph.pl draws as a red/blue differential
 * flame graph), written to env->out: one line per stack of either input,
 * 0 where one lacks it, counts of a stack seen twice summed, sorted by
 * stack (byte order). Empty lines are skipped. EOK; EINVAL for a line
 * that is not "STACK N" (N a decimal integer); ENOMEM.
 */
errno_t profdiff_folded_join(const prof_env_t *env, const char *a, size_t alen,
			     const char *b, size_t blen);

/*
 * The differential flame graph of two folded-stack texts (read as
 * profdiff_folded_join reads them), written to out as one self-contained
 * SVG (prof_flame_*, lib/profexport.h): frame widths from B's counts;
 * each frame's share of A's and of B's samples z-tested like a row of the
 * table, red where it grew and blue where it shrank with p < 0.01 (the
 * deeper the larger the change), light grey otherwise; hovering shows
 * the counts in A and B and the change in points. o names A and B (the
 * title). EOK; EINVAL for a malformed line; ENOENT when B has no sample;
 * ENOMEM.
 */
errno_t profdiff_folded_flame(const prof_env_t *env, const char *a, size_t alen,
			      const char *b, size_t blen, const profdiff_opts_t *o,
			      const prof_export_out_t *out);

#endif
