/*
 * The live view's model (`sprofile -l`, `profile -l`, like `perf top`):
 * per (task, function) row its samples since the start and over the
 * last refresh, a view that filters (user, kernel or all; one task) and
 * sorts them, and what each key does to the view. Freestanding and pure
 * (lib/prof/proflive.c; the tools draw the screen): tested on the host.
 *
 * Use: prof_live_new; at each refresh prof_live_refresh (the report's
 * rows: prof_report_rows) or prof_live_begin and prof_live_add per row;
 * then prof_live_select with the view and prof_live_at for the rows
 * shown; prof_live_key for each key typed; prof_live_free.
 */
#ifndef LIB_PROFLIVE_H
#define LIB_PROFLIVE_H

#include <abi/errno.h>
#include <lib/numentry.h>
#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROF_LIVE_NAME_MAX 32           /* a task's name, NUL included */

/* One task's samples in one function. */
typedef struct prof_live_row {
	uint64_t task;                  /* PROF_ROW_IDLE for idle CPUs */
	char task_name[PROF_LIVE_NAME_MAX];
	const char *func;               /* the symbol, or the address in hex */
	const char *bin;                /* its binary's path, "" if unknown */
	bool kernel;                    /* a kernel function (idle too) */
	uint64_t total;                 /* samples since the start */
	uint64_t last;                  /* ... over the last refresh */
	char *key;                      /* the index's key: task, bin, func */
} prof_live_row_t;

/* The columns, in screen order; the view sorts by one of them. */
typedef enum prof_live_col {
	PROF_LIVE_LAST,                 /* LAST%: share of the last refresh */
	PROF_LIVE_TOTAL,                /* TOTAL%: share since the start */
	PROF_LIVE_SAMPLES,              /* SAMPLES since the start */
	PROF_LIVE_TASK,                 /* TASK: by id */
	PROF_LIVE_FUNC,                 /* FUNCTION: by name */
	PROF_LIVE_NCOLS,
} prof_live_col_t;

/* What the view shows. */
typedef struct prof_live_view {
	prof_live_col_t sort;           /* shares and samples: most first; else ascending */
	unsigned mode;                  /* PROF_XMODE_*: all, user, kernel (and idle) */
	bool by_task;                   /* only task's rows */
	uint64_t task;
} prof_live_view_t;

/* The live view's state of keys. */
typedef struct prof_live_ui {
	prof_live_view_t view;
	bool help;                      /* the help screen is up (any key leaves it) */
	num_entry_t entry;              /* a task id being typed after t */
} prof_live_ui_t;

/* What a key asks of the tool (besides the view prof_live_key changed). */
typedef enum prof_live_act {
	PROF_LIVE_ACT_NONE,             /* nothing to do */
	PROF_LIVE_ACT_DRAW,             /* the view changed: draw again */
	PROF_LIVE_ACT_PAUSE,            /* pause or resume sampling (and draw) */
	PROF_LIVE_ACT_QUIT,             /* end the live view */
} prof_live_act_t;

typedef struct prof_live prof_live_t;

/* A new, empty live table using env (copied). EOK or ENOMEM. */
errno_t prof_live_new(const prof_env_t *env, prof_live_t **out);

/* Start a refresh: every row's last count is 0 until prof_live_add gives it. */
void prof_live_begin(prof_live_t *l);

/*
 * Row r's count since the start (a report row); its last count is the
 * growth since the refresh before (0 if it shrank). EOK or ENOMEM.
 */
errno_t prof_live_add(prof_live_t *l, const prof_row_info_t *r);

/* A refresh from the report's rows (prof_report_rows with o). EOK or ENOMEM. */
errno_t prof_live_refresh(prof_live_t *l, prof_report_t *r, const prof_report_opts_t *o);

/*
 * The rows view v takes (a count since the start, the mode, the task),
 * sorted, for prof_live_at; their sums since the start and over the last
 * refresh (the shares' wholes) to *total and *last. EOK or ENOMEM.
 */
errno_t prof_live_select(prof_live_t *l, const prof_live_view_t *v, uint64_t *total,
			 uint64_t *last);

/* How many rows the last prof_live_select took. */
size_t prof_live_count(const prof_live_t *l);

/* Its row i (i < prof_live_count), in the view's order. */
const prof_live_row_t *prof_live_at(const prof_live_t *l, size_t i);

/* n / whole in 1/100 %, rounded (0 when whole is 0). */
unsigned prof_live_centi(uint64_t n, uint64_t whole);

/* The starting state: sorted by the last refresh, every mode and task. */
void prof_live_ui_init(prof_live_ui_t *ui);

/*
 * Apply key c (the help screen's text in prof_live_help):
 *   < >        sort by the column to the left / right
 *   m          mode: all, user, kernel, all ...
 *   t          a task: type its id and Enter (Enter alone: every task;
 *              Esc: never mind)
 *   a, space   pause / resume sampling
 *   h ?        help (any key leaves it)
 *   q Ctrl-C   quit
 */
prof_live_act_t prof_live_key(prof_live_ui_t *ui, char c);

/* The help screen's lines, NULL-terminated. */
extern const char *const prof_live_help[];

/* A column's title ("LAST%"), and a mode's name ("all", "user", "kernel"). */
const char *prof_live_col_name(prof_live_col_t c);
const char *prof_live_mode_name(unsigned mode);

void prof_live_free(prof_live_t *l);

#endif
