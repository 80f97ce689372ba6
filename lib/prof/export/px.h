/*
 * What the exports share (lib/prof/export/, inside lib/prof only): the
 * model one walk of a report's stacks builds (px_t: tasks, functions,
 * binaries, the distinct stacks and their frames, root first), its
 * memory, buffers and string map, and the helpers more than one format
 * calls. Each format's writer is one file: folded.c, pprof.c,
 * callgrind.c, speedscope.c, svg.c, gmon.c, perf.c, trace.c; pbuf.c holds the protocol
 * buffer, profile.proto and gzip encoders, cgfile.c callgrind's lines,
 * gmonfile.c gmon.out's records (the call profile writes with these
 * too), format.c the format names, export.c the model and prof_export
 * (lib/profexport.h).
 */
#ifndef LIB_PROF_EXPORT_PX_H
#define LIB_PROF_EXPORT_PX_H

#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/profcore.h>
#include <lib/profexport.h>
#include <lib/string.h>
#include <stdarg.h>
#include <stdint.h>

#define PX_NONE UINT32_MAX
#define PX_CHUNK 65536                  /* arena chunk for copied strings */
#define PX_GZ_BLOCK 65535               /* a stored deflate block at most */

/* ---------------------------------------------------------------- types */

typedef struct px_func {
	const char *name;               /* NULL until a frame names it */
	uint32_t bin;
	uint64_t start;
	bool kernel, known;
} px_func_t;

typedef struct px_task {
	uint64_t id;
	const char *name;
	bool shared;                    /* another task has the same name */
} px_task_t;

typedef struct px_stack {
	uint32_t task;                  /* index in tasks */
	uint32_t cpu;
	uint64_t thread;
	uint8_t mode;
	uint64_t count;
	uint64_t ns;                    /* the time its samples stand for (their weights) */
	uint32_t first, n;              /* frames[first .. first + n), root first */
	uint64_t origin, server;        /* serving a call: whose, and who (ids); else 0 */
} px_stack_t;

typedef struct px_frame {
	uint32_t func;
	uint64_t addr;
} px_frame_t;

/*
 * A byte string (copied into the arena) and its 64-bit value: the key and
 * value of an entry of a string-keyed prof_map_t (px_map_t), in place.
 */
typedef struct px_entry {
	const char *key;
	size_t len;
	uint64_t val;
} px_entry_t;

typedef prof_map_t px_map_t;

typedef struct px_chunk {
	struct px_chunk *next;
	size_t used, size;
	char data[];
} px_chunk_t;

/* A growable byte buffer; err is sticky (its env is set on each put). */
typedef prof_buf_t px_buf_t;

typedef struct px {
	prof_report_t *r;               /* the report walked (its kept records: perf) */
	const prof_env_t *env;
	const prof_export_opts_t *o;
	const prof_export_out_t *out;
	errno_t err;                    /* sticky */
	prof_counts_t c;
	uint64_t total;
	px_func_t *funcs;
	uint32_t nfuncs;
	const char **bins;              /* paths by binary id */
	uint32_t nbins;
	px_task_t *tasks;
	size_t ntasks, cap_tasks;
	px_stack_t *stacks;
	size_t nstacks, cap_stacks;
	px_frame_t *frames;
	size_t nframes, cap_frames;
	px_chunk_t *arena;
	px_buf_t line;                  /* scratch */
} px_t;

/* ---------------------------------------------------------------- export.c */

/* A buffer of x as a byte sink (px_sink). */
typedef struct px_sink {
	px_t *x;
	px_buf_t *b;
} px_sink_t;

/* Append len bytes of s to the buffer of ctx (a px_sink_t): a fmt_sink_t. */
void px_sink(void *ctx, const char *s, size_t len);

/* env.alloc of size bytes; NULL (x->err ENOMEM) without memory. */
void *px_alloc(px_t *x, size_t size);

/* env.release of p (NULL: nothing). */
void px_release(px_t *x, void *p);

/* Room for n + 1 elements of size in *arr (capacity *cap); false: ENOMEM. */
bool px_reserve(px_t *x, void **arr, size_t *cap, size_t n, size_t size);

/* Keep b's error as x's (sticky both). */
void px_buf_err(px_t *x, const px_buf_t *b);

/* Append len bytes of data to b; without memory b's and x's err become ENOMEM. */
void px_buf_put(px_t *x, px_buf_t *b, const void *data, size_t len);

/* Append the string s to b. */
void px_buf_str(px_t *x, px_buf_t *b, const char *s);

/* Release b's bytes and empty it. */
void px_buf_free(px_t *x, px_buf_t *b);

/* Append printf-style text (lib/fmt.h) to b. */
__attribute__((format(printf, 3, 4)))
void px_buf_printf(px_t *x, px_buf_t *b, const char *fmt, ...);

/* Write the buffer to the output and empty it. */
void px_buf_flush(px_t *x, px_buf_t *b);

/* Flush when more than 64 KiB wait (for large text outputs). */
void px_buf_maybe_flush(px_t *x, px_buf_t *b);

/* Append s to b as a JSON string (quotes, escapes). */
void px_json_str(px_t *x, px_buf_t *b, const char *s);

/*
 * The entry of key (len bytes), added with val 0 when new (its key a copy
 * in the arena); NULL: ENOMEM.
 */
px_entry_t *px_map_get(px_t *x, px_map_t *m, const void *key, size_t len, bool *added);

/* The entry in slot i of m, or NULL when the slot is empty. */
px_entry_t *px_map_at(const px_map_t *m, size_t i);

/* Release m's slots (the keys stay in the arena until px_free). */
void px_map_free(px_t *x, px_map_t *m);

/* Release everything the model x holds (x itself is the caller's). */
void px_free(px_t *x);

/* The last path component of a binary's path ("?" for none). */
const char *px_bin_base(const px_t *x, uint32_t bin);

/*
 * Tasks' names for the formats that read the kept records (perf, trace):
 * task id -> its TASK record, and -> its last LOAD record (pointers
 * into the report's kept records).
 */
typedef struct px_names {
	px_map_t names, progs;
} px_names_t;

#define PX_NAME_MAX 40                  /* px_names_get's buffer: a TASK name or a file name's start */

/* Note a kept TASK (its name) or LOAD record (the task's program) in n; others: nothing. */
void px_names_note(px_t *x, px_names_t *n, const void *rec, size_t len);

/* The last LOAD record noted for task, or NULL. */
const prof_rec_load_t *px_names_prog(px_t *x, px_names_t *n, uint64_t task);

/*
 * Task's name as the report gives it, into buf (size bytes): its TASK
 * record's, else its program's file name, else "kernel" for 0, else "?".
 */
const char *px_names_get(px_t *x, px_names_t *n, uint64_t task, char *buf, size_t size);

/* Release n's maps. */
void px_names_free(px_t *x, px_names_t *n);

/* ---------------------------------------------------------------- folded.c */

/* Write the folded format of the model to x->out. */
void px_folded(px_t *x);

/* ---------------------------------------------------------------- pbuf.c */

/* A bare varint into b (x->err on ENOMEM). */
void px_pb_varint(px_t *x, px_buf_t *b, uint64_t v);

/* A varint field into b (x->err on ENOMEM). */
void px_pb_uint(px_t *x, px_buf_t *b, unsigned field, uint64_t v);

/* A length-delimited field of len bytes of data into b (x->err on ENOMEM). */
void px_pb_bytes(px_t *x, px_buf_t *b, unsigned field, const void *data, size_t len);

/* ---------------------------------------------------------------- pprof.c */

/* Write the gzipped pprof profile of the model to x->out. */
void px_pprof(px_t *x);

/* ---------------------------------------------------------------- callgrind.c */

/* Is frame i's function found deeper in the stack (frames i+1 .. n-1)? */
bool px_frame_deeper(const px_frame_t *fr, uint32_t i, uint32_t n);

/* Write the callgrind format of the model to x->out. */
void px_callgrind(px_t *x);

/* ---------------------------------------------------------------- speedscope.c */

/* Write the speedscope JSON of the model to x->out. */
void px_speedscope(px_t *x);

/* ---------------------------------------------------------------- svg.c */

/* Write the model as an svg flame graph to x->out. */
void px_svg(px_t *x);

/* ---------------------------------------------------------------- gmon.c */

/* Write one gmon.out per sampled binary (x->out->open names each). */
void px_gmon(px_t *x);

/* ---------------------------------------------------------------- perf.c */

/* Write a perf.data file of the report's kept records (prof_report_records). */
void px_perf(px_t *x);

/* ---------------------------------------------------------------- trace.c */

/* Write the trace-event JSON timeline of the report's kept records to x->out. */
void px_trace(px_t *x);

#endif
