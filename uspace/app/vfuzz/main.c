/*
 * vfuzz: a seeded system call fuzzer with a leak check.
 *
 *   vfuzz [-h] [-x] [-s SEED] [-n CALLS] [-t THREADS] [-W CALLS]
 *
 * vfuzz runs a warm-up worker task (-W calls, default 2000, seed SEED+1:
 * it fills the kernel's caches), reads the kernel's memory counters
 * (sysinfo system.memory, the task and thread lists), runs the worker
 * task (SEED, CALLS over THREADS threads, default one per CPU), waits
 * for it and everything it started, and reads the counters again: they
 * must be back at the baseline exactly. Exit 0 on success, 1 on an
 * unexpected result, a stall or a leak, 2 on bad options.
 *
 *   vfuzz -r PROGRAM [ARGS...]
 *
 * runs PROGRAM twice with vfuzz's permissions (the first run warms the
 * caches) and applies the same leak check to the second run; it prints
 * the fault-injection counters (sysinfo failinj.*) and exits 1 on a leak
 * or when a system call returned another error than ENOMEM, ELIMIT or
 * EFAULT after an injected failure (the program's own status is only
 * reported: under fault injection its tests may fail).
 *
 *   vfuzz -S SERVERS [-s SEED] [-n CALLS] [-t WORKERS] [-W CALLS]
 *
 * fuzzes the servers instead (SERVERS: a comma list of fs, console, ns;
 * srv.c): the same warm-up, baseline and leak check around WORKERS worker
 * tasks at once (default one per CPU; worker i has seed SEED + i * 2^32
 * and its share of CALLS, on connections of its own) that send typed
 * requests, and the servers' task ids must be the same
 * after the run as before it (a server that died and was started again by
 * init has a new id).
 *
 * A program's run ends when its last task does: the leak check waits (up
 * to 30 s) for what it left behind (fstest's probes wait up to 20 s for
 * a go that a failed test never gives) before the baseline and before
 * the check, so those tasks count in neither.
 *
 * Internal modes: -w (the worker task), -c SEED (a child task) and -o
 * SECONDS (the first time, leave /bin/sleep SECONDS running and exit;
 * later, sleep twice as long: test/failinj.t's program with an orphan).
 * README "Fuzzing" describes the templates and the checks.
 */
#include <abi/sysinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <leakcheck.h>
#include <stdio.h>
#include <stats.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include "vfuzz.h"

#define FZ_SETTLE_TRIES 50          /* 100 ms apart: threads are reaped lazily */
#define FZ_BASELINE_TRIES 30        /* likewise, before the run */
#define FZ_ORPHAN_TRIES 300         /* 100 ms apart: a run's last tasks */
#define FZ_ORPHAN_MARK "/tmp/vfuzz.orphan"  /* -o has left its orphan */

typedef struct fz_opts {
	uint64_t seed, calls, warm;
	unsigned threads;
	char mode;                   /* 0, 'w', 'c', 'o' or 'r' */
	const char *servers;         /* -S's list, NULL: the system calls */
	unsigned server_mask;
} fz_opts_t;

static void usage(FILE *out)
{
	fprintf(out, "usage: vfuzz [-h] [-x] [-s SEED] [-n CALLS] [-t THREADS] [-W CALLS]\n"
		"  fuzz the system calls with CALLS calls (default 10000) from\n"
		"  THREADS threads (default: one per CPU), seeded by SEED\n"
		"  (default: the clock); -W: warm-up calls (default 2000);\n"
		"  -x: also maps over 1 GiB and sampling over 10 kHz.\n"
		"       vfuzz -r PROGRAM [ARGS...]: the leak check around a program.\n"
		"       vfuzz -S fs,console,ns [-s SEED] [-n CALLS] [-t WORKERS] [-W CALLS]:\n"
		"  fuzz the servers' requests instead from WORKERS tasks at once\n"
		"  (default: one per CPU); the servers must not die.\n"
		"  Checks every result, a 5 s heartbeat, and that the kernel's\n"
		"  memory, tasks and threads are back at their baseline after.\n");
}

static bool fz_num(const char *s, uint64_t *out)
{
	char *end;

	if (!*s)
		return false;
	*out = strtoull(s, &end, 0);
	return *end == 0;
}

/* Parse argv; -1 to go on, else the exit status. */
static int fz_parse(int argc, char **argv, fz_opts_t *o)
{
	uint64_t v;
	int opt;

	while ((opt = getopt(argc, argv, "+hs:n:t:W:wc:o:xrS:")) != -1) {
		switch (opt) {
		case 'h': usage(stdout); return 0;
		case 's': if (!fz_num(optarg, &o->seed)) goto bad; break;
		case 'n': if (!fz_num(optarg, &o->calls)) goto bad; break;
		case 'W': if (!fz_num(optarg, &o->warm)) goto bad; break;
		case 't':
			if (!fz_num(optarg, &v) || v < 1 || v > FZ_MAX_THREADS)
				goto bad;
			o->threads = (unsigned)v;
			break;
		case 'w': o->mode = 'w'; break;
		case 'x': fz_extended = true; break;
		case 'r': o->mode = 'r'; break;
		case 'S':
			if (sf_parse_servers(optarg, &o->server_mask) != EOK)
				goto bad;
			o->servers = optarg;
			break;
		case 'c': if (!fz_num(optarg, &o->seed)) goto bad; o->mode = 'c'; break;
		case 'o': if (!fz_num(optarg, &o->seed)) goto bad; o->mode = 'o'; break;
		default: goto bad;
		}
	}
	if ((optind == argc) == (o->mode != 'r'))
		return -1;
bad:
	usage(stderr);
	return 2;
}

static unsigned fz_cpus(void)
{
	static sysinfo_cpu_t c[64];
	size_t n = leak_si("system.cpus", c, sizeof(c)) / sizeof(c[0]);

	return n ? (unsigned)(n > FZ_MAX_THREADS ? FZ_MAX_THREADS : n) : 1;
}

/* Start a worker task (-S servers if not NULL); its id, 0 if not started. */
static task_id_t fz_spawn_worker(uint64_t seed, uint64_t calls, unsigned threads,
				 const char *servers)
{
	char s[24], n[24], t[8];
	char *argv[] = { "vfuzz", "-w", "-s", s, "-n", n, "-t", t, NULL, NULL, NULL };
	task_id_t id;
	int k = 8;

	snprintf(s, sizeof(s), "%llu", (unsigned long long)seed);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)calls);
	snprintf(t, sizeof(t), "%u", threads);
	if (fz_extended)
		argv[k++] = "-x";
	if (servers) {
		argv[k++] = "-S";
		argv[k] = (char *)servers;
	}
	return sys_spawn("/bin/vfuzz", (const char *const *)argv, 0, &id) == EOK ? id : 0;
}

/*
 * -S: K = threads worker tasks at once, worker i with seed SEED + i * 2^32
 * and its share of calls, each on its own connections; waits for all of
 * them; the first non-zero status (0 if all passed, -1 if one was not run).
 * Prints how long the run took.
 */
static int fz_run_servers(uint64_t seed, uint64_t calls, unsigned k, const char *servers)
{
	task_id_t ids[FZ_MAX_THREADS];
	int status, worst = 0;
	uint64_t t0 = sys_clock_ns(CLOCK_MONOTONIC), ms;

	for (unsigned i = 0; i < k; i++)
		ids[i] = fz_spawn_worker(seed + ((uint64_t)i << 32),
					 calls / k + (i < calls % k), 1, servers);
	for (unsigned i = 0; i < k; i++) {
		task_id_t got;
		if (!ids[i] || sys_wait(ids[i], &status, 0, &got) != EOK)
			status = -1;
		worst = worst ? worst : status;
	}
	ms = (sys_clock_ns(CLOCK_MONOTONIC) - t0) / 1000000 + 1;
	printf("vfuzz: %u server workers: %llu calls in %llu ms (%llu calls/s)\n", k,
	       (unsigned long long)calls, (unsigned long long)ms,
	       (unsigned long long)(calls * 1000 / ms));
	return worst;
}

/* Run a worker task (-S: threads of them, fz_run_servers) and wait; its exit status (-1: not run). */
static int fz_run_worker(uint64_t seed, uint64_t calls, unsigned threads,
			 const char *servers)
{
	task_id_t id, got;
	int status = 0;

	if (servers)
		return fz_run_servers(seed, calls, threads, servers);
	id = fz_spawn_worker(seed, calls, threads, NULL);
	if (!id || sys_wait(id, &status, 0, &got) != EOK)
		return -1;
	return status;
}

/* The task ids of the servers in mask (0: not running) into ids[]. */
static void fz_server_ids(unsigned mask, task_id_t ids[SF_SERVERS])
{
	sysinfo_task_t *t;
	size_t n = 0;

	for (unsigned i = 0; i < SF_SERVERS; i++)
		ids[i] = 0;
	if (stats_tasks(&t, &n) != EOK)
		return;
	for (size_t j = 0; j < n; j++)
		for (unsigned i = 0; i < SF_SERVERS; i++)
			if ((mask & (1u << i)) && !strcmp(t[j].name, sf_server_name(i)) &&
			    t[j].threads > 0)
				ids[i] = t[j].id;
	free(t);
}

/* Are the servers of mask still the tasks of before[]? Each that is not is printed. */
static bool fz_servers_alive(unsigned mask, const task_id_t before[SF_SERVERS])
{
	task_id_t now[SF_SERVERS];
	bool ok = true;

	fz_server_ids(mask, now);
	for (unsigned i = 0; i < SF_SERVERS; i++) {
		if (!(mask & (1u << i)))
			continue;
		bool same = before[i] && now[i] == before[i];
		printf("vfuzz: server %s: task %llu before, %llu after%s\n", sf_server_name(i),
		       (unsigned long long)before[i], (unsigned long long)now[i],
		       same ? "" : ": DIED");
		ok &= same;
	}
	return ok;
}

/* Run argv with our permissions and wait; its status (-1: not run). */
static int fz_run_program(char **argv)
{
	char path[128];
	task_info_t me;
	task_id_t id, got;
	int status = 0;

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	if (sys_task_info(0, &me) != EOK)
		me.perms = 0;
	for (unsigned i = 0; i < 10; i++)   /* fault injection may fail a spawn */
		if (sys_spawn(path, (const char *const *)argv, me.perms, &id) == EOK)
			return sys_wait(id, &status, 0, &got) == EOK ? status : -1;
	return -1;
}

/*
 * -o: the first time (FZ_ORPHAN_MARK made now), leave /bin/sleep seconds
 * running (an orphan); later, take twice as long and leave nothing (a run
 * that outlives the first one's orphan, as fstest's second run outlived
 * its warm-up's probes). 0, or 1 if it could not spawn.
 */
static int fz_orphan(uint64_t seconds)
{
	char secs[24];
	const char *argv[] = { "sleep", secs, NULL };
	task_id_t id;
	int fd = open(FZ_ORPHAN_MARK, O_WRONLY | O_CREAT | O_EXCL);

	if (fd < 0) {
		sys_sleep_ns(2 * seconds * 1000000000ull);
		return 0;
	}
	close(fd);
	snprintf(secs, sizeof(secs), "%llu", (unsigned long long)seconds);
	return sys_spawn("/bin/sleep", argv, 0, &id) == EOK ? 0 : 1;
}

/* The baseline (settled for at most 3 s, else the last); false if unread. */
static bool fz_settle(leak_snap_t *s)
{
	errno_t rc = leak_settle(s, FZ_BASELINE_TRIES, "vfuzz");

	return rc == EOK || rc == EAGAIN;
}

static uint64_t fz_si_int(const char *path)
{
	uint64_t v = 0;

	sys_sysinfo_int(path, &v);
	return v;
}

/* -r: the leak check around two runs of a program. */
static int fz_check_program(char **argv)
{
	leak_snap_t before, after;

	if (leak_snapshot(&before) != EOK)
		return 1;
	uint64_t tasks = before.tasks;       /* before the program's first task */
	int st = fz_run_program(argv);

	printf("vfuzz: warm-up run of %s: status %#x\n", argv[0], st);
	leak_wait_tasks(tasks, FZ_ORPHAN_TRIES, "vfuzz");
	if (!fz_settle(&before))
		return 1;
	leak_print("vfuzz", "baseline", &before);
	st = fz_run_program(argv);
	leak_wait_tasks(tasks, FZ_ORPHAN_TRIES, "vfuzz");
	bool leak_ok = leak_check("vfuzz", &before, &after, FZ_SETTLE_TRIES);
	uint64_t other = fz_si_int("failinj.other");
	printf("vfuzz: failinj: %llu injected; syscalls after one: %llu ENOMEM/ELIMIT/EFAULT, "
	       "%llu succeeded, %llu other errors\n",
	       (unsigned long long)fz_si_int("failinj.injected"),
	       (unsigned long long)fz_si_int("failinj.reached"),
	       (unsigned long long)fz_si_int("failinj.absorbed"), (unsigned long long)other);
	printf("vfuzz: %s exited with status %#x; leak check %s\n", argv[0], st,
	       leak_ok ? "passed" : "FAILED");
	printf("vfuzz: %s\n", leak_ok && !other ? "PASS" : "FAIL");
	return leak_ok && !other ? 0 : 1;
}

static int fz_main(const fz_opts_t *o)
{
	leak_snap_t before, after;
	task_id_t servers[SF_SERVERS];
	int st;

	printf("vfuzz: seed %llu, %llu calls, %u threads%s%s\n", (unsigned long long)o->seed,
	       (unsigned long long)o->calls, o->threads, o->servers ? ", servers " : "",
	       o->servers ? o->servers : "");
	fz_server_ids(o->server_mask, servers);
	if (o->warm && (st = fz_run_worker(o->seed + 1, o->warm, o->threads, o->servers)) != 0)
		printf("vfuzz: warm-up worker exited with status %#x\n", st);
	if (!fz_settle(&before)) {
		printf("vfuzz: cannot read sysinfo system.memory\n");
		return 1;
	}
	leak_print("vfuzz", "baseline", &before);
	st = fz_run_worker(o->seed, o->calls, o->threads, o->servers);
	bool leak_ok = leak_check("vfuzz", &before, &after, FZ_SETTLE_TRIES);
	bool alive = fz_servers_alive(o->server_mask, servers);
	printf("vfuzz: worker exited with status %#x; leak check %s\n", st,
	       leak_ok ? "passed" : "FAILED");
	bool ok = st == 0 && leak_ok && alive;
	printf("vfuzz: %s seed %llu calls %llu\n", ok ? "PASS" : "FAIL",
	       (unsigned long long)o->seed, (unsigned long long)o->calls);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	fz_opts_t o = { .seed = sys_clock_ns(CLOCK_MONOTONIC), .calls = 10000, .warm = 2000 };
	int rc = fz_parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!o.threads)
		o.threads = fz_cpus();
	if (o.mode == 'c')
		return fz_child(o.seed);
	if (o.mode == 'o')
		return fz_orphan(o.seed);
	if (o.mode == 'r')
		return fz_check_program(argv + optind);
	if (o.mode == 'w' && o.servers)
		return sf_worker(o.seed, o.calls, o.server_mask);
	if (o.mode == 'w')
		return fz_worker(o.seed, o.calls, o.threads);
	return fz_main(&o);
}
