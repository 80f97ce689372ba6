/*
 * soak: run the whole system under load for a while, then check that
 * nothing broke and nothing leaked.
 *
 *   soak [-h] [-d SECONDS] [-f HZ] [-o FILE] [-s SEED] [-x PART,...]
 *
 * After a warm-up (each part once, briefly: it fills the kernel's caches)
 * and a baseline of the kernel's memory counters, soak starts together:
 * `sprofile -f HZ -g -o FILE` (default 10000 Hz, FILE com2) for the whole
 * run, `workload` with one thread per CPU, `ipctest stress` in a loop, a
 * spawn/kill storm, `vfuzz -w` rounds without permissions, and a memory
 * toucher (soak -T) mapping regions up to 64 below the per-task limit.
 * After SECONDS (default 60) it starts no new rounds, waits for every part
 * to end and checks:
 *   - every round passed (ipctest: every call answered exactly once;
 *     vfuzz: every result allowed; storm: every spawn, kill and wait ok;
 *     workload, toucher and sprofile exited 0);
 *   - the profiler's totals (system.profiler) moved by exactly what the
 *     profile saw: soak prints prof_taken (samples taken that reached a
 *     session: routed + ring drops - unrouted), the harness compares it
 *     with the stream's END record (samples + lost);
 *   - frames, heap, kernel stacks, tasks and threads are back at the
 *     baseline exactly (as vfuzz's leak check).
 * It prints "soak: NAME VALUE UNIT" summary lines (with each CPU's longest
 * interrupts-off section and NMI handler) and "soak: PASS" or "soak: FAIL".
 * Exit status 0 if everything passed, 1 if not, 2 for usage errors.
 * -x PART,... leaves parts out (workload, ipctest, storm, vfuzz, toucher)
 * to find which one a failure needs. -T SECONDS is internal (the toucher).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#include "soak.h"

#define SOAK_PROF_TAIL_S 20          /* sprofile runs this much past the load */
#define SOAK_SETTLE_TRIES 100        /* 100 ms apart */
#define SOAK_HEARTBEAT_S 10
#define SOAK_STUCK_S 60              /* -W's default (soak_join) */

/* Parts -x can leave out (to find which one a failure needs). */
#define SOAK_WORKLOAD 1u
#define SOAK_IPCTEST 2u
#define SOAK_STORM 4u
#define SOAK_VFUZZ 8u
#define SOAK_TOUCHER 16u

typedef struct soak_opts {
	uint64_t seconds, hz, seed, touch;
	uint64_t stuck_s, hold_s;    /* -W: a loop this late is shown; -H: the storm's hold */
	const char *out;
	unsigned cpus;
	unsigned skip;               /* SOAK_* parts left out */
} soak_opts_t;

uint32_t soak_perms;

static void usage(FILE *out)
{
	fprintf(out, "usage: soak [-h] [-d SECONDS] [-f HZ] [-o FILE] [-s SEED] [-x PART,...]\n"
		"            [-W SECONDS] [-H SECONDS]\n"
		"  run sprofile (-f HZ, default 10000, -g -o FILE, default com2),\n"
		"  workload, ipctest stress, a spawn/kill storm, vfuzz and a memory\n"
		"  toucher together for SECONDS (default 60), then check the\n"
		"  invariants and print a summary; -x leaves out parts: workload,\n"
		"  ipctest, storm, vfuzz, toucher. A part still running -W SECONDS\n"
		"  (default 60) after the end is shown as stuck, with its child's\n"
		"  threads and every task (tasks -t, tasks -a); -H makes the storm's\n"
		"  first short sleep last SECONDS (to see that report)\n");
}

static bool soak_num(const char *s, uint64_t *out)
{
	char *end;

	if (!*s)
		return false;
	*out = strtoull(s, &end, 10);
	return *end == 0;
}

/* The -x list into *skip; false if a name is unknown. */
static bool soak_parts(char *list, unsigned *skip)
{
	static const char *const names[] = { "workload", "ipctest", "storm", "vfuzz", "toucher" };

	for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
		unsigned i = 0;
		while (i < 5 && strcmp(p, names[i]))
			i++;
		if (i == 5)
			return false;
		*skip |= 1u << i;
	}
	return true;
}

/* Parse argv; -1 to go on, else the exit status. */
static int soak_parse(int argc, char **argv, soak_opts_t *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "hd:f:o:s:T:x:W:H:")) != -1) {
		switch (opt) {
		case 'h': usage(stdout); return 0;
		case 'd': if (!soak_num(optarg, &o->seconds) || !o->seconds) goto bad; break;
		case 'f': if (!soak_num(optarg, &o->hz) || !o->hz || o->hz > 100000) goto bad; break;
		case 's': if (!soak_num(optarg, &o->seed)) goto bad; break;
		case 'T': if (!soak_num(optarg, &o->touch)) goto bad; o->touch++; break;
		case 'o': o->out = optarg; break;
		case 'W': if (!soak_num(optarg, &o->stuck_s)) goto bad; break;
		case 'H': if (!soak_num(optarg, &o->hold_s) || o->hold_s > 3600) goto bad; break;
		case 'x': if (!soak_parts(optarg, &o->skip)) goto bad; break;
		default: goto bad;
		}
	}
	if (optind == argc)
		return -1;
bad:
	usage(stderr);
	return 2;
}

static unsigned soak_cpus(void)
{
	static sysinfo_cpu_t c[SOAK_MAX_CPUS];
	size_t n = leak_si("system.cpus", c, sizeof(c)) / sizeof(c[0]);

	return n ? (unsigned)n : 1;
}

/* sprofile's arguments for a run of seconds (into argv, with buffers). */
static void soak_prof_argv(const soak_opts_t *o, uint64_t seconds, char *hz, char *d,
			   char **argv)
{
	snprintf(hz, 24, "%llu", (unsigned long long)o->hz);
	snprintf(d, 24, "%llu", (unsigned long long)seconds);
	char *a[] = { "sprofile", "-f", hz, "-g", "-p", "5", "-d", d, "-o", (char *)o->out, NULL };
	memcpy(argv, a, sizeof(a));
}

static long soak_nop(void *arg)
{
	return 0;
}

/*
 * Start and join one thread: libc's first malloc (thread_start's record)
 * maps its arena, a region the kernel keeps 64 heap bytes for as long as
 * we live. Done during the load, that was the leak check's 64-byte
 * "leak": the checker's own growth, not the kernel's.
 */
static bool soak_prime_libc(void)
{
	thread_id_t tid;

	return thread_start(soak_nop, NULL, &tid) == EOK && thread_join(tid, NULL) == EOK;
}

/* Each part once, briefly; whether all passed. */
static bool soak_warm_up(const soak_opts_t *o)
{
	char hz[24], d[24], threads[8], *prof[11];
	snprintf(threads, sizeof(threads), "%u", o->cpus);
	char *work[] = { "workload", "-t", threads, "-d", "0.3", "alpha:1", "kcopy:1", NULL };
	char *ipc[] = { "ipctest", "stress", NULL };
	char *touch[] = { "soak", "-T", "0", NULL };
	soak_loop_t storm = { .name = "storm", .seed = o->seed | 1 };
	soak_loop_t fuzz = { .name = "vfuzz", .seed = o->seed + 1000000, .cpus = o->cpus };
	int st[4];

	soak_prof_argv(o, 1, hz, d, prof);
	memset(st, 0, sizeof(st));
	if (!soak_prime_libc())
		printf("soak: warm-up: cannot start a thread\n");
	if (!(o->skip & SOAK_WORKLOAD))
		st[0] = soak_run(work, soak_perms);
	st[1] = soak_run(prof, soak_perms);
	if (!(o->skip & SOAK_IPCTEST))
		st[2] = soak_run(ipc, soak_perms);
	if (!(o->skip & SOAK_TOUCHER))
		st[3] = soak_run(touch, soak_perms);
	if (!(o->skip & SOAK_STORM))
		soak_storm_loop(&storm);     /* deadline 0: one round each */
	if (!(o->skip & SOAK_VFUZZ))
		soak_fuzz_loop(&fuzz);
	printf("soak: warm-up: workload %d, sprofile %d, ipctest %d, toucher %d, storm %llu/%llu, "
	       "vfuzz %llu/%llu failed\n", st[0], st[1], st[2], st[3],
	       (unsigned long long)storm.failures, (unsigned long long)storm.rounds,
	       (unsigned long long)fuzz.failures, (unsigned long long)fuzz.rounds);
	return !st[0] && !st[1] && !st[2] && !st[3] && !storm.failures && !fuzz.failures;
}

/* The parts running during the load, and how they ended. */
typedef struct soak_run {
	soak_loop_t loop[3];         /* ipc, storm, vfuzz */
	task_id_t prof, work, touch;
	int prof_st, work_st, touch_st;
	bool overrun;                /* sprofile ended before the rest */
	uint64_t prof0[3], prof1[3]; /* system.profiler samples, lost, unrouted: before, after */
	uint64_t elapsed_ns;
} soak_run_t;

static long (*const soak_loop_fn[3])(void *) = {
	soak_ipc_loop, soak_storm_loop, soak_fuzz_loop,
};

/* Wait (up to 10 s) until sprofile's system session is open. */
static bool soak_wait_session(void)
{
	for (unsigned i = 0; i < 100; i++) {
		if (soak_prof_system_sessions() > 0)
			return true;
		sys_sleep_ns(100000000ull);
	}
	return false;
}

static int soak_wait(task_id_t id)
{
	task_id_t got;
	int status = 0;

	if (!id)
		return 0;                /* left out (-x) */
	return sys_wait(id, &status, 0, &got) == EOK ? status : -1;
}

/* Spawn sprofile, then workload and the toucher; EOK or why not. */
static errno_t soak_start_tasks(const soak_opts_t *o, soak_run_t *r)
{
	char hz[24], d[24], secs[24], threads[8], *prof[11];
	snprintf(secs, sizeof(secs), "%llu", (unsigned long long)o->seconds);
	snprintf(threads, sizeof(threads), "%u", o->cpus);
	char *work[] = { "workload", "-t", threads, "-d", secs, "alpha:4", "beta:2", "gamma:1",
			 "ksyscall:1", "kcopy:1", NULL };
	char *touch[] = { "soak", "-T", secs, NULL };
	errno_t rc;

	soak_prof_argv(o, o->seconds + SOAK_PROF_TAIL_S, hz, d, prof);
	if ((rc = soak_spawn(prof, soak_perms, &r->prof)) != EOK)
		return rc;
	if (!soak_wait_session())
		return ETIMEOUT;
	if (!(o->skip & SOAK_WORKLOAD) && (rc = soak_spawn(work, soak_perms, &r->work)) != EOK)
		return rc;
	return o->skip & SOAK_TOUCHER ? EOK : soak_spawn(touch, soak_perms, &r->touch);
}

/* Wait for sprofile's end, with a line every SOAK_HEARTBEAT_S; its status. */
static int soak_wait_prof(task_id_t id)
{
	task_id_t got = 0;
	int status = -1;

	for (unsigned i = 1; got != id; i++) {
		errno_t rc = sys_wait(id, &status, WAIT_NOHANG, &got);
		if (rc != EOK && rc != EAGAIN)
			return -1;
		if (rc == EAGAIN)
			sys_sleep_ns(100000000ull);
		if (i % (SOAK_HEARTBEAT_S * 10) == 0)
			printf("soak: waiting for sprofile (%u s)\n", i / 10);
	}
	return status;
}

/*
 * A loop still running SOAK_STUCK_S after the deadline: say which, and
 * show its child's threads and every task (tasks -t ID, tasks -a): what
 * each waits for. A hang then says where it is before the harness's
 * timeout ends the boot.
 */
static void soak_show_stuck(const soak_loop_t *l, uint64_t late_s)
{
	char id[24];
	char *one[] = { "tasks", "-t", id, NULL }, *all[] = { "tasks", "-a", NULL };
	task_id_t child = l->child;

	printf("soak: %s stuck: %llu s after the deadline, child task %llu not reaped\n",
	       l->name, (unsigned long long)late_s, (unsigned long long)child);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)child);
	if (child)
		soak_run(one, soak_perms);
	soak_run(all, soak_perms);
}

/* Join the loops' threads; a stuck one is shown once (soak_show_stuck). */
static void soak_join(soak_run_t *r, const thread_id_t *tid, uint64_t deadline,
		      uint64_t late_s)
{
	uint64_t stuck_at = deadline + late_s * 1000000000ull;

	for (unsigned i = 0; i < 3; i++) {
		bool told = false;
		while (tid[i] && !__atomic_load_n(&r->loop[i].done, __ATOMIC_ACQUIRE)) {
			if (!told && sys_clock_ns(CLOCK_MONOTONIC) > stuck_at) {
				soak_show_stuck(&r->loop[i], late_s);
				told = true;
			}
			sys_sleep_ns(100000000ull);
		}
		if (tid[i])
			thread_join(tid[i], NULL);
	}
}

/* Print a progress line every SOAK_HEARTBEAT_S until deadline. */
static void soak_heartbeat(const soak_run_t *r, uint64_t start, uint64_t deadline)
{
	for (uint64_t now = start; now < deadline; now = sys_clock_ns(CLOCK_MONOTONIC)) {
		uint64_t left = deadline - now, step = SOAK_HEARTBEAT_S * 1000000000ull;
		sys_sleep_ns(left < step ? left : step);
		printf("soak: %llu s: ipctest %llu rounds, storm %llu spawns, vfuzz %llu calls\n",
		       (unsigned long long)((sys_clock_ns(CLOCK_MONOTONIC) - start) / 1000000000ull),
		       (unsigned long long)r->loop[0].rounds, (unsigned long long)r->loop[1].units,
		       (unsigned long long)r->loop[2].units);
	}
}

/* After a failed start: end and reap whatever did start. */
static void soak_stop_started(soak_run_t *r)
{
	task_id_t *ids[3] = { &r->prof, &r->work, &r->touch };

	for (unsigned i = 0; i < 3; i++) {
		if (*ids[i]) {
			sys_kill(*ids[i]);
			soak_wait(*ids[i]);
			*ids[i] = 0;
		}
	}
}

/* Run everything for o->seconds; EOK once every part has ended. */
static errno_t soak_load(const soak_opts_t *o, soak_run_t *r)
{
	static const char *names[3] = { "ipctest", "storm", "vfuzz" };
	uint64_t start = sys_clock_ns(CLOCK_MONOTONIC), deadline = start + o->seconds * 1000000000ull;
	thread_id_t tid[3];
	task_id_t got;
	int st;

	soak_prof_totals(r->prof0);
	errno_t rc = soak_start_tasks(o, r);
	if (rc != EOK) {
		soak_stop_started(r);
		return rc;
	}
	for (unsigned i = 0; i < 3; i++) {
		r->loop[i] = (soak_loop_t){ .name = names[i], .deadline = deadline, .cpus = o->cpus,
					    .hold_s = i == 1 ? o->hold_s : 0,
					    .seed = o->seed + i * 1000000 + 1 };
		tid[i] = 0;
		if (o->skip & (SOAK_IPCTEST << i))
			continue;
		if ((rc = thread_start(soak_loop_fn[i], &r->loop[i], &tid[i])) != EOK)
			return rc;       /* the started ones are waited for by exit */
	}
	soak_heartbeat(r, start, deadline);
	soak_join(r, tid, deadline, o->stuck_s);
	r->work_st = soak_wait(r->work);
	r->touch_st = soak_wait(r->touch);
	r->overrun = sys_wait(r->prof, &st, WAIT_NOHANG, &got) == EOK && got == r->prof;
	r->prof_st = r->overrun ? st : soak_wait_prof(r->prof);
	r->elapsed_ns = sys_clock_ns(CLOCK_MONOTONIC) - start;
	soak_prof_totals(r->prof1);
	return EOK;
}

static void soak_line(const char *name, uint64_t value, const char *unit)
{
	printf("soak: %s %llu %s\n", name, (unsigned long long)value, unit);
}

/* A summary line for after - before (negative when it went down). */
static void soak_delta(const char *name, uint64_t before, uint64_t after, const char *unit)
{
	printf("soak: %s %lld %s\n", name, (long long)(after - before), unit);
}

/* The summary of the load; whether every part passed. */
static bool soak_report_load(const soak_run_t *r)
{
	const soak_loop_t *ipc = &r->loop[0], *storm = &r->loop[1], *fz = &r->loop[2];
	uint64_t failures = ipc->failures + storm->failures + fz->failures;

	soak_line("seconds", r->elapsed_ns / 1000000000ull, "s");
	soak_line("ipc_rounds", ipc->rounds, "rounds");
	soak_line("ipc_calls", ipc->units, "calls");
	soak_line("ipc_unanswered", ipc->failures * 10000, "calls");
	soak_line("storm_spawns", storm->units, "tasks");
	soak_line("storm_kills", storm->killed, "tasks");
	soak_line("vfuzz_rounds", fz->rounds, "rounds");
	soak_line("vfuzz_calls", fz->units, "calls");
	soak_line("failed_rounds", failures, "rounds");
	uint64_t d[3];
	for (unsigned i = 0; i < 3; i++)
		d[i] = r->prof1[i] - r->prof0[i];
	soak_line("prof_taken", d[0] + d[1] - d[2], "samples");   /* reached a session */
	soak_line("prof_ring_lost", d[1], "samples");
	soak_line("prof_unrouted", d[2], "samples");
	printf("soak: exit status: sprofile %d, workload %d, toucher %d%s\n", r->prof_st,
	       r->work_st, r->touch_st, r->overrun ? " (sprofile ended before the load)" : "");
	return !failures && !r->prof_st && !r->work_st && !r->touch_st && !r->overrun;
}

/* Warm up, baseline, load, leak check, summary; the exit status. */
static int soak_main(const soak_opts_t *o)
{
	static soak_run_t r;
	leak_snap_t before, after;

	printf("soak: %llu s on %u CPUs, sprofile -f %llu -g -o %s, seed %llu\n",
	       (unsigned long long)o->seconds, o->cpus, (unsigned long long)o->hz, o->out,
	       (unsigned long long)o->seed);
	bool ok = soak_warm_up(o);
	if (leak_settle(&before, SOAK_SETTLE_TRIES, NULL) != EOK)
		printf("soak: the counters did not settle before the run\n");
	leak_print("soak", "baseline", &before);
	errno_t rc = soak_load(o, &r);
	if (rc != EOK)
		printf("soak: could not start the load: %s\n", strerror(rc));
	ok &= rc == EOK && soak_report_load(&r);
	bool leak_ok = leak_check("soak", &before, &after, SOAK_SETTLE_TRIES);
	soak_delta("leaked_frames", after.frames, before.frames, "frames");
	soak_delta("leaked_heap", before.mem.heap_live - before.mem.heap_cached,
		   after.mem.heap_live - after.mem.heap_cached, "bytes");
	soak_delta("leaked_kstacks", before.mem.kstacks, after.mem.kstacks, "stacks");
	soak_delta("leaked_tasks", before.tasks, after.tasks, "tasks");
	soak_delta("leaked_threads", before.threads, after.threads, "threads");
	soak_print_latency();
	printf("soak: leak check %s\n", leak_ok ? "passed" : "FAILED");
	printf("soak: %s\n", ok && leak_ok ? "PASS" : "FAIL");
	return ok && leak_ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	soak_opts_t o = { .seconds = 60, .hz = 10000, .out = "com2", .stuck_s = SOAK_STUCK_S,
			  .seed = sys_clock_ns(CLOCK_MONOTONIC) };
	task_info_t me;
	int rc = soak_parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.touch)
		return soak_toucher(o.touch - 1);
	if (sys_task_info(0, &me) == EOK)
		soak_perms = me.perms & ~PERM_SYSTEM;
	o.cpus = soak_cpus();
	return soak_main(&o);
}
