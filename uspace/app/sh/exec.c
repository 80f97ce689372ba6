/*
 * sh: running pipelines. Each command is a task started with spawn();
 * commands of a pipeline are joined by file service pipes (/pipe/ID,
 * made with FS_M_MKPIPE and unlinked when the pipeline ends); < > >>
 * become the children's FD0/FD1 specs. A foreground pipeline gets the
 * console in cooked mode with its last task as the foreground task, so
 * Ctrl-C kills it; the shell then kills the rest of the pipeline.
 */
#include <console.h>
#include <errno.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <ipc.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include "sh.h"

#define SPEC_MAX (FS_PATH_MAX + 2)

/* What starting one pipeline needs. */
typedef struct launch {
	char paths[SH_CMDS_MAX][FS_PATH_MAX];
	char specs[SH_CMDS_MAX][2][SPEC_MAX];   /* FD0, FD1 of each command */
} launch_t;

static void sh_error(const char *what, errno_t rc)
{
	fprintf(stderr, "sh: %s: %s\n", what, strerror(rc));
}

/* ------------------------------------------------------------ pipes */

static errno_t sh_fs(sh_t *sh)
{
	if (sh->fs_phone >= 0)
		return EOK;
	return service_connect(FS_SERVICE, &sh->fs_phone);
}

/*
 * A new pipe's id into *id. A file service that died (init starts a new
 * one) answers EHANGUP: the phone goes, and the call is made once more to
 * its successor.
 */
static errno_t sh_mkpipe(sh_t *sh, uint64_t *id)
{
	ipc_msg_t ans;
	errno_t rc = EHANGUP;

	for (int i = 0; i < 2 && rc == EHANGUP; i++) {
		rc = sh_fs(sh);
		if (rc == EOK)
			rc = ipc_call_sync(sh->fs_phone, FS_M_MKPIPE, 0, 0, 0, 0, 0, &ans);
		if (rc == EHANGUP) {
			sys_ipc_hangup(sh->fs_phone);
			sh->fs_phone = -1;
		}
	}
	if (rc == EOK)
		*id = ans.args[0];
	return rc;
}

/* Remove the names of job's pipes (the pipes end with their handles). */
static void sh_unlink_pipes(sh_job_t *job)
{
	char path[32];

	for (int i = 0; i < job->npipes; i++) {
		snprintf(path, sizeof(path), "/pipe/%lu", (unsigned long)job->pipes[i]);
		unlink(path);
	}
	job->npipes = 0;
}

/* ------------------------------------------------------- redirection */

/* Check and prepare the redirections of c into its FD0/FD1 specs. */
static errno_t sh_redirect(const sh_cmd_t *c, char specs[2][SPEC_MAX])
{
	if (c->in) {
		int fd = open(c->in, O_RDONLY);
		if (fd < 0) {
			sh_error(c->in, errno);
			return errno;
		}
		close(fd);
		snprintf(specs[0], SPEC_MAX, "r:%s", c->in);
	}
	if (c->out) {
		int fd = open(c->out, O_WRONLY | O_CREAT |
			      (c->append ? O_APPEND : O_TRUNC), 0644);
		if (fd < 0) {
			sh_error(c->out, errno);
			return errno;
		}
		close(fd);
		snprintf(specs[1], SPEC_MAX, "a:%s", c->out);
	}
	return EOK;
}

/* Find every program and prepare every redirection; a status or 0. */
static int sh_prepare(const sh_pipeline_t *pl, launch_t *ln)
{
	memset(ln->specs, 0, sizeof(ln->specs));
	for (int i = 0; i < pl->ncmds; i++) {
		const char *name = pl->cmds[i].argv[0];
		if (spawn_find(name, ln->paths[i], FS_PATH_MAX) != EOK) {
			fprintf(stderr, "sh: %s: command not found\n", name);
			return SH_STATUS_NOT_FOUND;
		}
		if (sh_redirect(&pl->cmds[i], ln->specs[i]) != EOK)
			return 1;
	}
	return 0;
}

/* Join command i to i+1 through a new pipe, unless redirected already. */
static errno_t sh_join(sh_t *sh, const sh_pipeline_t *pl, launch_t *ln,
		       sh_job_t *job, int i)
{
	uint64_t id;
	errno_t rc = sh_mkpipe(sh, &id);

	if (rc != EOK)
		return rc;
	job->pipes[job->npipes++] = id;
	if (!ln->specs[i][1][0])
		snprintf(ln->specs[i][1], SPEC_MAX, "w:/pipe/%lu", (unsigned long)id);
	if (!ln->specs[i + 1][0][0])
		snprintf(ln->specs[i + 1][0], SPEC_MAX, "r:/pipe/%lu", (unsigned long)id);
	return EOK;
}

/* ------------------------------------------------------------ start */

/* Kill and reap the tasks started so far (a pipeline that failed to start). */
static void sh_abandon(sh_job_t *job, int started)
{
	for (int i = 0; i < started; i++) {
		sys_kill(job->ids[i]);
		sys_wait(job->ids[i], NULL, 0, NULL);
	}
	sh_unlink_pipes(job);
}

/*
 * Start the commands of pl with the specs of ln; a status or 0. They start
 * stopped when job->stopped: sh_wait_fg lets them run once they are the
 * console's foreground, so none can find itself in the background at its
 * first console call (raw mode refused).
 */
static int sh_spawn_all(const sh_pipeline_t *pl, launch_t *ln, sh_job_t *job)
{
	for (int i = 0; i < pl->ncmds; i++) {
		spawn_opts_t o = { .stdio = {
			ln->specs[i][0][0] ? ln->specs[i][0]
					   : (pl->background ? "n:" : NULL),
			ln->specs[i][1][0] ? ln->specs[i][1] : NULL, NULL },
			.stopped = job->stopped };
		errno_t rc = spawn(ln->paths[i], pl->cmds[i].argv, &o, &job->ids[i]);
		if (rc != EOK) {
			sh_error(pl->cmds[i].argv[0], rc);
			sh_abandon(job, i);
			return rc == ENOENT ? SH_STATUS_NOT_FOUND : SH_STATUS_CANNOT_RUN;
		}
	}
	job->ncmds = pl->ncmds;
	return 0;
}

/* Start pipeline pl as job; 0, or the status of the failure. */
static int sh_start(sh_t *sh, const sh_pipeline_t *pl, sh_job_t *job)
{
	static launch_t ln;
	int st = sh_prepare(pl, &ln);

	memset(job, 0, sizeof(*job));
	job->stopped = !pl->background && sh->interactive && sh->console_phone >= 0;
	for (int i = 0; st == 0 && i + 1 < pl->ncmds; i++) {
		errno_t rc = sh_join(sh, pl, &ln, job, i);
		if (rc != EOK) {
			sh_error("cannot make a pipe", rc);
			sh_unlink_pipes(job);
			st = 1;
		}
	}
	return st ? st : sh_spawn_all(pl, &ln, job);
}

/* ------------------------------------------------------------ jobs */

/* The job (or NULL) and the index in it of task id. */
static sh_job_t *sh_find(sh_t *sh, sh_job_t *fg, task_id_t id, int *idx)
{
	for (int j = -1; j < SH_JOBS_MAX; j++) {
		sh_job_t *job = j < 0 ? fg : &sh->jobs[j];
		if (!job || (j >= 0 && !job->used))
			continue;
		for (int i = 0; i < job->ncmds; i++)
			if (job->ids[i] == id && !job->done[i]) {
				*idx = i;
				return job;
			}
	}
	return NULL;
}

/* Record that task id ended with status; the job it belongs to. */
static sh_job_t *sh_ended(sh_t *sh, sh_job_t *fg, task_id_t id, int status)
{
	int i;
	sh_job_t *job = sh_find(sh, fg, id, &i);

	if (job) {
		job->done[i] = true;
		job->status[i] = status;
	}
	return job;
}

static bool sh_job_done(const sh_job_t *job)
{
	for (int i = 0; i < job->ncmds; i++)
		if (!job->done[i])
			return false;
	return true;
}

/* Kill the commands of job still running (after one was interrupted). */
static void sh_kill_rest(sh_job_t *job)
{
	for (int i = 0; i < job->ncmds; i++)
		if (!job->done[i])
			sys_kill(job->ids[i]);
}

/*
 * The console in cooked mode for a job (the line editor leaves it raw).
 * Done before the job starts: a program that sets raw mode itself (a
 * profiler's keys) would otherwise race the shell and lose.
 */
static void sh_cooked(sh_t *sh)
{
	if (sh->interactive && sh->console_phone >= 0)
		console_set_mode(sh->console_phone, CONSOLE_MODE_COOKED, NULL);
}

/*
 * The console's foreground job: job's tasks (its last first), or none
 * (job NULL: the shell holds the terminal alone again).
 */
void sh_fg_console(sh_t *sh, const sh_job_t *job)
{
	if (!sh->interactive || sh->console_phone < 0)
		return;
	if (!job) {
		console_set_foreground(sh->console_phone, 0);
		return;
	}
	console_set_foreground(sh->console_phone, job->ids[job->ncmds - 1]);
	for (int i = 0; i < job->ncmds - 1; i++)
		console_foreground(sh->console_phone, job->ids[i], CONSOLE_FG_ADD);
}

/* Let the tasks of a job started stopped run (a failure kills the task). */
static void sh_release(sh_job_t *job)
{
	for (int i = 0; job->stopped && i < job->ncmds; i++) {
		errno_t rc = spawn_start(job->ids[i]);
		if (rc != EOK) {
			sh_error("cannot start the command", rc);
			sys_kill(job->ids[i]);
		}
	}
	job->stopped = false;
}

/* Wait for the foreground job; $? becomes its last command's status. */
static void sh_wait_fg(sh_t *sh, sh_job_t *job)
{
	sh_fg_console(sh, job);
	sh_release(job);
	while (!sh_job_done(job)) {
		task_id_t id;
		int status;
		if (sys_wait(WAIT_ANY, &status, 0, &id) != EOK)
			break;
		if (sh_ended(sh, job, id, status) == job &&
		    (status & TASK_STATUS_KILLED))
			sh_kill_rest(job);
	}
	sh_fg_console(sh, NULL);
	sh_unlink_pipes(job);
	sh->last_status = spawn_status_code(job->status[job->ncmds - 1]);
}

/* Keep job in the background table and say so. */
static void sh_background(sh_t *sh, const sh_job_t *job)
{
	for (int j = 0; j < SH_JOBS_MAX; j++) {
		if (sh->jobs[j].used)
			continue;
		sh->jobs[j] = *job;
		sh->jobs[j].used = true;
		sh->jobs[j].number = ++sh->next_job;
		printf("[%d] %lu\n", sh->jobs[j].number,
		       (unsigned long)job->ids[job->ncmds - 1]);
		sh->last_status = 0;
		return;
	}
	fprintf(stderr, "sh: too many background jobs; waiting for this one\n");
	sh_job_t copy = *job;
	sh_cooked(sh);
	sh_wait_fg(sh, &copy);
}

void sh_reap_jobs(sh_t *sh)
{
	task_id_t id;
	int status;

	while (sys_wait(WAIT_ANY, &status, WAIT_NOHANG, &id) == EOK && id)
		sh_ended(sh, NULL, id, status);
	for (int j = 0; j < SH_JOBS_MAX; j++) {
		sh_job_t *job = &sh->jobs[j];
		if (!job->used || !sh_job_done(job))
			continue;
		printf("[%d] done (status %d)\n", job->number,
		       spawn_status_code(job->status[job->ncmds - 1]));
		sh_unlink_pipes(job);
		job->used = false;
	}
}

/* ------------------------------------------------------------ running */

/* A builtin with its output redirected as c says. */
static int sh_run_builtin(sh_t *sh, sh_builtin_fn_t fn, const sh_cmd_t *c)
{
	FILE *out = stdout;

	if (c->out && !(out = fopen(c->out, c->append ? "a" : "w"))) {
		sh_error(c->out, errno);
		return 1;
	}
	int st = sh_builtin_help(c->argc, (char **)c->argv, out) ? 0
		 : fn(sh, c->argc, (char **)c->argv, out);
	if (out != stdout)
		fclose(out);
	else
		fflush(stdout);
	return st;
}

static void sh_run_pipeline(sh_t *sh, const sh_pipeline_t *pl)
{
	sh_builtin_fn_t fn = sh_builtin(pl->cmds[0].argv[0]);
	sh_job_t job;

	if (fn && pl->ncmds == 1) {
		sh->last_status = sh_run_builtin(sh, fn, &pl->cmds[0]);
		return;
	}
	for (int i = 0; i < pl->ncmds; i++)
		if (sh_builtin(pl->cmds[i].argv[0])) {
			fprintf(stderr, "sh: %s: a builtin cannot be part of a pipeline\n",
				pl->cmds[i].argv[0]);
			sh->last_status = 1;
			return;
		}
	fflush(stdout);
	if (!pl->background)
		sh_cooked(sh);
	int st = sh_start(sh, pl, &job);
	if (st)
		sh->last_status = st;
	else if (pl->background)
		sh_background(sh, &job);
	else
		sh_wait_fg(sh, &job);
}

/* Parse every pipeline of lx (running them if run); EOK or EINVAL. */
static errno_t sh_walk(sh_t *sh, const sh_lex_t *lx, bool run, char *err,
		       size_t errlen)
{
	static sh_pipeline_t pl;
	size_t pos = 0;
	errno_t rc;

	while (!sh->exit_requested &&
	       (rc = sh_parse_next(lx, &pos, &pl, err, errlen)) == EOK)
		if (run)
			sh_run_pipeline(sh, &pl);
	return sh->exit_requested || rc == ENOENT ? EOK : rc;
}

void sh_run_line(sh_t *sh, const char *line)
{
	static sh_lex_t lx;
	char err[128];

	lx.last_status = sh->last_status;
	if (sh_lex(&lx, line, err, sizeof(err)) != EOK ||
	    sh_walk(sh, &lx, false, err, sizeof(err)) != EOK) {
		fprintf(stderr, "sh: %s\n", err);
		sh->last_status = SH_STATUS_SYNTAX;
		return;
	}
	sh_walk(sh, &lx, true, err, sizeof(err));
}
