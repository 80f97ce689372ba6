/*
 * top: the system at a glance, from the sysinfo tree (abi/sysinfo.h),
 * full screen on the console or as plain-text snapshots (batch mode).
 *
 *   snapshot.c  read one snapshot of the sysinfo nodes (Vernier only)
 *   compute.c   deltas and shares between two snapshots, the rows of each
 *               view, sorting (pure: also built on the host and tested)
 *   format.c    text of times, sizes, counts, bars; the -d argument (pure)
 *   render.c    the text of one frame, for the screen or batch (pure)
 *   keys.c      what each key does to the view state (pure)
 *   term.c      the console: raw mode, size, the key reader thread
 *   main.c      options, the refresh loop, the cost measurement
 *
 * Percentages are shares of the TSC cycles elapsed between two snapshots
 * (system.cycles). A CPU line: that CPU's busy, idle and irq cycle deltas
 * over their sum (they add up to 100%). A task, thread or vector: its
 * cycle delta over the elapsed cycles, a share of one CPU: a thread that
 * spun through the interval is 100%, a task can reach CPUs x 100%. With
 * no previous snapshot (the first frame) the shares are since boot.
 */
#ifndef TOP_H
#define TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/sysinfo.h>
#include <lib/numentry.h>
#include <stats.h>

#define TOP_COLS_MAX 16
#define TOP_NS_PER_S 1000000000ull

/* ---------------------------------------------------------- snapshots */

/* Storage of one data node: a sysinfo_*_t array. */
typedef struct top_buf {
	void *data;
	size_t cap;               /* bytes of records */
} top_buf_t;

typedef struct top_snap {
	uint64_t cycles;          /* system.cycles at the read */
	uint64_t tsc_hz;
	uint64_t uptime_ns;
	uint64_t realtime_ns;     /* CLOCK_REALTIME */
	sysinfo_physmem_t mem;
	sysinfo_load_t load;
	top_buf_t cpus, tasks, threads, vecs;
	size_t ncpus, ntasks, nthreads, nvecs;
} top_snap_t;

static inline const sysinfo_cpu_t *top_cpus(const top_snap_t *s)
{
	return s->cpus.data;
}

static inline const sysinfo_task_t *top_tasks(const top_snap_t *s)
{
	return s->tasks.data;
}

static inline const sysinfo_thread_t *top_threads(const top_snap_t *s)
{
	return s->threads.data;
}

static inline const sysinfo_vector_t *top_vecs(const top_snap_t *s)
{
	return s->vecs.data;
}

/*
 * snapshot.c: read every node top shows into s with <stats.h> (new
 * buffers; the previous read's are freed). EOK, or the error of the first
 * node that could not be read.
 */
errno_t top_snap_read(top_snap_t *s);
/* Free the buffers of s. */
void top_snap_free(top_snap_t *s);

/* ---------------------------------------------------------- compute.c */

/* Two snapshots compared by a frame. */
typedef struct top_pair {
	const top_snap_t *prev;
	const top_snap_t *cur;
	uint64_t elapsed;         /* TSC cycles between them, at least 1 */
} top_pair_t;

/* Per mille shares of one CPU's cycles in the interval (<stats.h>'s). */
typedef stats_cpu_pct_t top_cpu_share_t;

/* Task and thread counts of a snapshot (by SYSINFO_THREAD_* state). */
typedef struct top_counts {
	size_t tasks;
	size_t threads;
	size_t state[4];
	size_t other;             /* threads in a state top does not know */
} top_counts_t;

/* Ready to compare: prev's arrays sorted by id, elapsed at least 1. */
void top_pair_init(top_pair_t *p, const top_snap_t *prev, const top_snap_t *cur);
/*
 * Make zero the snapshot "at boot" before cur: no tasks, threads, CPU or
 * vector counts, cycles cur's minus its uptime. No buffers (nothing to
 * free).
 */
void top_snap_at_boot(top_snap_t *zero, const top_snap_t *cur);
/* Sort the task, thread and vector arrays of s by id (for lookups). */
void top_snap_sort(top_snap_t *s);
/* The task with id in s (sorted), or NULL. */
const sysinfo_task_t *top_find_task(const top_snap_t *s, uint64_t id);
/* The thread with id in s (sorted), or NULL. */
const sysinfo_thread_t *top_find_thread(const top_snap_t *s, uint64_t id);
/* The vector numbered vector in s (sorted), or NULL. */
const sysinfo_vector_t *top_find_vec(const top_snap_t *s, uint32_t vector);
/* The CPU with id in s, or NULL. */
const sysinfo_cpu_t *top_find_cpu(const top_snap_t *s, uint32_t id);

/* a * b / c without overflow (c > 0; the result saturates at 2^64-1). */
uint64_t top_muldiv(uint64_t a, uint64_t b, uint64_t c);
/* now - before, or 0 if the counter went backwards (a reused id). */
uint64_t top_delta(uint64_t now, uint64_t before);
/* part / whole in tenths of a percent, rounded; 0 when whole is 0. */
unsigned top_permille(uint64_t part, uint64_t whole);
/* Cycles to milliseconds at tsc_hz (0 when the frequency is unknown). */
uint64_t top_ms(uint64_t cycles, uint64_t tsc_hz);
/* A count's increase over the interval of p, per second. */
uint64_t top_rate(const top_pair_t *p, uint64_t delta);
/* Shares of CPU i of p->cur over the interval. */
void top_cpu_shares(const top_pair_t *p, size_t i, top_cpu_share_t *out);
/* Count the tasks and threads of s. */
void top_count(const top_snap_t *s, top_counts_t *c);

/* ----------------------------------------------------------- tables */

typedef enum top_view {
	TOP_VIEW_TASKS, TOP_VIEW_IPC, TOP_VIEW_VECTORS, TOP_VIEW_CPUS,
	TOP_VIEW_THREADS, TOP_VIEW_COUNT,
} top_view_t;

/* How a column's value is shown. */
typedef enum top_kind {
	TOP_K_INT,                /* a decimal number */
	TOP_K_COUNT,              /* a number, shortened with K/M/G/T */
	TOP_K_PERMILLE,           /* tenths of a percent: 12.5 */
	TOP_K_MS,                 /* milliseconds as M:SS.hh */
	TOP_K_BYTES,              /* with K/M/G/T (powers of 1024) */
	TOP_K_STATE,              /* a thread state letter: R r S Z */
	TOP_K_TEXT,               /* the row's text (the last column) */
	TOP_K_WAIT,               /* the row's wait (a thread's: "sleep", "ipc fs.READ") */
} top_kind_t;

typedef struct top_col {
	const char *title;
	unsigned width;           /* 0: as long as the text (last column) */
	top_kind_t kind;
	bool desc;                /* sorted biggest first unless reversed */
} top_col_t;

typedef struct top_viewdef {
	const char *name;         /* "tasks" */
	char key;                 /* the key that shows it */
	const top_col_t *cols;
	unsigned ncols;
	unsigned sort;            /* the column sorted by at first */
} top_viewdef_t;

typedef struct top_row {
	uint64_t v[TOP_COLS_MAX]; /* one value per column but TEXT (WAIT: the reason) */
	char text[SYSINFO_NAME_MAX];
	char wait[32];
} top_row_t;

typedef struct top_table {
	const top_viewdef_t *def;
	top_row_t *rows;
	size_t nrows, cap;
} top_table_t;

/* The definition of view v. */
const top_viewdef_t *top_view(top_view_t v);
/*
 * Fill t with the rows of view v over p (threads: of task, or all when
 * task is 0), unsorted. EOK or ENOMEM.
 */
errno_t top_table_build(top_table_t *t, const top_pair_t *p, top_view_t v,
			uint64_t task);
/* Sort t by column col (in its natural order, or the other way round). */
void top_table_sort(top_table_t *t, unsigned col, bool reverse);
/*
 * Order of rows a and b by column col of def: <0, 0, >0. Ties go to
 * the first column, ascending.
 */
int top_row_cmp(const top_viewdef_t *def, unsigned col, bool reverse,
		const top_row_t *a, const top_row_t *b);
/* Free the rows of t. */
void top_table_free(top_table_t *t);

/* ----------------------------------------------------------- format.c */

/*
 * Each writes a '\0'-terminated text into buf of n bytes (cut if short).
 * Shares and load averages use <stats.h>'s stats_fmt_permille and
 * stats_fmt_load. Sizes and the uptime differ from stats_fmt_bytes and
 * stats_fmt_uptime on purpose: a column of top is narrow, so a size has no
 * decimal from 100 units and takes the next unit at 1000 ("100K", "1.0M",
 * where stats writes "100.0K", "1023.4K"), and the header's uptime is
 * "1:02:03" like procps top's, not stats' "0 days, 01:02:03".
 */
void top_fmt_ms(char *buf, size_t n, uint64_t ms);
void top_fmt_bytes(char *buf, size_t n, uint64_t bytes);
void top_fmt_count(char *buf, size_t n, uint64_t v);
/* "[|||   ]": width cells inside the brackets, pm per mille of them full. */
void top_fmt_bar(char *buf, size_t n, unsigned pm, unsigned width);
/* HH:MM:SS of a CLOCK_REALTIME time (UTC). */
void top_fmt_clock(char *buf, size_t n, uint64_t realtime_ns);
/* "1:02:03" or "3 days, 1:02:03". */
void top_fmt_uptime(char *buf, size_t n, uint64_t uptime_ns);
/* Column ci of row r as text (not padded). */
void top_fmt_cell(char *buf, size_t n, const top_col_t *c,
		  const top_row_t *r, unsigned ci);
/*
 * Parse decimal seconds ("2", "0.5", ".25") into *ns; false if s is not
 * such a number or it is not in [min_ns, max_ns].
 */
bool top_parse_seconds(const char *s, uint64_t min_ns, uint64_t max_ns,
		       uint64_t *ns);
/* Parse a decimal number in [min, max] into *out; false if it is not. */
bool top_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* ------------------------------------------------------------- keys.c */

#define TOP_NOTE_MAX 112

typedef struct top_ui {
	top_view_t view;
	unsigned sort[TOP_VIEW_COUNT];    /* column sorted by, per view */
	bool reverse[TOP_VIEW_COUNT];
	uint64_t task;            /* threads view: of this task (0: all) */
	bool help;                /* the help screen is up */
	num_entry_t entry;        /* a task id being typed after T */
	bool quit;
	bool dump;                /* R: dump the flight recorder (main.c does) */
	unsigned dumps;           /* the dumps asked for so far */
	char note[TOP_NOTE_MAX];  /* the last dump's outcome, shown until a key */
} top_ui_t;

/* The starting state: view v, each view sorted its own way. */
void top_ui_init(top_ui_t *ui, top_view_t v, uint64_t task);
/* Apply key c; true if the frame should be drawn again. */
bool top_ui_key(top_ui_t *ui, char c);
/* Whether key c ends top (the key reader stops after it: term.c's QUIT_KEYS). */
bool top_key_quits(char c);
/* The view shown by key c, or TOP_VIEW_COUNT if c shows none. */
top_view_t top_view_of_key(char c);

/* --------------------------------------------------------- recorder.c */

/*
 * Dump the flight recorder (a PROF_F_RECORDER session) to path, as
 * sprofile -r -o path would; what came of it into note (n bytes).
 */
void top_recorder_dump(const char *path, char *note, size_t n);

/* ----------------------------------------------------------- render.c */

/* Text of a frame, grown as needed. */
typedef struct top_out {
	char *buf;
	size_t len, cap;
	bool screen;              /* escapes, cut to rows x cols */
	unsigned rows, cols;
	unsigned lines;           /* written so far */
	bool failed;              /* out of memory: the text is short */
} top_out_t;

/* Start a frame in o (screen: to rows x cols of the console). */
void top_out_begin(top_out_t *o, bool screen, unsigned rows, unsigned cols);
/* Append one line (printf-style); dropped past the screen's last row. */
void top_out_line(top_out_t *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* End the frame (screen: clear below it). */
void top_out_end(top_out_t *o);
/* Free o's buffer. */
void top_out_free(top_out_t *o);
/*
 * The frame of p in ui's view with the sorted table t: the header (time,
 * uptime, load, counts, CPUs, memory) and the table, or the help screen.
 */
void top_render(top_out_t *o, const top_pair_t *p, const top_ui_t *ui,
		const top_table_t *t);

/* ------------------------------------------------------------- term.c */

/* The console in raw mode and a thread that collects the keys typed. */
typedef struct top_term top_term_t;

/* Take the console (raw mode, cleared); NULL with *rc set if it cannot. */
top_term_t *top_term_open(errno_t *rc);
/* The console's size (25 x 80 if it does not say). */
void top_term_size(top_term_t *t, unsigned *rows, unsigned *cols);
/* Keys typed since the last call into buf (at most n); their count. */
size_t top_term_keys(top_term_t *t, char *buf, size_t n);
/*
 * Clear the screen, restore the console's mode, free t (a key reader
 * still waiting for a key ends with the task).
 */
void top_term_close(top_term_t *t);

#endif
