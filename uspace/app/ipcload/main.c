/*
 * ipcload: the ground truth of IPC-aware profiling.
 *
 *   ipcload [-h] [-n ROUNDS] [-u US] [-l US] ratio|chain|wall|wallchain
 *     ratio  a server and two clients; each client does ROUNDS rounds of
 *            -l US local work and one WORK call; client 1's calls ask 3 *
 *            US of the server (in serve_a), client 2's US: the server's
 *            work for them is 3:1, their local work equal
 *     chain  a client -> S1 -> S2: each of ROUNDS WORK calls makes S1 spin
 *            US in serve_a, then, still serving it, call S2 (WORK_B: US
 *            in serve_b)
 *     wall   the ground truth of wall-clock profiling (issue 17): a
 *            server, and this task as its one client: each of ROUNDS
 *            rounds computes 4 * US (local_work), sleeps 3 * US
 *            (do_sleep) and waits for a WORK call of 3 * US (do_calls;
 *            the server spins in serve_a): 40 % compute, 30 % sleep, 30 %
 *            waiting for ipcload.WORK of the rounds' wall time (on 1 CPU;
 *            -l is not used). The client is this task so that `profile
 *            -w ipcload wall` sees it
 *     wallchain  wall, with the call's 3 * US split over a chain: the
 *            server (S1) spins 1.5 * US in serve_a, then, still serving
 *            it, calls S2 (WORK_B: 1.5 * US in serve_b)
 *     -n ROUNDS  1..1000000 (default 200)
 *     -u US      server work per call, 1..100000 microseconds (default 4000)
 *     -l US      local work per round, 0..100000 microseconds (default 1000)
 *
 * The servers and clients are tasks of their own (ipcload started again
 * with the internal modes `server NAME [NEXT]` and `client NAME INDEX
 * METHOD COST LOCAL ROUNDS`, and -k LOOPS: the loops per millisecond this
 * task calibrated). Each prints one line when done (see client.c and
 * server.c); then this task prints "ipcload: MODE done ...".
 *
 * Exit status: 0; 1 if a task could not be started or a call failed; 2
 * for usage errors.
 */
#include <getopt.h>
#include <spawn.h>
#include <stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "ipcload.h"

#define ARG_LEN 24
#define CALIBRATE_NS 20000000ull        /* 20 ms of spinning */
#define CONNECT_NS 10000000000ull
#define MAX_ROUNDS 1000000u
#define MAX_US 100000u

typedef unsigned long long ull;

uint64_t ipcload_loops_ms;

typedef struct opts {
	unsigned rounds, us, local_us;
	const char *mode;
} opts_t;

static char self_path[] = "/bin/ipcload";

static void usage(FILE *out)
{
	fprintf(out, "usage: ipcload [-h] [-n ROUNDS] [-u US] [-l US] ratio|chain|wall|wallchain\n"
		"  IPC load with a known answer: servers spin US per call in serve_a,\n"
		"  serve_b; clients compute locally (local_work) and call (do_calls)\n"
		"  ratio   two clients, server work 3:1 (3*US and US per call)\n"
		"  chain   a client -> S1 (US in serve_a) -> S2 (US in serve_b)\n"
		"  wall    this task computes 4*US, sleeps 3*US, waits for a 3*US call\n"
		"  wallchain  wall, the call's server calling a second for half its work\n"
		"  -n ROUNDS  rounds per client, 1..1000000 (default 200)\n"
		"  -u US      server work per call, 1..100000 us (default 4000)\n"
		"  -l US      local work per round, 0..100000 us (default 1000)\n");
}

static int usage_error(void)
{
	usage(stderr);
	return 2;
}

/* A decimal number of min..max into *v. */
static bool parse_num(const char *s, unsigned min, unsigned max, unsigned *v)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);

	if (!*s || *end || *s < '0' || *s > '9' || n < min || n > max)
		return false;
	*v = (unsigned)n;
	return true;
}

uint64_t ipcload_cycles(bool served)
{
	sysinfo_task_t t;

	if (stats_task(sys_task_id(), &t) != EOK)
		return 0;
	return served ? t.served_cycles : t.imposed_cycles;
}

void ipcload_task_cycles(uint64_t *served, uint64_t *own)
{
	sysinfo_task_t t;

	*served = *own = 0;
	if (stats_task(sys_task_id(), &t) != EOK)
		return;
	*served = t.served_cycles;
	*own = t.user_cycles + t.kernel_cycles;
}

/* Spin n loops (the calibration's copy of the loop). */
static __attribute__((noinline, noclone)) void calibrate_spin(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++) {
		for (int j = 0; j < IPCLOAD_INNER; j++) {
			x = x * 6364136223846793005ull + 1;
			__asm__ volatile("" : "+r"(x));
		}
	}
}

/* Loops per millisecond: double the loops until one run takes 20 ms. */
static uint64_t calibrate(void)
{
	uint64_t n = 64;

	for (;;) {
		uint64_t t0 = sys_clock_ns(CLOCK_MONOTONIC);
		calibrate_spin(n);
		uint64_t ns = sys_clock_ns(CLOCK_MONOTONIC) - t0;
		if (ns >= CALIBRATE_NS || n >= (1ull << 40))
			return ns ? n * 1000000 / ns + 1 : n;
		n *= 2;
	}
}

/* Start ipcload with the words of args (NULL-terminated); its id to *id. */
static errno_t start(char **args, task_id_t *id)
{
	char kbuf[ARG_LEN], *argv[12];
	unsigned n = 0;

	snprintf(kbuf, sizeof(kbuf), "%llu", (ull)ipcload_loops_ms);
	argv[n++] = "ipcload";
	argv[n++] = "-k";
	argv[n++] = kbuf;
	for (; *args && n < 11; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	errno_t rc = spawn(self_path, argv, NULL, id);
	if (rc != EOK)
		fprintf(stderr, "ipcload: cannot start %s: %s\n", argv[3], strerror(rc));
	return rc;
}

/* Start a client of server (index, method, cost); its id to *id. */
static errno_t start_client(const char *server, unsigned index, uint64_t method,
			    unsigned cost, const opts_t *o, task_id_t *id)
{
	char a[5][ARG_LEN];

	snprintf(a[0], ARG_LEN, "%u", index);
	snprintf(a[1], ARG_LEN, "%llu", (ull)method);
	snprintf(a[2], ARG_LEN, "%u", cost);
	snprintf(a[3], ARG_LEN, "%u", o->local_us);
	snprintf(a[4], ARG_LEN, "%u", o->rounds);
	char *args[] = { "client", (char *)server, a[0], a[1], a[2], a[3], a[4], NULL };
	return start(args, id);
}

/* Wait for task id; true if it exited with status 0. */
static bool wait_ok(task_id_t id)
{
	int st = 0;
	task_id_t got;

	return sys_wait(id, &st, 0, &got) == EOK && st == 0;
}

/* Send STOP to the server of name and wait for it to end. */
static bool stop_server(const char *name, task_id_t id)
{
	int phone;
	errno_t rc = service_connect_wait(name, CONNECT_NS, &phone);

	if (rc == EOK) {
		rc = ipc_call_sync(phone, IPCLOAD_M_STOP, 0, 0, 0, 0, 0, NULL);
		sys_ipc_hangup(phone);
	}
	if (rc != EOK)
		sys_kill(id);
	return wait_ok(id) && rc == EOK;
}

/* ratio: a server, clients 1 (3 * us per call) and 2 (us). */
static int run_ratio(const opts_t *o)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t srv, c1 = 0, c2 = 0;
	bool ok;

	snprintf(name, sizeof(name), "ipcload.%llu", (ull)sys_task_id());
	char *sargs[] = { "server", name, NULL };
	if (start(sargs, &srv) != EOK)
		return 1;
	ok = start_client(name, 1, IPCLOAD_M_WORK, 3 * o->us, o, &c1) == EOK;
	ok = start_client(name, 2, IPCLOAD_M_WORK, o->us, o, &c2) == EOK && ok;
	ok = (!c1 || wait_ok(c1)) && ok;
	ok = (!c2 || wait_ok(c2)) && ok;
	ok = stop_server(name, srv) && ok;
	printf("ipcload: ratio done: client 1 task %llu asked %llu us, client 2 task %llu "
	       "asked %llu us, server task %llu%s\n", (ull)c1,
	       (ull)o->rounds * 3 * o->us, (ull)c2, (ull)o->rounds * o->us, (ull)srv,
	       ok ? "" : " (failed)");
	return ok ? 0 : 1;
}

/* chain: S2, S1 (calling S2 while serving), one client of S1. */
static int run_chain(const opts_t *o)
{
	char n1[IPC_NAME_MAX + 1], n2[IPC_NAME_MAX + 1];
	task_id_t s1 = 0, s2, c = 0;
	bool ok;

	snprintf(n1, sizeof(n1), "ipcload.%llu.s1", (ull)sys_task_id());
	snprintf(n2, sizeof(n2), "ipcload.%llu.s2", (ull)sys_task_id());
	char *a2[] = { "server", n2, NULL };
	char *a1[] = { "server", n1, n2, NULL };
	if (start(a2, &s2) != EOK)
		return 1;
	ok = start(a1, &s1) == EOK;
	ok = ok && start_client(n1, 1, IPCLOAD_M_WORK, o->us, o, &c) == EOK;
	ok = (!c || wait_ok(c)) && ok;
	ok = (!s1 || stop_server(n1, s1)) && ok;
	ok = stop_server(n2, s2) && ok;
	printf("ipcload: chain done: client task %llu -> S1 task %llu -> S2 task %llu, "
	       "%u calls of %u us each%s\n", (ull)c, (ull)s1, (ull)s2, o->rounds, o->us,
	       ok ? "" : " (failed)");
	return ok ? 0 : 1;
}

/*
 * wall: a server; this task its client (wall_main). wallchain (chain):
 * that server calls a second one for half of each call's work.
 */
static int run_wall(const opts_t *o, bool chain)
{
	char name[IPC_NAME_MAX + 1], n2[IPC_NAME_MAX + 1];
	task_id_t srv, s2 = 0;

	snprintf(name, sizeof(name), "ipcload.%llu", (ull)sys_task_id());
	snprintf(n2, sizeof(n2), "ipcload.%llu.s2", (ull)sys_task_id());
	char *a2[] = { "server", n2, NULL };
	char *sargs[] = { "server", name, chain ? n2 : NULL, NULL };
	if (chain && start(a2, &s2) != EOK)
		return 1;
	bool ok = start(sargs, &srv) == EOK;
	ok = ok && wall_main(name, o->us, o->rounds, chain ? 3 * o->us / 2 : 3 * o->us) == 0;
	ok = stop_server(name, srv) && ok;
	ok = (!chain || stop_server(n2, s2)) && ok;
	printf("ipcload: wall done: client task %llu, server task %llu%s%s\n",
	       (ull)sys_task_id(), (ull)srv, chain ? " calling S2" : "", ok ? "" : " (failed)");
	return ok ? 0 : 1;
}

/* The internal modes: server NAME [NEXT], client NAME INDEX METHOD COST LOCAL ROUNDS. */
static int run_internal(int argc, char **argv)
{
	client_args_t a;
	unsigned method;

	if (strcmp(argv[0], "server") == 0 && (argc == 2 || argc == 3))
		return server_main(argv[1], argc == 3 ? argv[2] : NULL);
	if (strcmp(argv[0], "client") != 0 || argc != 7)
		return usage_error();
	memset(&a, 0, sizeof(a));
	a.server = argv[1];
	if (!parse_num(argv[2], 1, 1000, &a.index) ||
	    !parse_num(argv[3], IPCLOAD_M_WORK, IPCLOAD_M_WORK_B, &method) ||
	    !parse_num(argv[4], 1, IPCLOAD_MAX_US, &a.cost_us) ||
	    !parse_num(argv[5], 0, MAX_US, &a.local_us) ||
	    !parse_num(argv[6], 1, MAX_ROUNDS, &a.rounds))
		return usage_error();
	a.method = method;
	return client_main(&a);
}

/* Options into o; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, opts_t *o)
{
	unsigned k = 0;
	int c;

	o->rounds = 200;
	o->us = 4000;
	o->local_us = 1000;
	while ((c = getopt(argc, argv, "+hn:u:l:k:")) != -1) {
		bool ok = true;
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'n': ok = parse_num(optarg, 1, MAX_ROUNDS, &o->rounds); break;
		case 'u': ok = parse_num(optarg, 1, MAX_US, &o->us); break;
		case 'l': ok = parse_num(optarg, 0, MAX_US, &o->local_us); break;
		case 'k': ok = parse_num(optarg, 1, 4000000000u, &k); break;
		default: return usage_error();
		}
		if (!ok) {
			fprintf(stderr, "ipcload: bad value '%s' for -%c\n", optarg, c);
			return usage_error();
		}
	}
	ipcload_loops_ms = k;
	if (optind >= argc) {
		fprintf(stderr, "ipcload: which mode? ratio, chain or wall\n");
		return usage_error();
	}
	o->mode = argv[optind];
	return -1;
}

int main(int argc, char **argv)
{
	opts_t o;
	int status = parse_args(argc, argv, &o);

	if (status >= 0)
		return status;
	bool internal = strcmp(o.mode, "server") == 0 || strcmp(o.mode, "client") == 0;
	if (internal && !ipcload_loops_ms)
		return usage_error();
	if (internal)
		return run_internal(argc - optind, argv + optind);
	if (optind + 1 != argc ||
	    (strcmp(o.mode, "ratio") && strcmp(o.mode, "chain") && strcmp(o.mode, "wall") &&
	     strcmp(o.mode, "wallchain"))) {
		fprintf(stderr, "ipcload: unknown mode '%s'\n", o.mode);
		return usage_error();
	}
	ipcload_loops_ms = calibrate();
	printf("ipcload: %s: %u rounds, %u us per call, %u us local, %llu loops/ms\n",
	       o.mode, o.rounds, o.us, o.local_us, (ull)ipcload_loops_ms);
	if (strncmp(o.mode, "wall", 4) == 0)
		return run_wall(&o, strcmp(o.mode, "wallchain") == 0);
	return strcmp(o.mode, "ratio") == 0 ? run_ratio(&o) : run_chain(&o);
}
