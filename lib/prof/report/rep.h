/*
 * What the parts of the profiler report share (lib/prof/report/, inside
 * lib/prof only): the report's state (prof_report_t: the tasks, the
 * binaries, the maps of stacks, whole stacks, call sites and served
 * time), the print-time state (prof_print_t) and the functions more than
 * one part calls. The parts: model.c (memory, tasks, binaries, life),
 * stream.c (reading records and off-CPU records into the maps),
 * symbols.c (numbers, function names, IPC method names), tables.c (the
 * task and function tables, the caller tree, the print entry), origin.c
 * (the report by origin, -c), wall.c (the wall clock, counted once) and
 * walk.c (the stacks handed to the exports, the rows out).
 */
#ifndef LIB_PROF_REPORT_REP_H
#define LIB_PROF_REPORT_REP_H

#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/profcore.h>
#include <lib/profleaf.h>
#include <lib/profreport.h>
#include <lib/string.h>
#include <stdarg.h>

#define PROF_TREE_DEPTH 4               /* callers kept per sample */
#define PROF_TREE_ROWS 10               /* top rows given a tree */
#define PROF_TREE_FANOUT 5              /* callers shown per level */
#define PROF_MAX_CPUS 256               /* per-CPU throttle counters kept */
#define PROF_REC_MAX 65536              /* record sizes are 16-bit */
#define PROF_NONE UINT32_MAX
#define PROF_SLOT_IDLE UINT32_MAX       /* row "task" of idle samples */

/* ---------------------------------------------------------------- types */

/*
 * What the maps count: samples and the time they stand for, in TSC
 * cycles (a v5 sample's weight; tsc_hz / hz for older ones; an off-CPU
 * record's cycles with the wall clock). Shares are of time.
 */
typedef struct prof_val {
	uint64_t n, t;
} prof_val_t;

static inline void val_add(prof_val_t *v, uint64_t n, uint64_t t)
{
	v->n += n;
	v->t += t;
}

typedef struct prof_task {
	uint64_t id;
	char name[32];
	uint32_t bin;                   /* binary of its last LOAD, or NONE */
	uint64_t samples;
	uint64_t time;                  /* their weight, TSC cycles */
	uint64_t text_start, text_end;  /* its executable range (LOAD) */
} prof_task_t;

/* The key of a function found at print time: its binary, kind, address. */
typedef struct prof_fkey {
	uint32_t bin, known;
	uint64_t addr;
} prof_fkey_t;

typedef profbin_t prof_bin_t;      /* a binary and its symbols (lib/profbin.h) */

/*
 * libc's protocols take methods from IPC_M_LIBC (1 << 48) up
 * (uspace/lib/c/include/ipc.h); the report keys them in 32 bits with the
 * top bit set, the rest as they are.
 */
#define PROF_M_LIBC (1ull << 48)
#define PROF_M_LIBC_CODE 0x80000000u

static inline uint32_t prof_method_code(uint64_t m)
{
	if (m >= PROF_M_LIBC)
		return PROF_M_LIBC_CODE | (uint32_t)((m - PROF_M_LIBC) & 0x7fffffffu);
	return (uint32_t)m;
}

/* The aggregation key of samples (no padding: hashed as bytes). */
typedef struct prof_stack {
	uint32_t slot;                  /* task index */
	uint32_t bin;                   /* binary of user frames, or NONE */
	uint8_t mode, nframes;
	uint16_t kmask;                 /* bit i: frame i is a kernel address */
	uint32_t origin;                /* serving a call: its origin's slot; else NONE */
	uint32_t method;                /* ... the call's method */
	uint32_t nhops;                 /* ... the path's tasks (2..PROF_IPC_HOPS) */
	uint32_t hop[PROF_IPC_HOPS];    /* ... their slots, origin first */
	uint32_t site;                  /* ... the origin's call site (PROF_REC_CALL), or NONE */
	uint32_t off;                   /* off-CPU weight (wall clock): WAIT_WHY_* + 1; else 0 */
	uint32_t wtask, wmethod;        /* ... an IPC wait: the callee's slot, the method code */
	uint64_t frame[1 + PROF_TREE_DEPTH]; /* pc (0 when off), then return addresses */
	uint64_t top[PROF_TOP_WORDS];   /* top words in the text, else 0 */
} prof_stack_t;

/*
 * The key of a whole stack for prof_report_walk (no padding): frame[]
 * holds 1 + the report's xdepth entries (zero past nframes); the first
 * nkern frames are kernel addresses.
 */
typedef struct prof_xkey {
	uint32_t slot, bin;
	uint64_t thread;
	uint32_t cpu;
	uint8_t mode, nkern, nframes;
	uint8_t off;                    /* as in prof_stack_t; nkern then counts chain[] only */
	uint32_t origin, method;        /* as in prof_stack_t */
	uint32_t wtask, wmethod;        /* as in prof_stack_t */
	uint64_t site;                  /* the origin's call site + 1 (0: none) */
	uint64_t top[PROF_TOP_WORDS];
	uint64_t frame[];
} prof_xkey_t;

#define PROF_XKEY_MAX (sizeof(prof_xkey_t) + (1 + PROF_DEPTH_MAX) * 8)

/*
 * Who waited on whom (wall clock), as task slots: the origin of the work,
 * the task that waited (the origin itself, or a server working for it)
 * and the server it called. What a server did for such a wait (its
 * samples, and its own waits while serving) is kept under this key until
 * rep_wall_settle takes it out of the waits.
 */
typedef struct prof_wkey {
	uint32_t origin, waiter, callee;
	uint32_t zero;                  /* 16 bytes: the map's values stay 8-aligned */
} prof_wkey_t;

/*
 * A call site: an origin's distinct stack (PROF_REC_CALL records with the
 * same task and chain share one), its words in the report's cwords.
 */
typedef struct prof_callstk {
	uint32_t slot;                  /* the origin task */
	uint32_t n;                     /* words: the call's pc, return addresses */
	size_t off;                     /* in cwords */
} prof_callstk_t;

/* The key of a call site: the origin's slot and chain, zero past n. */
typedef struct prof_sitekey {
	uint32_t slot, n;
	uint64_t w[PROF_IPC_STACK_MAX];
} prof_sitekey_t;

/* A CPU's part of the stream (v5 report head). */
typedef struct prof_rec_cpu {
	uint64_t samples, lost;
	uint64_t missed_first, missed_last; /* PROF_REC_MISSED: the base and the latest */
	bool missed_seen;
} prof_rec_cpu_t;

struct prof_report {
	prof_env_t env;
	errno_t error;                  /* sticky EINVAL */
	char why[80];                   /* the reason of error */
	uint64_t nsamples;              /* sample records read (for reasons) */
	bool x_by_origin;               /* prof_report_set_origin */
	bool wall;                      /* prof_report_set_wall */
	uint64_t off_acc;               /* off-CPU weight carried: cycles * hz mod tsc_hz */
	uint64_t x_origin;
	uint32_t cur_site;              /* the sample being read: its call site, or NONE */
	prof_map_t calls;                   /* PROF_REC_CALL id -> its site (index in cstk) */
	prof_map_t sites;                   /* prof_sitekey_t -> index in cstk */
	prof_callstk_t *cstk;
	size_t ncstk, cap_cstk;
	uint64_t *cwords;               /* their chains, one after another */
	size_t ncwords, cap_cwords;
	prof_rec_header_t header;
	uint64_t tsc_last;
	prof_counts_t c;
	uint64_t lost_recs, end_lost, end_throttled;
	uint64_t cpu_skipped[PROF_MAX_CPUS];
	uint64_t cur_w;                 /* the sample being read: its weight (TSC cycles) */
	prof_rec_cpu_t cpu[PROF_MAX_CPUS]; /* per CPU: samples, lost, missed (report head) */
	prof_task_t *tasks;
	size_t ntasks, cap_tasks, last_task;
	prof_bin_t *bins;
	size_t nbins, cap_bins;
	prof_map_t stacks;                  /* prof_stack_t -> prof_val_t */
	prof_filter_t filter;           /* prof_report_setup */
	char filter_name[32];
	bool xon;                       /* keep whole stacks in xstacks */
	uint32_t xdepth;                /* return addresses per xkey */
	prof_map_t xstacks;                 /* prof_xkey_t -> prof_val_t */
	prof_map_t served;                  /* prof_wkey_t -> served prof_val_t not yet taken from waits */
	bool keep;                      /* prof_report_keep_records */
	prof_buf_t log;                 /* ... the records kept, one after another */
	size_t pend_len;
	uint64_t pend[PROF_REC_MAX / 8];
	uint64_t norm[PROF_REC_MAX / 8 + 1]; /* an older sample in v5 layout */
};

/* One function, found at print time. */
typedef struct prof_func {
	const char *name;               /* NULL: unknown, use hex */
	uint64_t addr;                  /* symbol start, or the pc if unknown */
	uint32_t bin;                   /* its binary, or PROF_NONE */
	bool kernel;
	char hex[24];
} prof_func_t;

typedef struct prof_row {
	uint32_t slot, func;
	uint64_t count;
	uint64_t time;                  /* TSC cycles */
} prof_row_t;

/* Print-time state. */
typedef struct prof_print {
	prof_report_t *r;
	const prof_report_opts_t *o;
	uint32_t kbin;
	prof_map_t fmap;                    /* (bin, known, addr) -> func index */
	prof_func_t *funcs;
	size_t nfuncs, cap_funcs;
	uint32_t *sfunc;                /* per stack slot: 1 + DEPTH func ids */
	uint8_t *nframes;               /* per stack slot: frames after the leaf fix */
	uint64_t leaf_fixed;            /* stacks whose caller came from the top words */
	prof_row_t *rows;
	size_t nrows;
	uint64_t total;                 /* samples in the rows */
	uint64_t ttotal;                /* their time, TSC cycles: what shares are of */
	char **names;                   /* "[ipc S.M]" names made (freed with pp) */
	size_t nnames, cap_names;
} prof_print_t;

/* ---------------------------------------------------------------- model.c */

/* A NUL-terminated copy of len bytes of s; NULL without memory. */
char *rep_strdup(prof_report_t *r, const char *s, size_t len);

/* Index of task id, added (nameless) when new; PROF_NONE without memory. */
uint32_t rep_task(prof_report_t *r, uint64_t id);

/* Index of the binary at path (len bytes), added when new; NONE on ENOMEM. */
uint32_t rep_bin(prof_report_t *r, const char *path, size_t len);

/*
 * The name of a task slot: its TASK record's, else its program's file
 * name, else "kernel" for task 0, else "?".
 */
const char *rep_task_name(const prof_report_t *r, uint32_t slot);

/* The counts with the lost and throttled totals. */
void rep_totals(const prof_report_t *r, prof_counts_t *c);

/*
 * Keep a record (len bytes, a multiple of 8) in r->log when records are
 * kept (prof_report_keep_records); its offset in the log in *at. EOK or ENOMEM.
 */
errno_t rep_log(prof_report_t *r, const void *rec, size_t len, size_t *at);

/* ---------------------------------------------------------------- symbols.c */

/* Print printf-style text (lib/fmt.h) through r's env.out. */
#define rep_printf(r, ...) fmt_format((r)->env.out, (r)->env.ctx, __VA_ARGS__)

/* n/total in hundredths of a percent, rounded. */
uint64_t rep_centi(uint64_t n, uint64_t total);

/* Print n/total as "ddd.dd%". */
void rep_pct(prof_report_t *r, uint64_t n, uint64_t total);

/* TSC cycles as ns at the stream's tsc_hz (no overflow: split at a second). */
uint64_t rep_ns(const prof_report_t *r, uint64_t cycles);

/* " SAMPLES NS" columns of a row: its samples, then its time in ns. */
void rep_counts(prof_report_t *r, uint64_t n, uint64_t cycles);

/* Function f's name, or its address in hex when it has none. */
const char *pr_fname(const prof_print_t *pp, uint32_t f);

/* Print function f's name, " [k]" after a kernel function. */
void rep_func_name(prof_print_t *pp, uint32_t f);

/*
 * "ID NAME" of a task slot (or "[idle]") into buf: the name of its TASK
 * record, else of its program, else "kernel" for task 0 and "?".
 */
void rep_task_label(prof_report_t *r, uint32_t slot, char *buf, size_t size);

/*
 * The function of addr in binary bin (NONE: unknown); ret: addr is a
 * return address (looked up at addr - 1). PROF_NONE without memory.
 */
uint32_t pr_func(prof_print_t *pp, uint32_t bin, uint64_t addr, bool ret,
		 bool kernel);

/*
 * The function "[ipc SERVER.METHOD]" of task slot server serving method
 * (a name of its own, known, no binary); PROF_NONE without memory.
 */
uint32_t pr_ipc_func(prof_print_t *pp, uint32_t server, uint32_t method);

/*
 * The leaf of an off-CPU stack (off: WAIT_WHY_* + 1): "[off-cpu: REASON]",
 * for an IPC wait "[off-cpu: wait SERVER.METHOD]" (the callee wtask's
 * name); PROF_NONE without memory.
 */
uint32_t pr_off_func(prof_print_t *pp, uint32_t off, uint32_t wtask, uint32_t wmethod);

/*
 * The caller of a sample at pc (in the kernel, or in binary ubin) whose
 * function had not set up its frame, from the top words; 0 if none.
 */
uint64_t pr_leaf_caller(prof_print_t *pp, bool kernel, uint32_t ubin, uint64_t pc,
			const uint64_t *top);

/* Map the frames of the stack in map slot i to functions (pp->sfunc). */
errno_t pr_stack_funcs(prof_print_t *pp, size_t i);

/* The key of the stack in map slot i (in use); its value in *v. */
const prof_stack_t *pr_stack(const prof_print_t *pp, size_t i, prof_val_t *v);

/* The row slot of a stack: its task, [idle], or 0 for the task style. */
uint32_t pr_slot(const prof_print_t *pp, const prof_stack_t *s);

/* Sum the stacks into rows (slot, function) in pp->rows. */
errno_t pr_rows(prof_print_t *pp);

/* Rows: most time first, then most samples, by name and task for a stable order. */
int pr_row_cmp(const void *a, const void *b, void *ctx);

/* ---------------------------------------------------------------- tables.c */

/* Is a row of time t (TSC cycles) below the threshold share? */
bool pr_hidden(const prof_print_t *pp, uint64_t t);

/* Say how many rows the threshold hid (nothing for none). */
void pr_hidden_line(prof_print_t *pp, size_t hidden);

/* Release what pr_prepare and printing made. */
void pr_free(prof_print_t *pp);

/* Ready pp to print: the kernel binary, the stacks' functions, the rows. EOK or ENOMEM. */
errno_t pr_prepare(prof_print_t *pp);

/* Print the report (summary, tables, tree or by origin). EOK or ENOMEM. */
errno_t pr_body(prof_print_t *pp);

/* ---------------------------------------------------------------- origin.c */

/*
 * The report by origin (after the summary): the table, then the part of
 * each origin that others served (or of opts.origin).
 */
errno_t pr_by_origin(prof_print_t *pp);

/* ---------------------------------------------------------------- wall.c */

/*
 * A wall-clock report that gives each caller the work done for it (a
 * task session, or by origin) counts a moment once: while a thread waits
 * for a call, what the server did for it (its samples, and its own
 * waits while serving: for the next server of a chain, which are settled
 * the same way, or for the CPU) stands for that time, so it is taken out
 * of the wait's weight (by origin, waiter and server, in proportion over
 * the wait's stacks); what remains is time nobody worked for the call.
 * Idempotent; later data is settled later.
 */
errno_t rep_wall_settle(prof_report_t *r, bool by_origin);

#endif
