/*
 * Reading a profiler stream (abi/profile.h) and printing its report.
 * Freestanding: shared by the guest tools (sprofile, profile) and the
 * host tool (tools/vprof); memory and files come through callbacks.
 *
 * Use: prof_report_new, then prof_report_feed with the stream's bytes in
 * pieces of any size (records may be split between pieces), then
 * prof_report_print (as often as wanted: the `p` key prints the table so
 * far), then prof_report_free.
 *
 * Symbols: at print time each program in the stream (PROF_REC_LOAD path)
 * and the kernel (path "/boot/kernel", or what opts.kernel_path says) is
 * asked of the loader; its ELF .symtab is used, else, if the loader finds
 * PATH.nm, that nm-format text (`ADDR TYPE NAME` lines). Tables are sorted
 * once, searched by binary search and cached per binary for the report's
 * life. Addresses with no symbol print as hex.
 */
#ifndef LIB_PROFREPORT_H
#define LIB_PROFREPORT_H

#include <abi/errno.h>
#include <abi/profile.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct prof_env {
	void *ctx;
	/* Memory: alloc returns NULL when out of memory. */
	void *(*alloc)(void *ctx, size_t size);
	void (*release)(void *ctx, void *p);
	/*
	 * Read the whole file path into memory from alloc (the report
	 * releases it). EOK, or an errno (ENOENT: no such file).
	 */
	errno_t (*load)(void *ctx, const char *path, void **data, size_t *size);
	/* Output: write len bytes of text. */
	void (*out)(void *ctx, const char *s, size_t len);
} prof_env_t;

/* Running totals, for a live status line. */
typedef struct prof_counts {
	uint64_t samples, user, kernel, idle;
	uint64_t lost, throttled;
	uint64_t tasks;                 /* distinct tasks seen */
	bool have_header, ended;
	uint32_t source, hz, ncpus;
} prof_counts_t;

#define PROF_STYLE_SYSTEM 0             /* sprofile: summary, per task, % samples task symbol */
#define PROF_STYLE_TASK 1               /* profile: seed B.4, address samples % symbol */

typedef struct prof_report_opts {
	unsigned style;                 /* PROF_STYLE_* */
	unsigned threshold_centi;       /* hide rows below this many 1/100 % (default 50) */
	bool tree;                      /* -g: caller/callee tree */
	const char *kernel_path;        /* NULL: "/boot/kernel" */
} prof_report_opts_t;

typedef struct prof_report prof_report_t;

/* A new, empty report using env (copied). ENOMEM or EOK. */
errno_t prof_report_new(const prof_env_t *env, prof_report_t **out);

/*
 * Add stream bytes. EOK; EINVAL for a malformed stream (bad magic in
 * the first record, a record size below 16 or not a multiple of 8);
 * ENOTSUP for a version outside PROF_VERSION_MIN..PROF_VERSION; ENOMEM.
 * Unknown record types are skipped.
 */
errno_t prof_report_feed(prof_report_t *r, const void *data, size_t len);

/* The totals so far. */
void prof_report_counts(const prof_report_t *r, prof_counts_t *c);

/* Print the report of everything fed so far. EOK or ENOMEM. */
errno_t prof_report_print(prof_report_t *r, const prof_report_opts_t *o);

/* Name of a source ("pmc", "rtc", "rtc-nmi", "timer"), "?" if unknown. */
const char *prof_source_name(unsigned source);

/* PROF_SRC_* of a name (also "default"), or -1. */
int prof_source_parse(const char *name);

void prof_report_free(prof_report_t *r);

/* One row of the function table (a task's samples in one function). */
typedef struct prof_row_info {
	uint64_t task_id;               /* PROF_ROW_IDLE for idle CPUs */
	const char *task;               /* the task's name, "[idle]" for idle CPUs */
	const char *binary;             /* path of the function's binary, "" if unknown */
	uint64_t hash;                  /* that file's hash from LOAD; 0: unknown (the kernel) */
	const char *function;           /* symbol, or the address in hex */
	bool kernel;                    /* a kernel function */
	uint64_t count;                 /* samples */
} prof_row_info_t;

#define PROF_ROW_IDLE UINT64_MAX

/*
 * Symbolize what was fed (as prof_report_print does with o; its style
 * and threshold are ignored: every row comes) and call fn(ctx, row) for
 * each (task, function) row, most samples first; the strings live until
 * fn returns. Stops at fn's first error and returns it; else EOK or ENOMEM.
 */
errno_t prof_report_rows(prof_report_t *r, const prof_report_opts_t *o,
			 errno_t (*fn)(void *ctx, const prof_row_info_t *row), void *ctx);

#endif
