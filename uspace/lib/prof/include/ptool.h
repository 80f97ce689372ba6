/*
 * What the two profilers (/bin/profile: one task, /bin/sprofile: the
 * whole system) share, in ptool.c (sprofile links profile's ptool.o):
 * the common options, the -o sink, and a running session's loop (read
 * the stream, feed the report, keys, live status line, print); under -l
 * the live view instead (plive.c: full screen, like `perf top`).
 */
#ifndef PTOOL_H
#define PTOOL_H

#include <console.h>
#include <lib/profreport.h>
#include <prof.h>
#include <profenv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <psink.h>

#define PTOOL_BUF_SIZE PROF_READ_MAX    /* one DATA_READ */
#define PTOOL_COM2 PSINK_COM2            /* -o com2: the second serial port */

/* The options both tools take (-f -s -d -g -o -c -w -p -l -i -e). */
typedef struct ptool_opts {
	const char *prog;               /* "profile" or "sprofile": messages */
	prof_params_t params;
	uint64_t duration_ns;           /* -d; 0: until q (or the target's end) */
	unsigned threshold_centi;       /* -p, in 1/100 % */
	bool tree;                      /* -g */
	bool by_origin;                 /* -c: the report by origin (IPC-aware) */
	bool wall;                      /* -w: wall clock (PROF_F_OFFCPU, prof_report_set_wall) */
	uint64_t origin;                /* with -c: only this task (0: all) */
	const char *out;                /* -o FILE or "com2"; NULL: none */
	unsigned style;                 /* PROF_STYLE_* */
	const char *keys;               /* the keys that do something */
	bool live;                      /* -l: the live view (plive.c) */
	uint64_t refresh_ns;            /* -r: its refresh period (ptool_opts_check: 1 s) */
} ptool_opts_t;

/* What a key asks for. */
typedef enum ptool_key {
	PTOOL_KEY_NONE,
	PTOOL_KEY_QUIT,                 /* q, Ctrl-C: end, print, exit */
	PTOOL_KEY_PAUSE,                /* a: pause or resume */
	PTOOL_KEY_END,                  /* e: end, print, stay for p and q */
	PTOOL_KEY_PRINT,                /* p: print the table so far */
} ptool_key_t;

/* A session being read. */
typedef struct ptool {
	const ptool_opts_t *o;
	int phone;
	prof_report_t *report;
	psink_t sink;                   /* -o FILE or com2 */
	console_keys_t *keys;           /* NULL: stdin is not a terminal */
	bool status_line;               /* stderr is a terminal */
	uint64_t start_ns, next_status_ns;
	bool end_sent, drained, paused, quit;
	bool end_key;                   /* ended by e: stay for p and q */
	uint64_t target;                /* task session: its id */
	bool target_exited;
	bool end_on_exit;               /* end the session at target's exit (ptool_watch) */
	void (*on_end)(void *arg);      /* called just before we send END (ptool_on_end) */
	void *on_end_arg;
	uint64_t exit_status;           /* its PROF_REC_EXIT status */
	uint8_t *buf;
} ptool_t;

/* Defaults for prog with report style (PROF_STYLE_*) and keys. */
void ptool_opts_init(ptool_opts_t *o, const char *prog, unsigned style,
		     const char *keys);
/*
 * Apply common option c (one of "f:s:d:go:p:cwli:e:") with arg. Returns 1 when
 * applied, 0 for a bad value (a message is printed: a usage error), -1
 * if c is not a common option.
 */
int ptool_option(ptool_opts_t *o, int c, const char *arg);

/*
 * After the options: false (printed: a usage error) for ones that do
 * not go together (-l with -c, -r without -l); sets -r's default.
 */
bool ptool_opts_check(ptool_opts_t *o);

/*
 * The kernel's name of source (PROF_SRC_*; "default" for 0, "?" for one
 * it does not have) into buf (PROF_SRC_NAME_MAX bytes); returns buf.
 */
const char *ptool_source_name(unsigned source, char *buf);

/*
 * Set up t for a session on phone (begun or about to be): the report,
 * the -o sink, the keys (when stdin is a terminal). Prints what fails
 * and returns an exit status (1), or 0.
 */
int ptool_open(ptool_t *t, const ptool_opts_t *o, int phone, uint64_t target);
/*
 * Print the message for a connect or BEGIN error rc (task: the target,
 * 0 for a system session; the source is o's); returns the exit status 1.
 */
int ptool_begin_error(const ptool_opts_t *o, errno_t rc, uint64_t task);
/*
 * Read the session until it has ended and been drained (by q, -d, e or
 * the target's end), then print the report; after e, wait for p and q.
 * Returns the exit status: 0, or 1 after a read error (printed).
 */
int ptool_run(ptool_t *t);
/*
 * In a system session: end the session when task (a PROGRAM started for
 * it) exits, as a task session ends with its target.
 */
void ptool_watch(ptool_t *t, uint64_t task);
/* Call fn(arg) just before we end the session (q, -d, e, a watched task's exit). */
void ptool_on_end(ptool_t *t, void (*fn)(void *arg), void *arg);
/*
 * Start PROGRAM argv[0] (a name in /bin or a path) with argv, stopped if
 * stopped; its id to *id. out NULL: it has the console; else its standard
 * output and error go to the file out (emptied first) and its input reads
 * nothing (the live view owns the screen and the keys). 0, or 1 after
 * printing why it could not start.
 */
int ptool_spawn(const char *prog, char *const argv[], bool stopped, const char *out,
		uint64_t *id);
/* Where -l puts a PROGRAM's output: "/tmp/PROG-live.out" (a static buffer). */
const char *ptool_live_out(const char *prog);
/* Print "PROG: task ID exited with status S" (or "was killed") for wait status st. */
void ptool_print_exit(const char *prog, uint64_t id, uint64_t st);
/*
 * For the live view (plive.c): one DATA_READ (feed, sink, state; EOK or
 * an error, printed); END once; pause or resume sampling; END if -d has
 * passed by now or the watched target has exited.
 */
errno_t ptool_read_once(ptool_t *t);
/*
 * The status line's text ("PROG: N samples, L lost, M missed, R/s, E s",
 * " (paused)") into buf (n bytes) from the session's counters (to *st);
 * false if the kernel did not give them.
 */
bool ptool_status_text(ptool_t *t, prof_status_t *st, char *buf, size_t n);
void ptool_end(ptool_t *t);
void ptool_pause(ptool_t *t);
void ptool_check_end(ptool_t *t, uint64_t now);
/*
 * ptool_run under -l (plive.c): the session full screen, like `perf
 * top`, until q; then the screen cleared and the last status line on
 * stderr. The exit status as ptool_run's.
 */
int ptool_live_run(ptool_t *t);
/* Restore the terminal, close the sink, free the report. */
void ptool_close(ptool_t *t);

#endif
