/*
 * sprofile: the statistical profiler of the whole system.
 *
 *   sprofile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] [-p PERCENT] [-o FILE]
 *            [-c [-t ID]] [-w]
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

static void usage(FILE *out)
{
	fprintf(out, "usage: sprofile [-h] [-f HZ] [-s SOURCE] [-d SECONDS] [-g] "
		"[-p PERCENT] [-o FILE]\n"
		"                [-c [-t ID]] [-w]\n"
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
		"  -w          wall clock: also where threads wait, as [off-cpu: REASON]\n");
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

static int parse_args(int argc, char **argv, ptool_opts_t *o)
{
	int c;

	ptool_opts_init(o, "sprofile", PROF_STYLE_SYSTEM, "q");
	while ((c = getopt(argc, argv, "hf:s:d:gp:o:ct:w")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
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
	if (optind < argc) {
		fprintf(stderr, "sprofile: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* Begin the system session on phone and read it to the end. */
static int profile_system(const ptool_opts_t *o, int phone)
{
	static ptool_t t;
	unsigned source = 0, hz = 0;
	int status = ptool_open(&t, o, phone, 0);
	errno_t rc = status ? EOK : prof_system_begin(phone, &o->params, &source, &hz);

	if (rc != EOK)
		status = ptool_begin_error(o, rc, 0);
	if (status == 0) {
		fprintf(stderr, "sprofile: every CPU, %s at %u Hz%s\n",
			prof_source_name(source), hz, t.keys ? "; q ends" : "");
		status = ptool_run(&t);
	}
	ptool_close(&t);
	return status;
}

int main(int argc, char **argv)
{
	ptool_opts_t o;
	int phone, status = parse_args(argc, argv, &o);

	if (status >= 0)
		return status;
	errno_t rc = prof_connect(sys_task_id(), &phone);
	if (rc != EOK)
		return ptool_begin_error(&o, rc, 0);
	status = profile_system(&o, phone);
	prof_disconnect(phone);
	return status;
}
