/*
 * sprofile: the statistical profiler of the whole system.
 *
 *   sprofile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] [-p PERCENT] [-o FILE]
 *            [-c [-t ID]] [-w] [-e CLASSES] [-l [-i SECONDS]] [PROGRAM [ARGS...]]
 *   sprofile -r [-p PERCENT] [-o FILE] [-c [-t ID]]
 *     -f HZ       samples per second per CPU, 1..100000 (default 1000;
 *                 rtc and rtc-nmi round to a power of two, 2..8192)
 *     -s SOURCE   default (pmc if present, else rtc-nmi), pmc, rtc,
 *                 rtc-nmi or timer
 *     -d SECONDS  stop after this long (like 5 or 0.5); without it sprofile
 *                 runs until q is typed
 *     -g          record call chains and print the caller/callee tree
 *     -p PERCENT  hide report rows below this share, 0..100 (default 0.5)
 *     -o FILE     also write the raw sample stream (abi/profile.h, starting
 *                 with its header record) to FILE; "-o com2" sends it out
 *                 of the second serial port (COM2, 0x2f8, 115200 8N1,
 *                 polled; needs the io permission)
 *     -c          the report by origin (IPC-aware, lib/profreport.h): work
 *                 servers did while serving a call is charged to the
 *                 call's origin task; per task its own samples, the
 *                 samples others spent for it (per server and method)
 *                 and the top functions of both
 *     -t ID       with -c: only task ID's part (what it really costs)
 *     -w          wall clock (issue 17): also where every thread waits
 *                 (PROF_F_OFFCPU), weighted as the samples it would have
 *                 had, on its stack under "[off-cpu: REASON]": shares of
 *                 all CPUs' wall time plus every thread's waits
 *     -e CLASSES  also record kernel trace events (PROF_REC_TRACE, issue
 *                 30), a comma-separated list of sched (context switches
 *                 and wakeups), ipc (calls, receives, forwards, answers,
 *                 hang-ups), irq (interrupts' entry and exit) and syscall
 *                 (system calls' entry and exit), or all. They go to the
 *                 stream (-o); the report counts them; `vprof -F trace`
 *                 draws the timeline (CPU and thread tracks, IPC flows)
 *     -l          the live view, like `perf top` (uspace/lib/prof/plive.c):
 *                 full screen on the console, the hottest functions over
 *                 the last refresh (LAST%) and since the start (TOTAL%,
 *                 SAMPLES) with their task, redrawn every refresh; the
 *                 status line at the bottom (samples, lost, missed, rate,
 *                 elapsed). Keys: < > sort by another column, m shows
 *                 all, user or kernel (with idle) functions, t and a task
 *                 id and Enter one task (Enter alone: all), a or space
 *                 pauses / resumes sampling, h help, q quits (then the
 *                 last status line on stderr, no report). Needs a
 *                 terminal; not with -c. A session that ends by itself
 *                 (-d, PROGRAM's end) stays on the screen until q
 *     -i SECONDS  with -l: the refresh period (default 1, at least 0.1)
 *     -r          the flight recorder instead of a session (issue 30): what
 *                 the kernel kept of the last seconds (recorder=MIB on its
 *                 command line, default 4 MiB over the CPUs: sched and ipc
 *                 events and a sample at every tick, abi/profile.h
 *                 PROF_F_RECORDER), read out at once as an ordinary stream:
 *                 the report of its samples, -o FILE keeps it for vprof
 *                 (-F trace: the timeline of the last seconds). Only -p,
 *                 -o, -c and -t go with it
 *     PROGRAM     start PROGRAM (a name in /bin or a path) with ARGS once
 *                 the session has begun and end the session when it exits
 *                 (as `perf record -a PROGRAM`): the whole system while it
 *                 runs; then "sprofile: task N exited with status S".
 *                 Options end at PROGRAM. With -d the session may end
 *                 first; PROGRAM is waited for either way
 *
 * Connects to its own task's kernel answerbox and begins a system
 * session (needs the profile permission). While it runs, stderr (when it
 * and stdin are a terminal: not in the background) shows a status line
 * twice a second: samples, lost, rate and elapsed time; keys (when stdin
 * is a terminal): q or Ctrl-C ends it.
 * At the end (q or -d) it ends the session, reads what is left and
 * prints the report (summary line "samples: T total, U user, K kernel,
 * I idle, L lost", then samples per task and per symbol) to stdout.
 *
 * Exit status: 0; 1 for errors (permission denied, a system session
 * already running, a source this machine lacks, -o failing); 2 for
 * usage errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include <ptool.h>

#define ACCT_CPUS_MAX 64

typedef unsigned long long ull;

static void usage(FILE *out)
{
	fprintf(out, "usage: sprofile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] "
		"[-p PERCENT] [-o FILE]\n"
		"                [-c [-t ID]] [-w] [-e CLASSES] [-l [-i SECONDS]] [PROGRAM [ARGS...]]\n"
		"  profile the whole system until q is typed (or for -d seconds),\n"
		"  then print where every CPU spent its time\n"
		"  -f HZ       samples per second per CPU, 1..100000 (default 1000)\n"
		"  -s SOURCE   default, pmc, rtc, rtc-nmi or timer\n"
		"  -d SECONDS  stop after this long (like 5 or 0.5)\n"
		"  -g          record call chains, print the call tree\n"
		"  -p PERCENT  hide rows below this share, 0..100 (default 0.5)\n"
		"  -o FILE     also write the raw sample stream to FILE\n"
		"              (-o com2: out of the second serial port)\n"
		"  -c          the report by origin: servers' work charged to the\n"
		"              task whose call they served\n"
		"  -t ID       with -c: only task ID (own and imposed)\n"
		"  -w          wall clock: also where threads wait, as [off-cpu: REASON]\n"
		"  -e CLASSES  also record kernel trace events: sched,ipc,irq,syscall\n"
		"              or all (-o keeps them; vprof -F trace draws the timeline)\n"
		"  -l          live view, like perf top: the hottest functions, full\n"
		"              screen; keys: < > sort, m all/user/kernel, t task,\n"
		"              a pause, h help, q quit; PROGRAM's output goes to\n"
		"              /tmp/sprofile-live.out\n"
		"  -i SECONDS  with -l: refresh every SECONDS (default 1)\n"
		"  PROGRAM     start it with its ARGS and profile until it exits\n"
		"       sprofile -r [-p PERCENT] [-o FILE] [-c [-t ID]]\n"
		"  -r          read out the flight recorder: the last seconds' events and\n"
		"              samples the kernel kept (recorder=MIB at boot)\n");
}

/* -t's value into *id; false if it is not a task id. */
static bool parse_task(const char *s, uint64_t *id)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end || *s < '0' || *s > '9' || v == 0)
		return false;
	*id = v;
	return true;
}

static int parse_args(int argc, char **argv, ptool_opts_t *o, char ***prog)
{
	int c, session_opts = 0;

	ptool_opts_init(o, "sprofile", PROF_STYLE_SYSTEM, "q");
	while ((c = getopt(argc, argv, "+hf:s:d:gp:o:ct:wli:e:r")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'r') {
			o->params.flags |= PROF_F_RECORDER;
			continue;
		}
		if (strchr("fsdgwlie", c))
			session_opts++;
		if (c == 't' && !parse_task(optarg, &o->origin)) {
			fprintf(stderr, "sprofile: -t wants a task id, not '%s'\n", optarg);
			usage(stderr);
			return 2;
		}
		if (c != 't' && ptool_option(o, c, optarg) != 1) {
			usage(stderr);
			return 2;
		}
	}
	if (o->origin && !o->by_origin) {
		fprintf(stderr, "sprofile: -t needs -c\n");
		usage(stderr);
		return 2;
	}
	if (!ptool_opts_check(o)) {
		usage(stderr);
		return 2;
	}
	*prog = optind < argc ? argv + optind : NULL;
	if ((o->params.flags & PROF_F_RECORDER) && (session_opts || *prog)) {
		fprintf(stderr, "sprofile: -r reads the recorder: only -p, -o, -c and -t go "
			"with it\n");
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The kernel's cycle accounting of every CPU, summed (sysinfo system.cpus). */
typedef struct acct {
	uint64_t busy, idle, irq, mhz;
	uint32_t cpus;
	bool ok;
} acct_t;

static acct_t acct_begin, acct_end;

/* The accounting as of now into *a (a->ok false if sysinfo failed). */
static void acct_take(acct_t *a)
{
	sysinfo_cpu_t c[ACCT_CPUS_MAX];
	size_t got = 0;

	memset(a, 0, sizeof(*a));
	if (sys_sysinfo_data("system.cpus", c, sizeof(c), &got) != EOK)
		return;
	for (size_t i = 0; i < got / sizeof(c[0]); i++) {
		if (!c[i].active)
			continue;
		a->busy += c[i].busy_cycles;
		a->idle += c[i].idle_cycles;
		a->irq += c[i].irq_cycles;
		a->mhz = c[i].mhz;
		a->cpus++;
	}
	a->ok = a->cpus > 0 && a->mhz > 0;
}

/* ptool's on_end: the accounting just before END. */
static void acct_at_end(void *arg)
{
	acct_take(arg);
}

/*
 * After the report: the share of all CPUs' time the kernel's own cycle
 * accounting (a TSC reading at every switch and interrupt, not the
 * samples) counts idle between the session's begin and its end.
 */
static void acct_print(void)
{
	const acct_t *a = &acct_begin, *b = &acct_end;
	uint64_t busy = b->busy - a->busy, idle = b->idle - a->idle, irq = b->irq - a->irq;
	uint64_t all = busy + idle + irq;

	if (!a->ok || !b->ok || a->cpus != b->cpus || !all)
		return;
	printf("accounting: %u CPUs, %llu us each, idle %llu.%02llu%%, interrupts "
	       "%llu.%02llu%% (the kernel's cycle counts over the session)\n", b->cpus,
	       (ull)(all / b->cpus / b->mhz), (ull)(idle * 100 / all),
	       (ull)(idle * 10000 / all % 100), (ull)(irq * 100 / all),
	       (ull)(irq * 10000 / all % 100));
}

/* Wait for PROGRAM (task id) and print how it ended. */
static void finish_program(uint64_t id)
{
	int st = 0;
	task_id_t waited = 0;

	if (sys_wait(id, &st, 0, &waited) == EOK && waited == id)
		ptool_print_exit("sprofile", id, (uint64_t)st);
}

/* -r: the recorder's session could not begin (rc): why; status 1. */
static int recorder_error(const ptool_opts_t *o, errno_t rc)
{
	if (rc != ENOTSUP)
		return ptool_begin_error(o, rc, 0);
	fprintf(stderr, "sprofile: the flight recorder is off (the kernel was booted with "
		"recorder=0)\n");
	return 1;
}

/* Read the flight recorder out (-r): one session that ends at once. */
static int read_recorder(const ptool_opts_t *o, int phone)
{
	static ptool_t t;
	unsigned source = 0, hz = 0;
	int status = ptool_open(&t, o, phone, 0);
	errno_t rc = status ? EOK : prof_system_begin(phone, &o->params, &source, &hz);

	if (rc != EOK)
		status = recorder_error(o, rc);
	if (status == 0) {
		fprintf(stderr, "sprofile: the flight recorder: the last events and a sample "
			"each tick (%u Hz) of every CPU\n", hz);
		status = ptool_run(&t);
	}
	ptool_close(&t);
	return status;
}

/*
 * Begin the system session on phone, start PROGRAM (prog, or none) and
 * read the session to the end.
 */
static int profile_system(const ptool_opts_t *o, int phone, char **prog)
{
	static ptool_t t;
	unsigned source = 0, hz = 0;
	uint64_t id = 0;
	int status = ptool_open(&t, o, phone, 0);
	errno_t rc = status ? EOK : prof_system_begin(phone, &o->params, &source, &hz);

	if (rc != EOK)
		status = ptool_begin_error(o, rc, 0);
	if (status == 0) {
		char name[PROF_SRC_NAME_MAX];
		fprintf(stderr, "sprofile: every CPU, %s at %u Hz%s\n",
			ptool_source_name(source, name), hz, t.keys ? "; q ends" : "");
		acct_take(&acct_begin);
		ptool_on_end(&t, acct_at_end, &acct_end);
		status = prog ? ptool_spawn("sprofile", prog, false,
					    o->live ? ptool_live_out("sprofile") : NULL, &id) : 0;
		if (status)
			prof_end(phone);
		else if (id)
			ptool_watch(&t, id);
	}
	if (status == 0)
		status = ptool_run(&t);
	if (status == 0 && !o->live)
		acct_print();
	if (id)
		finish_program(id);
	if (id && o->live)
		fprintf(stderr, "sprofile: its output is in %s\n", ptool_live_out("sprofile"));
	ptool_close(&t);
	return status;
}

int main(int argc, char **argv)
{
	ptool_opts_t o;
	char **prog = NULL;
	int phone, status = parse_args(argc, argv, &o, &prog);

	if (status >= 0)
		return status;
	errno_t rc = prof_connect(sys_task_id(), &phone);
	if (rc != EOK)
		return ptool_begin_error(&o, rc, 0);
	if (o.params.flags & PROF_F_RECORDER)
		status = read_recorder(&o, phone);
	else
		status = profile_system(&o, phone, prog);
	prof_disconnect(phone);
	return status;
}
