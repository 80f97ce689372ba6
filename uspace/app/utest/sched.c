/*
 * utest sched: a thread pinned to each CPU in turn runs there (tester
 * pin-hop); two CPU-bound threads pinned to one CPU share it evenly;
 * N CPU-bound threads pinned to N CPUs run at the same time. Times come
 * from SYS_THREAD_STATS (user + kernel time of each thread).
 */
#include <thread.h>

#include "utest.h"

#define FAIR_NS (2 * NS_PER_SEC)
#define FAIR_TOLERANCE 0.05      /* share of each: 50% +- 5% */
#define FAIR_SUM_TOLERANCE 0.10  /* their sum: the wall time +- 10% */
#define PAR_SPIN_NS (500 * NS_PER_MS)
/*
 * CPU time / wall time of each pinned thread. Two threads sharing a CPU
 * get at most 0.5 each, so 0.60 still says each had a CPU of its own;
 * 0.80 failed in clean-clone runs with 2 and 4 vCPUs on a loaded 2-core
 * host (367 of 500 ms, 417 of 638 ms: 0.73, 0.65).
 */
#define PAR_MIN_BUSY 0.60
#define MAX_CPUS 64

/* ------------------------------------------------------------- pin hop */

void test_pin_hop(void)
{
	const char *const argv[] = { "tester", "pin-hop", NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0,
	       "sched: `tester pin-hop` moves a thread to every CPU in turn (%s)",
	       rc == EOK ? status_str(status) : "spawn failed");
}

/* ---------------------------------------------------------- fair share */

typedef struct fair {
	uint64_t mask;
	volatile int ready;
	volatile int stop;
	volatile int pin_error;
} fair_t;

static long fair_thread(void *arg)
{
	fair_t *f = arg;
	volatile uint64_t work = 0;

	if (sys_set_affinity(0, f->mask) != EOK)
		f->pin_error = 1;
	__atomic_fetch_add(&f->ready, 1, __ATOMIC_RELEASE);
	while (!f->stop)
		work++;
	return 0;
}

/* Snapshot both threads' CPU time; 0 on success. */
static int fair_snapshot(const thread_id_t *tids, uint64_t *out)
{
	for (int i = 0; i < 2; i++) {
		thread_stats_t st;
		if (get_thread_stats(tids[i], &st) < 0)
			return -1;
		out[i] = stats_cpu_ns(&st);
	}
	return 0;
}

static void fair_check(const uint64_t *d, uint64_t wall, unsigned cpu)
{
	uint64_t sum = d[0] + d[1];
	double share = sum ? (double)d[0] / (double)sum : 0;
	double ratio = (double)sum / (double)wall;

	tap_diag("fair share on cpu %u: thread A %llu ms, thread B %llu ms, "
		 "sum %llu ms over %llu ms of wall time", cpu,
		 (unsigned long long)(d[0] / NS_PER_MS),
		 (unsigned long long)(d[1] / NS_PER_MS),
		 (unsigned long long)(sum / NS_PER_MS),
		 (unsigned long long)(wall / NS_PER_MS));
	tap_ok(share >= 0.5 - FAIR_TOLERANCE && share <= 0.5 + FAIR_TOLERANCE,
	       "sched: two threads pinned to one CPU get 50%% +- 5%% each "
	       "(A has %d.%d%%)", (int)(share * 100),
	       (int)(share * 1000) % 10);
	tap_ok(ratio >= 1 - FAIR_SUM_TOLERANCE && ratio <= 1 + FAIR_SUM_TOLERANCE,
	       "sched: their CPU times add up to the wall time +- 10%% (%d%%)",
	       (int)(ratio * 100));
}

void test_fair_share(void)
{
	static fair_t f;
	thread_id_t tids[2];
	uint64_t before[2], after[2], d[2];
	unsigned ncpu = cpus_online(), cpu = ncpu - 1;
	int started = 0;

	f = (fair_t){ .mask = 1ull << cpu };
	if (ncpu > 1)               /* keep out of the measured CPU's way */
		sys_set_affinity(0, 1);
	for (; started < 2; started++)
		if (thread_start(fair_thread, &f, &tids[started]) != EOK)
			break;
	while (started == 2 && f.ready < 2)
		sys_sleep_ns(10 * NS_PER_MS);
	int ok = started == 2 && !f.pin_error && fair_snapshot(tids, before) == 0;
	uint64_t t0 = now_ns();
	if (ok)
		sys_sleep_ns(FAIR_NS);
	ok = ok && fair_snapshot(tids, after) == 0;
	uint64_t wall = now_ns() - t0;
	f.stop = 1;
	for (int i = 0; i < started; i++)
		thread_join(tids[i], NULL);
	sys_set_affinity(0, ~0ull);
	if (!ok) {
		tap_ok(0, "sched: fair share set-up (threads %d, pin error %d)",
		       started, f.pin_error);
		return;
	}
	for (int i = 0; i < 2; i++)
		d[i] = after[i] - before[i];
	fair_check(d, wall, cpu);
}

/* ------------------------------------------------------------ parallel */

typedef struct par {
	unsigned cpu;               /* the CPU it is pinned to */
	int pin_error;
	uint64_t start, end;        /* CLOCK_MONOTONIC around the spin */
	thread_stats_t before, after;
} par_t;

static long par_thread(void *arg)
{
	par_t *p = arg;

	if (sys_set_affinity(0, 1ull << p->cpu) != EOK)
		p->pin_error = 1;
	get_thread_stats(0, &p->before);
	p->start = now_ns();
	spin_until(p->start + PAR_SPIN_NS);
	p->end = now_ns();
	get_thread_stats(0, &p->after);
	return 0;
}

/* Check the runs; returns the number of threads that misbehaved. */
static int par_check_threads(const par_t *p, unsigned n, uint64_t *first_end,
			     uint64_t *last_start)
{
	int bad = 0;

	*first_end = ~0ull;
	*last_start = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t wall = p[i].end - p[i].start;
		uint64_t busy = stats_cpu_ns(&p[i].after) - stats_cpu_ns(&p[i].before);
		int ok = !p[i].pin_error && p[i].after.cpu == i &&
			 p[i].before.cpu == i &&
			 (double)busy >= PAR_MIN_BUSY * (double)wall;
		tap_diag("parallel: thread %u on cpu %u, ran %llu..%llu ms, "
			 "busy %llu of %llu ms%s", i, p[i].after.cpu,
			 (unsigned long long)(p[i].start / NS_PER_MS),
			 (unsigned long long)(p[i].end / NS_PER_MS),
			 (unsigned long long)(busy / NS_PER_MS),
			 (unsigned long long)(wall / NS_PER_MS), ok ? "" : "  <-- wrong");
		bad += !ok;
		if (p[i].end < *first_end)
			*first_end = p[i].end;
		if (p[i].start > *last_start)
			*last_start = p[i].start;
	}
	return bad;
}

void test_parallel(void)
{
	static par_t p[MAX_CPUS];
	thread_id_t tids[MAX_CPUS];
	unsigned n = cpus_online(), started = 0;
	uint64_t first_end, last_start;

	if (n > MAX_CPUS)
		n = MAX_CPUS;
	for (; started < n; started++) {
		p[started] = (par_t){ .cpu = started };
		if (thread_start(par_thread, &p[started], &tids[started]) != EOK)
			break;
	}
	for (unsigned i = 0; i < started; i++)
		thread_join(tids[i], NULL);
	if (!tap_ok(started == n, "sched: started %u CPU-bound threads", n))
		return;
	int bad = par_check_threads(p, n, &first_end, &last_start);
	tap_ok(bad == 0, "sched: %u threads each ran on its own CPU, busy all "
	       "the time (>= %d%% of its wall time)", n, (int)(PAR_MIN_BUSY * 100));
	tap_ok(last_start < first_end,
	       "sched: the %u threads ran at the same time (every one started "
	       "before any finished)", n);
}
