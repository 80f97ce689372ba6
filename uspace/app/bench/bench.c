/*
 * bench: micro-benchmarks of the kernel, timed with rdtsc in user space.
 * Prints one line per figure, "name value unit", each value the median of
 * RUNS runs (default 31):
 *
 *   tsc.hz         cycle counter frequency (SYS_SYSTEM_STATS), to convert
 *   syscall.null   cycles per SYS_NULL (runs of 1000 calls)
 *   ctxsw.thread   cycles per switch between two threads of this task
 *                  pinned to one CPU, yielding to each other
 *   ctxsw.thread.offcpu  the same during a whole-system session with
 *                  off-CPU records (each switch writes one; timer 100 Hz)
 *   app.catwc      cycles of `sh -c "cat /boot/kernel | wc > FILE"`, a
 *                  small whole-system job (fs, a pipe, two programs; the
 *                  flight recorder's always-on cost is this figure with
 *                  and without recorder=0)
 *   spawn.exit     cycles per spawn of a program that exits at once plus
 *                  the wait for it (runs of 10)
 *   unmap.sparse   cycles of a SYS_UNMAP of 16 GiB with one page touched
 *   accounting.entry  cycles the kernel's time accounting adds to one
 *                  kernel entry and exit (measured by the kernel at boot
 *                  as the fastest of 21 batches: system.acct_entry_cycles)
 *   prof.*         what profiling costs (see bench_prof.c; one run)
 *   prof.throttle  prof's timer figures at 1, 10 and 100 kHz only
 *   prof.path      prof's figures for timer 10000 and rtcnmi 8192 only
 *                  (one sample's cost, quick; tools/samplecost.sh uses it)
 *   prof.path.chain  the same with call chains (timer.chain, rtcnmi.chain)
 *   prof.report    samples a second through the in-guest report
 *                  (bench_report.c; one run)
 *   cprof.*        what the call profiler's hooks cost callbench
 *                  (see bench_cprof.c; medians of its own runs)
 *   ipc.roundtrip.samecpu, ipc.roundtrip.crosscpu,
 *   ipc.roundtrip.samecpu.thread, ipc.datawrite, ipc.write64,
 *   ipc.write64k
 *                  IPC through the naming service (see bench_ipc.c)
 *   ipc.roundtrip.samecpu.traced  the same-CPU round trip during a
 *                  whole-system session tracing sched and ipc events
 *                  (each round trip writes about 7 records; issue 30)
 *
 * Usage: bench [-r RUNS] [FIGURE...]   (no FIGURE: all of them)
 * The hidden first argument "--exit-now" makes bench exit 0 at once: the
 * child spawn.exit starts; "--ipc-server NAME CPU" makes it the IPC
 * figures' server. A set-up may skip its figure (printing "# why").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <unistd.h>
#include <vernier.h>

#include "bench.h"

#define RUNS_DEFAULT 31
#define RUNS_MAX 1001
#define NULL_CALLS 1000
#define YIELDS 1000
#define SPAWNS 10
#define EXIT_NOW "--exit-now"

typedef struct figure {
	const char *name;
	const char *unit;
	/* One run: the figure's value, or -1 on failure. */
	long (*run)(void);
	/* Optional set-up and tear-down around the runs (0 = ok). */
	int (*setup)(void);
	void (*teardown)(void);
	/* Instead of run: a group that prints its own lines (0 = ok). */
	int (*group)(void);
} figure_t;

/* SYS_NULL inline, without the libc call around it. */
static inline long raw_null(void)
{
	long r = SYS_NULL;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
	return r;
}

static inline void raw_yield(void)
{
	long r = SYS_YIELD;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
}

/* ---------------------------------------------------------- unmap.sparse */

#define SPARSE_LEN (16ul << 30)

/* Cycles of one SYS_UNMAP of 16 GiB of which one page was touched. */
static long run_unmap_sparse(void)
{
	void *addr;

	if (sys_map(NULL, SPARSE_LEN, PROT_READ | PROT_WRITE, &addr) != EOK)
		return -1;
	*(volatile char *)addr = 1;
	uint64_t t0 = tsc_read();
	errno_t rc = sys_unmap(addr, SPARSE_LEN);
	uint64_t t1 = tsc_read();
	return rc == EOK ? (long)(t1 - t0) : -1;
}

/* ---------------------------------------------------------- syscall.null */

static long run_null(void)
{
	uint64_t t0 = tsc_read();
	for (int i = 0; i < NULL_CALLS; i++)
		raw_null();
	return (long)((tsc_read() - t0) / NULL_CALLS);
}

/* ---------------------------------------------------------- ctxsw.thread */

static volatile int partner_ready, partner_stop;
static thread_id_t partner_tid;
static uint64_t ctxsw_cpu_mask;

/* The other thread: yields back until told to stop. */
static long partner(void *arg)
{
	if (sys_set_affinity(0, ctxsw_cpu_mask) != EOK)
		return 1;
	partner_ready = 1;
	while (!partner_stop)
		raw_yield();
	return 0;
}

static int ctxsw_setup(void)
{
	ctxsw_cpu_mask = 1;            /* CPU 0: every machine has it */
	partner_ready = partner_stop = 0;
	if (sys_set_affinity(0, ctxsw_cpu_mask) != EOK)
		return -1;
	if (thread_start(partner, NULL, &partner_tid) != EOK)
		return -1;
	while (!partner_ready)
		raw_yield();
	return 0;
}

static void ctxsw_teardown(void)
{
	partner_stop = 1;
	thread_join(partner_tid, NULL);
	sys_set_affinity(0, ~0ull);
}

static long partner_switches(void)
{
	thread_stats_t st;
	long r = __vernier_syscall(SYS_THREAD_STATS, (long)partner_tid,
				   (long)&st, 0, 0, 0, 0);

	return r < 0 ? -1 : (long)st.switches;
}

/*
 * Each of our yields runs the partner until its yield: two switches. The
 * partner must have been given the CPU once per yield, or the figure
 * would measure yields that switched nothing.
 */
static long run_ctxsw(void)
{
	long before = partner_switches();
	uint64_t t0 = tsc_read();
	for (int i = 0; i < YIELDS; i++)
		raw_yield();
	uint64_t t1 = tsc_read();
	long after = partner_switches();
	if (before < 0 || after - before < YIELDS) {
		printf("bench: ctxsw.thread: partner ran %ld times for %d yields\n",
		       after - before, YIELDS);
		return -1;
	}
	return (long)((t1 - t0) / (2 * YIELDS));
}

/*
 * One run of ctxsw.thread with room for every record: the drain empties
 * the off-CPU ring while this thread sleeps (a run writes 2 * YIELDS
 * records, about 160 KiB of the CPU's 256 KiB), so the figure is the
 * cost of writing them, not of dropping them on a full ring.
 */
static long run_ctxsw_offcpu(void)
{
	sys_sleep_ns(200 * 1000000ull);
	return run_ctxsw();
}

static int ctxsw_offcpu_setup(void)
{
	int rc = bench_offcpu_begin();

	if (rc == 0 && (rc = ctxsw_setup()) != 0)
		bench_offcpu_end();
	return rc;
}

static void ctxsw_offcpu_teardown(void)
{
	ctxsw_teardown();
	bench_offcpu_end();
}

/*
 * One run of the same-CPU round trip with room for every trace record:
 * the drain empties the rings while this thread sleeps (a run writes
 * about 7 * IPC_RT_CALLS records, 670 KiB of the CPU's 1 MiB).
 */
static long run_ipc_traced(void)
{
	sys_sleep_ns(200 * 1000000ull);
	return run_ipc_roundtrip();
}

static int ipc_traced_setup(void)
{
	int rc = bench_traced_begin("ipc.roundtrip.samecpu.traced");

	if (rc == 0 && (rc = ipc_rt_same_setup()) != 0)
		bench_traced_end("ipc.roundtrip.samecpu.traced");
	return rc;
}

static void ipc_traced_teardown(void)
{
	ipc_teardown();
	bench_traced_end("ipc.roundtrip.samecpu.traced");
}

/* ------------------------------------------------------------ spawn.exit */

static long run_spawn(void)
{
	const char *const argv[] = { "bench", EXIT_NOW, NULL };
	uint64_t t0 = tsc_read();

	for (int i = 0; i < SPAWNS; i++) {
		task_id_t id;
		int status;
		if (sys_spawn("/bin/bench", argv, 0, &id) != EOK ||
		    sys_wait(id, &status, 0, NULL) != EOK || status != 0)
			return -1;
	}
	return (long)((tsc_read() - t0) / SPAWNS);
}

/* ------------------------------------------------------------- app.catwc */

static long run_catwc(void)
{
	const char *const argv[] = { "sh", "-c", "cat /boot/kernel | wc > /tmp/bench-catwc.out",
				     NULL };
	uint64_t t0 = tsc_read();
	task_id_t id;
	int status;

	if (sys_spawn("/bin/sh", argv, 0, &id) != EOK || sys_wait(id, &status, 0, NULL) != EOK ||
	    status != 0)
		return -1;
	return (long)(tsc_read() - t0);
}

/* ------------------------------------------------------ accounting.entry */

static long run_acct_entry(void)
{
	uint64_t v;

	return sys_sysinfo_int("system.acct_entry_cycles", &v) == EOK ? (long)v : -1;
}

/* --------------------------------------------------------------- driver */

static const figure_t figures[] = {
	{ "syscall.null", "cycles", run_null, NULL, NULL, NULL },
	{ "ctxsw.thread", "cycles", run_ctxsw, ctxsw_setup, ctxsw_teardown, NULL },
	{ "ctxsw.thread.offcpu", "cycles", run_ctxsw_offcpu, ctxsw_offcpu_setup,
	  ctxsw_offcpu_teardown, NULL },
	{ "spawn.exit", "cycles", run_spawn, NULL, NULL, NULL },
	{ "app.catwc", "cycles", run_catwc, NULL, NULL, NULL },
	{ "unmap.sparse", "cycles", run_unmap_sparse, NULL, NULL, NULL },
	{ "accounting.entry", "cycles", run_acct_entry, NULL, NULL, NULL },
	{ "ipc.roundtrip.samecpu", "cycles", run_ipc_roundtrip, ipc_rt_same_setup,
	  ipc_teardown, NULL },
	{ "ipc.roundtrip.crosscpu", "cycles", run_ipc_roundtrip, ipc_rt_cross_setup,
	  ipc_teardown, NULL },
	{ "ipc.roundtrip.samecpu.thread", "cycles", run_ipc_roundtrip,
	  ipc_rt_thread_setup, ipc_teardown, NULL },
	{ "ipc.roundtrip.samecpu.traced", "cycles", run_ipc_traced, ipc_traced_setup,
	  ipc_traced_teardown, NULL },
	{ "ipc.datawrite", "MB/s", run_ipc_datawrite, ipc_datawrite_setup,
	  ipc_teardown, NULL },
	{ "ipc.write64", "cycles", run_ipc_write64, ipc_datawrite_setup,
	  ipc_teardown, NULL },
	{ "ipc.write64k", "cycles", run_ipc_write64k, ipc_datawrite_setup,
	  ipc_teardown, NULL },
	{ "prof", NULL, NULL, NULL, NULL, bench_prof },
	{ "prof.throttle", NULL, NULL, NULL, NULL, bench_prof_throttle },
	{ "prof.path", NULL, NULL, NULL, NULL, bench_prof_path },
	{ "prof.path.chain", NULL, NULL, NULL, NULL, bench_prof_path_chain },
	{ "prof.report", NULL, NULL, NULL, NULL, bench_prof_report },
	{ "cprof", NULL, NULL, NULL, NULL, bench_cprof },
};
#define NFIGURES (sizeof(figures) / sizeof(figures[0]))

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Run one figure `runs` times and print its median; 0 on success. */
static int measure(const figure_t *f, int runs)
{
	static long values[RUNS_MAX];

	if (f->group)
		return f->group();
	int setup = f->setup ? f->setup() : 0;
	if (setup > 0)
		return 0;                   /* skipped; the set-up said why */
	if (setup != 0) {
		printf("bench: %s: set-up failed\n", f->name);
		return -1;
	}
	f->run();                       /* warm up caches and pages */
	int ok = 1;
	for (int i = 0; i < runs && ok; i++) {
		values[i] = f->run();
		ok = values[i] >= 0;
	}
	if (f->teardown)
		f->teardown();
	if (!ok) {
		printf("bench: %s: a run failed\n", f->name);
		return -1;
	}
	qsort(values, (size_t)runs, sizeof(values[0]), cmp_long);
	printf("%s %ld %s\n", f->name, values[runs / 2], f->unit);
	return 0;
}

static int print_tsc_hz(void)
{
	system_stats_t st;
	long r = __vernier_syscall(SYS_SYSTEM_STATS, (long)&st, 0, 0, 0, 0, 0);

	if (r < 0) {
		printf("bench: system stats failed (error %ld)\n", -r);
		return -1;
	}
	printf("tsc.hz %llu Hz\n", (unsigned long long)st.tsc_hz);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: bench [-h] [-r RUNS] [FIGURE...]\n"
		"  -r RUNS  runs per figure, median reported (default %d, odd is best)\n"
		"  figures:", RUNS_DEFAULT);
	for (size_t i = 0; i < NFIGURES; i++)
		fprintf(out, " %s", figures[i].name);
	fprintf(out, " (default: all)\n");
}

static const figure_t *find_figure(const char *name)
{
	for (size_t i = 0; i < NFIGURES; i++)
		if (!strcmp(figures[i].name, name))
			return &figures[i];
	return NULL;
}

int main(int argc, char **argv)
{
	int runs = RUNS_DEFAULT, opt, failed = 0;
	char *end;

	if (argc == 2 && !strcmp(argv[1], EXIT_NOW))
		return 0;
	if (argc > 1 && !strcmp(argv[1], BENCH_IPC_SERVER))
		return bench_ipc_server(argc - 2, argv + 2);
	while ((opt = getopt(argc, argv, "hr:")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'r':
			runs = (int)strtol(optarg, &end, 10);
			if (*end || runs < 1 || runs > RUNS_MAX) {
				fprintf(stderr, "bench: -r wants 1..%d\n", RUNS_MAX);
				return 2;
			}
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!find_figure(argv[i])) {
			fprintf(stderr, "bench: unknown figure '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	failed |= print_tsc_hz();
	for (size_t i = 0; i < NFIGURES; i++) {
		int wanted = optind == argc;
		for (int j = optind; j < argc; j++)
			wanted |= !strcmp(argv[j], figures[i].name);
		if (wanted)
			failed |= measure(&figures[i], runs);
	}
	return failed ? 1 : 0;
}
