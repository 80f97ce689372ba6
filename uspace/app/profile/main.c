/*
 * profile: the statistical profiler of one task.
 *
 *   profile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] [-o FILE] [-c] [-w]
 *           [-e CLASSES] [-p PERCENT] [-l [-i SECONDS]] (-t ID | PROGRAM [ARGS...])
 *     -t ID       profile the running task ID (needs the profile
 *                 permission unless it is our child)
 *     PROGRAM     start PROGRAM (a name in /bin or a path) with ARGS,
 *                 stopped, begin the session, then let it run: the
 *                 session is open before its first instruction
 *     -f -s -d -g -o as sprofile's (-o com2 included)
 *     -c          the report by origin (as sprofile -c -t ID): the task's
 *                 own samples and those of servers serving its calls
 *                 (the session gets them: abi/profile.h), per server and
 *                 method, and the top functions of both: what the task
 *                 really costs the system, and where
 *     -w          wall clock (issue 17): also where the task's threads
 *                 wait (PROF_F_OFFCPU); each off-CPU stretch weighs as
 *                 the samples it would have had, on the stack where it
 *                 waited, as "[off-cpu: REASON]" ("[off-cpu: wait
 *                 SERVER.METHOD]" for a call's answer): shares of wall
 *                 time, not CPU time (lib/profreport.h). With -g the
 *                 waits sit under the stacks that waited
 *     -e CLASSES  also kernel trace events (as sprofile -e): those of the
 *                 task's threads and of the servers' threads working for
 *                 it; another task's thread on the other side of a
 *                 switch or wakeup shows as 0 unless we may profile it
 *     -l -i       the live view, as sprofile's (not with -c): the task's
 *                 hottest functions full screen, refreshed every -i
 *                 seconds (default 1); keys < > m t a h q as there (no
 *                 e or p). When the task ends the view stays until q
 *
 * The session ends with the task (then profile prints the report and
 * "profile: task N exited with status S"), after -d seconds, or by a key.
 * Keys (when stdin is a terminal; options end at PROGRAM, so PROGRAM's
 * own options follow it):
 *   q, Ctrl-C  end the session, print the report, exit (a PROGRAM still
 *              running is left running)
 *   a          pause / resume sampling
 *   e          end the session, keep the data: print the report, then
 *              p prints it again and q exits
 *   p          print the table so far (while sampling: may lose samples)
 * A status line on stderr (when it and stdin are a terminal: not in the
 * background) shows samples, lost, rate and elapsed time. The report (stdout) starts with "Samples: T total, U
 * user, K kernel" and lists address, samples, % and symbol per function.
 * After -d a PROGRAM still running is waited for, and its status printed.
 *
 * Exit status: 0; 1 for errors (no such task, permission denied, a
 * source this machine lacks, PROGRAM not startable, -o failing); 2 for
 * usage errors.
 */
#include <getopt.h>
#include <ipc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include <ptool.h>

#define KEYS "qaep"

typedef unsigned long long ull;

typedef struct target {
	task_id_t id;
	bool spawned;              /* our child, created stopped */
	bool started;              /* ... and let run (KBOX_TASK_START) */
	char **argv;               /* PROGRAM and ARGS */
} target_t;

static void usage(FILE *out)
{
	fprintf(out, "usage: profile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] "
		"[-o FILE] [-c] [-w] [-e CLASSES]\n"
		"               [-p PERCENT] [-l [-i SECONDS]] (-t ID | PROGRAM [ARGS...])\n"
		"  profile one task: a running one (-t) or PROGRAM started for it\n"
		"  -t ID       the running task ID\n"
		"  -f HZ       samples per second, 1..100000 (default 1000)\n"
		"  -s SOURCE   default, pmc, rtc, rtc-nmi or timer\n"
		"  -d SECONDS  stop after this long (default: when the task ends)\n"
		"  -g          record call chains, print the call tree\n"
		"  -o FILE     also write the raw sample stream to FILE\n"
		"              (-o com2: out of the second serial port)\n"
		"  -c          the report by origin: the task's own samples and the\n"
		"              servers' work for it\n"
		"  -w          wall clock: also the time its threads wait, as\n"
		"              [off-cpu: REASON] frames (sleep, wait SERVER.METHOD, ...)\n"
		"  -e CLASSES  also record kernel trace events of the task and its\n"
		"              servers: sched,ipc,irq,syscall or all (-o keeps them;\n"
		"              vprof -F trace draws the timeline)\n"
		"  -p PERCENT  hide rows under PERCENT of the samples (default 0.5;\n"
		"              0: every row)\n"
		"  -l          live view, like perf top: the hottest functions, full\n"
		"              screen; keys: < > sort, m all/user/kernel, t task,\n"
		"              a pause, h help, q quit; PROGRAM's output goes to\n"
		"              /tmp/profile-live.out\n"
		"  -i SECONDS  with -l: refresh every SECONDS (default 1)\n"
		"  keys: q quit, a pause/resume, e end session, p print so far\n");
}

/* A usage error: the usage to stderr, status 2. */
static int usage_error(void)
{
	usage(stderr);
	return 2;
}

/* -t's value into *id; false if it is not a task id. */
static bool parse_task(const char *s, task_id_t *id)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end || *s < '0' || *s > '9' || v == 0)
		return false;
	*id = v;
	return true;
}

static int parse_args(int argc, char **argv, ptool_opts_t *o, target_t *t)
{
	int c;

	ptool_opts_init(o, "profile", PROF_STYLE_TASK, KEYS);
	memset(t, 0, sizeof(*t));
	while ((c = getopt(argc, argv, "+hf:s:d:go:t:cwp:li:e:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 't' && !parse_task(optarg, &t->id)) {
			fprintf(stderr, "profile: -t wants a task id, not '%s'\n", optarg);
			return usage_error();
		}
		if (c != 't' && ptool_option(o, c, optarg) != 1)
			return usage_error();
	}
	if (!ptool_opts_check(o))
		return usage_error();
	if ((optind < argc) == (t->id != 0)) {
		fprintf(stderr, "profile: give -t ID or a PROGRAM (one of them)\n");
		return usage_error();
	}
	t->argv = optind < argc ? argv + optind : NULL;
	return -1;
}

/* Start PROGRAM stopped (under -l its output to a file); its id to t->id. 0, or 1 (printed). */
static int start_program(target_t *t, bool live)
{
	uint64_t id = 0;

	if (ptool_spawn("profile", t->argv, true, live ? ptool_live_out("profile") : NULL,
			&id) != 0)
		return 1;
	t->id = id;
	t->spawned = true;
	return 0;
}

/* The start line: what is profiled, how, and the keys. */
static void announce(const ptool_t *p, const target_t *t, unsigned source,
		     unsigned hz)
{
	task_info_t info;
	char name[PROF_SRC_NAME_MAX];

	if (sys_task_info(t->id, &info) != EOK)
		strcpy(info.name, "?");
	fprintf(stderr, "profile: task %llu '%.*s', %s at %u Hz\n", (ull)t->id,
		TASK_NAME_MAX, info.name, ptool_source_name(source, name), hz);
	if (p->keys && !p->o->live)
		fprintf(stderr, "profile: keys: q quit, a pause/resume, e end, "
			"p print so far\n");
}

/*
 * After the session: reap a spawned PROGRAM (waiting for it unless q
 * left it running) and print how the target ended.
 */
static void finish_target(const ptool_t *p, const target_t *t)
{
	int st = 0;
	task_id_t waited = 0;

	if (t->spawned && p->quit && !p->target_exited) {
		sys_wait(t->id, &st, WAIT_NOHANG, &waited);
		if (waited != t->id) {
			fprintf(stderr, "profile: task %llu is still running\n",
				(ull)t->id);
			return;
		}
	} else if (t->spawned && sys_wait(t->id, &st, 0, &waited) != EOK) {
		return;
	}
	if (t->spawned)
		ptool_print_exit("profile", t->id, (uint64_t)st);
	if (t->spawned && p->o->live)
		fprintf(stderr, "profile: its output is in %s\n", ptool_live_out("profile"));
	else if (p->target_exited)
		ptool_print_exit("profile", t->id, p->exit_status);
}

/* Connect, begin, start a spawned PROGRAM, read to the end, report. */
static int profile_task(const ptool_opts_t *o, target_t *t, int phone)
{
	static ptool_t p;
	unsigned source = 0, hz = 0;
	int status = ptool_open(&p, o, phone, t->id);
	errno_t rc = status ? EOK : prof_task_begin(phone, &o->params, &source, &hz);

	if (rc != EOK)
		status = ptool_begin_error(o, rc, t->id);
	if (status == 0)
		announce(&p, t, source, hz);
	if (status == 0 && t->spawned && (rc = prof_task_start(phone)) != EOK) {
		fprintf(stderr, "profile: cannot start %s: %s\n", t->argv[0],
			strerror(rc));
		status = 1;
	}
	t->started = status == 0;
	if (status == 0) {
		status = ptool_run(&p);
		finish_target(&p, t);
	}
	ptool_close(&p);
	return status;
}

int main(int argc, char **argv)
{
	ptool_opts_t o;
	target_t t;
	int phone, status = parse_args(argc, argv, &o, &t);

	if (status >= 0)
		return status;
	if (t.argv && start_program(&t, o.live) != 0)
		return 1;
	if (o.by_origin)
		o.origin = t.id;                /* its part, even with nothing imposed */
	errno_t rc = prof_connect(t.id, &phone);
	if (rc == EOK) {
		status = profile_task(&o, &t, phone);
		prof_disconnect(phone);
	} else {
		status = ptool_begin_error(&o, rc, t.id);
	}
	if (t.spawned && !t.started) {
		sys_kill(t.id);                 /* never ran: do not leave it */
		sys_wait(t.id, NULL, 0, NULL);
	}
	return status;
}
