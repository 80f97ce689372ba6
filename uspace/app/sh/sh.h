/*
 * sh: the Vernier shell. Reads command lines (edited in the console's raw
 * mode when interactive), splits them into words with quoting and $?
 * (lex.c), groups them into pipelines with redirections (parse.c), and
 * runs them (exec.c) as tasks started through libc's spawn(), connected by
 * file service pipes. Builtins: cd, pwd, exit, help (builtin.c).
 */
#ifndef SH_H
#define SH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <abi/errno.h>
#include <abi/task.h>

#define SH_LINE_MAX 1024
#define SH_ARGS_MAX 64           /* words of one command */
#define SH_CMDS_MAX 8            /* commands of one pipeline */
#define SH_JOBS_MAX 16           /* background jobs */
#define SH_STATUS_NOT_FOUND 127
#define SH_STATUS_CANNOT_RUN 126
#define SH_STATUS_SYNTAX 2

/* ---------------------------------------------------------------- lex.c */

typedef enum sh_tok_kind {
	SH_TOK_WORD, SH_TOK_PIPE, SH_TOK_IN, SH_TOK_OUT, SH_TOK_APPEND,
	SH_TOK_AMP, SH_TOK_SEMI, SH_TOK_END,
} sh_tok_kind_t;

typedef struct sh_tok {
	sh_tok_kind_t kind;
	char *word;                  /* SH_TOK_WORD: the text, in the arena */
} sh_tok_t;

typedef struct sh_lex {
	sh_tok_t toks[SH_LINE_MAX / 2 + 2];
	size_t ntoks;
	char arena[SH_LINE_MAX * 4];
	size_t used;
	int last_status;             /* what $? expands to */
} sh_lex_t;

/*
 * Split line into tokens in lx (lx->last_status set by the caller): words
 * with '...' and "..." quoting, backslash escapes, $? expanded outside
 * single quotes, '#' comments; operators | < > >> & ;. Returns EOK or
 * EINVAL with a message in err (unterminated quote, line too long).
 */
errno_t sh_lex(sh_lex_t *lx, const char *line, char *err, size_t errlen);

/* -------------------------------------------------------------- parse.c */

typedef struct sh_cmd {
	char *argv[SH_ARGS_MAX + 1];
	int argc;
	char *in;                    /* < FILE, or NULL */
	char *out;                   /* > FILE or >> FILE, or NULL */
	bool append;
} sh_cmd_t;

typedef struct sh_pipeline {
	sh_cmd_t cmds[SH_CMDS_MAX];
	int ncmds;
	bool background;             /* ended by & */
} sh_pipeline_t;

/*
 * The next pipeline of lx from token *pos into out; *pos moves past it.
 * Returns EOK, ENOENT at the end of the line, or EINVAL with a message
 * in err.
 */
errno_t sh_parse_next(const sh_lex_t *lx, size_t *pos, sh_pipeline_t *out,
		      char *err, size_t errlen);

/* --------------------------------------------------------------- exec.c */

typedef struct sh_job {
	bool used;
	int number;                  /* [N] as shown */
	task_id_t ids[SH_CMDS_MAX];
	bool done[SH_CMDS_MAX];
	int status[SH_CMDS_MAX];
	int ncmds;
	uint64_t pipes[SH_CMDS_MAX]; /* pipe ids to unlink at the end */
	int npipes;
	bool stopped;                /* spawned stopped, not yet let run */
} sh_job_t;

typedef struct sh {
	int last_status;             /* $? */
	bool interactive;            /* editing on the console */
	bool exit_requested;
	int exit_status;
	int fs_phone;                /* for pipes; -1 until needed */
	int console_phone;           /* -1 without a console */
	sh_job_t jobs[SH_JOBS_MAX];
	int next_job;
} sh_t;

/*
 * Lex and check one line, then run its pipelines in order; a syntax error
 * runs nothing and sets status 2.
 */
void sh_run_line(sh_t *sh, const char *line);
/* Report background jobs that ended since the last call. */
void sh_reap_jobs(sh_t *sh);
/*
 * Make job the console's foreground (NULL: the shell alone holds the
 * terminal, its background jobs do not read it). Interactive shells only.
 */
void sh_fg_console(sh_t *sh, const sh_job_t *job);

/* ------------------------------------------------------------ builtin.c */

/* The builtin called name, or NULL. */
typedef int (*sh_builtin_fn_t)(sh_t *sh, int argc, char **argv, FILE *out);
sh_builtin_fn_t sh_builtin(const char *name);
/* "NAME -h" of a builtin: print its usage to out and return true. */
bool sh_builtin_help(int argc, char **argv, FILE *out);

/* --------------------------------------------------------------- edit.c */

/*
 * Read a line from the console in raw mode with editing and history
 * into buf (size bytes, no '\n'). Returns its length, or -1 at end of
 * input (Ctrl-D on an empty line, or no console).
 */
int sh_edit_line(sh_t *sh, const char *prompt, char *buf, size_t size);

#endif
