/*
 * Shared by the profiler report unit tests (test_cprofreport, test_profdiff,
 * test_profexport, test_profreport): a fake prof_env_t whose memory is
 * counted and can be made to fail, whose loader serves in-memory files and
 * whose output collects into one string; and a growable byte buffer with
 * builders for the records of a profiler stream (abi/profile.h).
 */
#ifndef TEST_PROF_TESTUTIL_H
#define TEST_PROF_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <abi/profile.h>
#include <lib/profreport.h>

/* ---------------------------------------------------------------- fake env */

typedef struct pt_file {
	const char *path;
	const void *data;
	size_t size;
} pt_file_t;

#define PT_MAX_FILES 8

extern pt_file_t pt_files[PT_MAX_FILES];   /* what pt_env's load serves */
extern size_t pt_nfiles;
extern long pt_live_allocs;     /* allocations not yet released */
extern long pt_alloc_budget;    /* allocations left before all fail; -1: unlimited */
extern long pt_fail_at;         /* the one allocation (from 0) that fails; -1: none */
extern long pt_nallocs;         /* allocations counted while pt_fail_at >= 0 */
extern unsigned pt_loads;       /* calls of load */
extern char *pt_out;            /* everything output, NUL-terminated (NULL at first) */
extern size_t pt_out_len;
/* alloc, release, load and out below, with a NULL ctx. */
extern const prof_env_t pt_env;

/* Memory from malloc, counted; NULL when pt_fail_at or pt_alloc_budget say so. */
void *pt_alloc(void *ctx, size_t size);
/* Free p (from pt_alloc) and count it released (NULL: nothing). */
void pt_release(void *ctx, void *p);
/* A copy of the pt_files entry named path (from pt_alloc); EOK, ENOENT or ENOMEM. */
errno_t pt_load(void *ctx, const char *path, void **data, size_t *size);
/* Append len bytes to pt_out (keeping it NUL-terminated). */
void pt_write(void *ctx, const void *s, size_t len);
/* pt_write for text (prof_env_t's out). */
void pt_out_text(void *ctx, const char *s, size_t len);
/* Serve size bytes of data as path (at most PT_MAX_FILES; aborts beyond). */
void pt_add_file(const char *path, const void *data, size_t size);

/* Whether text has line (a whole line, without its newline). */
bool pt_has_line(const char *text, const char *line);

/*
 * Make a report (wall clock or not) of len bytes of stream data, fed in
 * pieces of step bytes (0: one piece), and print it with o: the output
 * (malloc'ed), or NULL if the report could not be made. *feed_err gets
 * the feed's result and why the report's error text, each if not NULL.
 */
char *pt_report(const void *data, size_t len, size_t step, bool wall,
		const prof_report_opts_t *o, errno_t *feed_err, char *why, size_t why_size);

/* ---------------------------------------------------------------- stream builder */

typedef struct pt_sb {
	unsigned char *buf;     /* malloc'ed (NULL at first) */
	size_t len, cap;
} pt_sb_t;

/*
 * The stream version the sample builders write (the tests' header
 * builders set it): before 5 a sample has no weight word (its fixed part
 * is PROF_SAMPLE_V4_SIZE bytes). PROF_VERSION at first.
 */
extern uint32_t pt_sb_version;

/* Append size bytes of rec to b (grows it; aborts when out of memory). */
void pt_sb_put(pt_sb_t *b, const void *rec, size_t size);
/* Fill record header h. */
void pt_sb_hdr(prof_rec_t *h, unsigned type, size_t size, uint64_t tsc);
/* Append a TASK record (tsc 1) for task id called name. */
void pt_sb_task(pt_sb_t *b, uint64_t id, const char *name);
/* Append a LOAD record (tsc 1) of path into task: text 0x401000-0x402000. */
void pt_sb_load(pt_sb_t *b, uint64_t task, const char *path, uint64_t hash);
/*
 * Append count copies of sample s (its h.cpu kept) followed by its
 * s->nchain words of chain; copy i has TSC tsc + i.
 */
void pt_sb_samples(pt_sb_t *b, unsigned count, const prof_rec_sample_t *s,
		   const uint64_t *chain, uint64_t tsc);
/* The same with ipc (NULL: none) after the chain: samples of a thread serving a call. */
void pt_sb_served(pt_sb_t *b, unsigned count, const prof_rec_sample_t *s,
		  const uint64_t *chain, const prof_ipc_t *ipc, uint64_t tsc);

#endif
