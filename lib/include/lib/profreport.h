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
	char source_name[PROF_SRC_NAME_MAX];  /* the header's (v6), else the v5 table's */
	uint64_t duration_ns;           /* first record to last */
	uint64_t tsc_last;              /* the latest record's TSC */
	uint64_t ipc;                   /* samples of threads serving a call (v3) */
	uint64_t redacted;              /* ... of them without pc and chain */
	uint64_t offcpu;                /* off-CPU records (v4) the filter took */
	uint64_t offcpu_cycles;         /* ... their TSC cycles off the CPU */
	uint64_t offcpu_weight;         /* ... their weight in samples (wall clock only) */
	uint64_t offcpu_served;         /* ... of it, servers' samples for the wait (counted once) */
	uint64_t cycles;                /* the samples' weight: the time they stand for, TSC cycles (v5) */
	uint64_t idle_cycles;           /* ... of the idle ones */
	uint64_t offcpu_wcycles;        /* off-CPU cycles weighed in (wall clock only) */
	uint64_t missed;                /* clock ticks that never came, all CPUs (v5 MISSED records) */
	uint64_t trace;                 /* trace events (v7 TRACE records) of known kinds */
	uint64_t trace_unknown;         /* ... and of kinds this reader does not know (skipped) */
} prof_counts_t;

#define PROF_STYLE_SYSTEM 0             /* sprofile: summary, per task, % samples task symbol */
#define PROF_STYLE_TASK 1               /* profile: seed B.4, address samples % symbol */

typedef struct prof_report_opts {
	unsigned style;                 /* PROF_STYLE_* */
	unsigned threshold_centi;       /* hide rows below this many 1/100 % (default 50) */
	bool tree;                      /* -g: caller/callee tree */
	const char *kernel_path;        /* NULL: "/boot/kernel" */
	bool by_origin;                 /* -c: the report by origin task (below) */
	uint64_t origin;                /* with by_origin: only this task (0: all) */
} prof_report_opts_t;

typedef struct prof_report prof_report_t;

/* A new, empty report using env (copied). ENOMEM or EOK. */
errno_t prof_report_new(const prof_env_t *env, prof_report_t **out);

/*
 * Add stream bytes. EOK; EINVAL for a malformed stream (bad magic in
 * the first record, a record size below 16 or not a multiple of 8, a
 * sample whose chain does not fit, a damaged v3 IPC block: cut short,
 * 2..PROF_IPC_HOPS hops, depth below them, not ending at the sampled
 * task, redacted with a chain, idle; a TRACE record shorter than
 * prof_rec_trace_t); ENOTSUP for a version outside
 * PROF_VERSION_MIN..PROF_VERSION; ENOMEM. prof_report_error says why.
 * Unknown record types are skipped; v1 and v2 samples have no IPC block.
 * TRACE records (v7) are counted (an unknown kind apart, and skipped);
 * the filter does not apply to them (a timeline needs both sides).
 */
errno_t prof_report_feed(prof_report_t *r, const void *data, size_t len);

/*
 * Why the stream was refused (EINVAL or ENOTSUP from prof_report_feed):
 * a short sentence ("sample 3: ipc block cut short"), or NULL if it was not.
 */
const char *prof_report_error(const prof_report_t *r);

/* Bytes of a record not yet whole (a stream cut short ends with some). */
size_t prof_report_pending(const prof_report_t *r);

/* The totals so far. */
void prof_report_counts(const prof_report_t *r, prof_counts_t *c);

/* Print the report of everything fed so far. EOK or ENOMEM. */
errno_t prof_report_print(prof_report_t *r, const prof_report_opts_t *o);

/*
 * The report by origin (opts.by_origin, `sprofile -c`, `profile -c`,
 * `vprof -C`): work done while serving an IPC call (v3 samples with a
 * prof_ipc_t) is charged to the call's origin task. After the summary, a
 * table of every task's own samples (its threads, serving nothing),
 * imposed samples (other tasks' threads serving its calls) and total,
 * then per origin (most total first; opts.origin: only that one) its
 * imposed samples per server, method and path, and the top functions of
 * its own and imposed samples:
 *
 *   by origin: own (its threads), imposed (others serving its calls)
 *         own  imposed    total       %  task
 *        1000     3000     4000  40.00%  12 ipcload
 *
 *   origin 12 ipcload: 4000 samples, 1000 own, 3000 imposed
 *     imposed by server:
 *        3000  75.00%  [ipc ipcload.WORK]  11 ipcload  path 12 -> 11
 *     imposed by call site (its stack at the call):
 *        3000  75.00%  __vernier_syscall <- do_calls <- client_main <- main
 *     own functions:
 *         900  22.50%  local_work
 *     imposed functions:
 *        3000  75.00%  serve_a  (11 ipcload)
 *
 * Call sites come from PROF_REC_CALL (streams with call chains): the
 * origin's stack when it made the call, innermost first, at most four
 * functions; records with the same task and chain are one site, and
 * the walk by origin puts the whole stack above the [ipc] frame.
 * Percentages in an origin's part are of its total. A redacted sample
 * (pc 0, no chain: the owner may not profile the server) has the one
 * function "[ipc SERVER.METHOD]". Path: the hops' task ids, origin first.
 */

/*
 * "SERVER.METHOD" of a served call into buf (size bytes): method (as in
 * prof_ipc_t) named from a table of the known protocols (fs, console,
 * ns, ipcload; the generic IPC_M_* for any server), else its number
 * ("libc+N" for libc's protocols' IPC_M_LIBC + N).
 */
void prof_ipc_label(const char *server, uint64_t method, char *buf, size_t size);

/*
 * Name of a source of a stream before v6 ("pmc", "rtc", "rtc-nmi",
 * "timer": the sources up to v5, fixed), "?" if unknown. Newer streams
 * carry the kernel's name in their header; tools on a running kernel ask
 * it (sysinfo system.profiler.sources).
 */
const char *prof_source_name(unsigned source);

/* PROF_SRC_* of a v5 name (also "default"), or -1. */
int prof_source_parse(const char *name);

/* The name of h's source into dst (PROF_SRC_NAME_MAX): h's own (v6), else prof_source_name's. */
void prof_source_name_copy(char *dst, const prof_rec_header_t *h);

void prof_report_free(prof_report_t *r);

/* ---------------------------------------------------------------- export */

/*
 * Which samples a report takes (set before feeding; samples outside are
 * not counted at all, by every table and export). mode: PROF_XMODE_*.
 * All zero (a report never set up) takes every sample.
 */
#define PROF_XMODE_ALL 0
#define PROF_XMODE_USER 1               /* user-mode samples */
#define PROF_XMODE_KERNEL 2             /* kernel-mode and idle samples */

typedef struct prof_filter {
	bool by_task;                   /* only task_id, or tasks named task_name */
	uint64_t task_id;
	const char *task_name;          /* NULL: by id (copied by the report) */
	unsigned mode;                  /* PROF_XMODE_* */
	bool by_cpu;                    /* only samples taken on cpu */
	uint32_t cpu;
	bool window;                    /* only samples in [from_ms, to_ms) since the start */
	uint64_t from_ms, to_ms;
} prof_filter_t;

/*
 * Set the filter and whether to keep whole stacks for prof_report_walk
 * (each distinct task, thread, CPU, mode and call chain, up to the
 * stream's depth). Call before the first prof_report_feed. EOK, ENOMEM.
 */
errno_t prof_report_setup(prof_report_t *r, const prof_filter_t *f, bool stacks);

/*
 * Walk stacks by origin (-c for the exports): a stack of a thread
 * serving a call is given to prof_report_walk as its origin task's
 * (task, task_name), with a first frame "[ipc SERVER.METHOD]" (known, no
 * binary) above the server's frames. origin != 0: only that origin's
 * stacks (its own and those served for it). Without it (the default) a
 * serving stack is its task's, and only a redacted one shows the frame.
 */
void prof_report_set_origin(prof_report_t *r, bool by_origin, uint64_t origin);

/*
 * Wall clock (-w, issue 17; set before feeding): each off-CPU record
 * (PROF_REC_OFFCPU, v4) the filter takes becomes a weight of cycles * hz
 * / tsc_hz samples (the header's rates; remainders carried from record
 * to record) on the stack it carries, under a leaf "[off-cpu: REASON]"
 * (REASON a WAIT_WHY_NAMES name) or, for an IPC wait, "[off-cpu: wait
 * SERVER.METHOD]" (prof_ipc_label, the callee's TASK name). Every table,
 * tree and walk then counts on-CPU samples plus off-CPU weights: shares
 * of wall time. The report's stacks keep the user frames (the tree's
 * callers), the walk's whole stacks the kernel frames too (below the
 * user ones, above the leaf). The filter sees a record as a user-mode
 * sample taken when the thread ran again (-m kernel drops them all).
 * Without it, off-CPU records are only counted: the summary says
 * "off-cpu: N records, S s".
 */
void prof_report_set_wall(prof_report_t *r, bool wall);

/*
 * Keep the records the filter takes, for exports of single samples
 * (perf.data, the trace timeline; set before feeding): every HEADER, TASK
 * and LOAD record, each SAMPLE (in v5 layout: its weight set, the nominal
 * tsc_hz / hz for an older one) and OFFCPU record the filter takes, and
 * each TRACE record of a known kind, as read (whole, checked), in stream
 * order. They take memory as the stream does.
 */
void prof_report_keep_records(prof_report_t *r, bool keep);

/*
 * Called once per kept record: len bytes at rec (8-aligned; an older
 * sample's len counts the weight its h.size does not). An error stops the walk.
 */
typedef errno_t (*prof_record_fn_t)(void *ctx, const void *rec, size_t len);

/*
 * Call fn for each record kept (prof_report_keep_records), in stream
 * order. EOK, EINVAL (records were not kept), ENOMEM (some could not
 * be kept), or what fn returned.
 */
errno_t prof_report_records(const prof_report_t *r, prof_record_fn_t fn, void *ctx);

/* One frame of a resolved stack. */
typedef struct prof_frame {
	uint32_t func;                  /* function id: 0 .. nfuncs - 1 in this walk */
	uint32_t bin;                   /* binary id: 0 .. nbins - 1, PROF_BIN_NONE */
	const char *name;               /* function, or the report's hex ("0x401000") */
	const char *path;               /* binary path, NULL if none */
	uint64_t addr;                  /* the PC, or a return address - 1 (the call) */
	uint64_t func_addr;             /* the function's start (the address if unknown) */
	bool known, kernel;             /* a symbol was found; a kernel address */
} prof_frame_t;
#define PROF_BIN_NONE UINT32_MAX

/* One distinct stack and its samples. */
typedef struct prof_xstack {
	uint64_t task, thread;
	const char *task_name;          /* as the report's task column names it */
	uint32_t cpu;
	uint8_t mode;                   /* PROF_MODE_* */
	uint64_t count;                 /* samples (with the wall clock: plus off-CPU weight) */
	uint64_t ns;                    /* the time they stand for (their weights), ns */
	size_t nframes;
	const prof_frame_t *frames;     /* root first, the sampled function last */
	uint64_t server;                /* serving a call: the sampled task; else 0 */
	uint64_t origin;                /* ... the call's origin task */
	uint32_t method;                /* ... and method */
} prof_xstack_t;

/* What a walk saw, for the exporters' headers. */
typedef struct prof_walk_info {
	prof_counts_t c;
	uint32_t nfuncs, nbins;
	uint64_t total;                 /* samples in all stacks */
	uint64_t total_ns;              /* their time, ns */
	const char *kernel_path;
} prof_walk_info_t;

/* Called once per stack; an error stops the walk and is returned by it. */
typedef errno_t (*prof_walk_fn_t)(void *ctx, const prof_walk_info_t *info,
				  const prof_xstack_t *s);

/*
 * Walk the stacks kept (prof_report_setup with stacks) resolved to
 * functions as the report does (leaf callers recovered from the top
 * words), in a fixed order (task, then count descending). Names and
 * paths stay valid until the walk returns. kernel_path: as in
 * prof_report_opts_t. EOK, ENOMEM, EINVAL (stacks were not kept), or
 * what fn returned.
 */
errno_t prof_report_walk(prof_report_t *r, const char *kernel_path, prof_walk_fn_t fn,
			 void *ctx);

/* One row of the function table (a task's samples in one function). */
typedef struct prof_row_info {
	uint64_t task_id;               /* PROF_ROW_IDLE for idle CPUs */
	const char *task;               /* the task's name, "[idle]" for idle CPUs */
	const char *binary;             /* path of the function's binary, "" if unknown */
	uint64_t hash;                  /* that file's hash from LOAD; 0: unknown (the kernel) */
	const char *function;           /* symbol, or the address in hex */
	bool kernel;                    /* a kernel function */
	uint64_t count;                 /* samples */
	uint64_t ns;                    /* the time they stand for, ns */
} prof_row_info_t;

#define PROF_ROW_IDLE UINT64_MAX

/*
 * Symbolize what was fed (as prof_report_print does with o; its style
 * and threshold are ignored: every row comes) and call fn(ctx, row) for
 * each (task, function) row, most time first; the strings live until
 * fn returns. Stops at fn's first error and returns it; else EOK or ENOMEM.
 */
errno_t prof_report_rows(prof_report_t *r, const prof_report_opts_t *o,
			 errno_t (*fn)(void *ctx, const prof_row_info_t *row), void *ctx);

#endif
