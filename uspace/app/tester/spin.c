/*
 * tester spin SECONDS [THREADS]: THREADS threads (default 1) each burn CPU
 * for SECONDS of wall time, then report their iterations, the CPU they
 * ended on and their CPU and user time (SYS_THREAD_STATS).
 * tester threads [N]: start N threads (default 100), each returning a
 * value derived from its argument, join them all and check the values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <thread.h>
#include <vernier.h>

#include "tester.h"

#define NS_PER_SEC 1000000000ull
#define NS_PER_MS 1000000ull
#define SPIN_MAX_THREADS 64
#define SPIN_MAX_SECONDS 3600
#define SPIN_BATCH 10000
#define THREADS_MAX 1000
#define THREADS_DEFAULT 100

typedef struct spinner {
	uint64_t deadline;          /* CLOCK_MONOTONIC ns */
	uint64_t iterations;
	thread_stats_t stats;       /* taken by the thread itself at the end */
	long stats_rc;
} spinner_t;

static long spin_thread(void *arg)
{
	spinner_t *s = arg;
	volatile uint64_t work = 0;

	while (sys_clock_ns(CLOCK_MONOTONIC) < s->deadline) {
		for (int i = 0; i < SPIN_BATCH; i++)
			work++;
		s->iterations += SPIN_BATCH;
	}
	s->stats_rc = get_thread_stats(0, &s->stats);
	return 0;
}

static void spin_report(const spinner_t *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		if (s[i].stats_rc < 0) {
			printf("spin: thread %lu: %llu iterations, stats error %ld\n",
			       i, (unsigned long long)s[i].iterations, -s[i].stats_rc);
			continue;
		}
		const thread_stats_t *st = &s[i].stats;
		printf("spin: thread %lu (id %llu): %llu iterations, cpu %u, "
		       "cpu time %llu ms, user %llu ms\n", i,
		       (unsigned long long)st->id,
		       (unsigned long long)s[i].iterations, st->cpu,
		       (unsigned long long)((st->user_ns + st->kernel_ns) / NS_PER_MS),
		       (unsigned long long)(st->user_ns / NS_PER_MS));
	}
}

int cmd_spin(int argc, char **argv)
{
	static spinner_t spinners[SPIN_MAX_THREADS];
	thread_id_t tids[SPIN_MAX_THREADS];
	unsigned long secs, n = 1;

	if (argc < 2 || argc > 3 ||
	    parse_ulong(argv[1], 0, SPIN_MAX_SECONDS, &secs) ||
	    (argc == 3 && parse_ulong(argv[2], 1, SPIN_MAX_THREADS, &n))) {
		usage(0);
		return 2;
	}
	uint64_t deadline = sys_clock_ns(CLOCK_MONOTONIC) + secs * NS_PER_SEC;
	unsigned long started = 0;
	for (; started < n; started++) {
		spinners[started].deadline = deadline;
		errno_t rc = thread_start(spin_thread, &spinners[started],
					  &tids[started]);
		if (rc != EOK) {
			printf("spin: thread_start failed (error %d)\n", rc);
			break;
		}
	}
	for (unsigned long i = 0; i < started; i++)
		thread_join(tids[i], NULL);
	spin_report(spinners, started);
	return started == n ? 0 : 1;
}

/* The value thread i returns, a function of its argument. */
static long thread_value(long arg)
{
	return arg * 7919 + 13;
}

static long value_thread(void *arg)
{
	return thread_value((long)arg);
}

int cmd_threads(int argc, char **argv)
{
	unsigned long n = THREADS_DEFAULT;

	if (argc > 2 || (argc == 2 && parse_ulong(argv[1], 1, THREADS_MAX, &n))) {
		usage(0);
		return 2;
	}
	thread_id_t *tids = calloc(n, sizeof(*tids));
	if (!tids) {
		printf("threads: out of memory\n");
		return 1;
	}
	unsigned long started = 0, joined = 0, bad = 0;
	for (; started < n; started++) {
		errno_t rc = thread_start(value_thread, (void *)(long)started,
					  &tids[started]);
		if (rc != EOK) {
			printf("threads: thread_start %lu failed (error %d)\n",
			       started, rc);
			break;
		}
	}
	for (unsigned long i = 0; i < started; i++) {
		long v = -1;
		errno_t rc = thread_join(tids[i], &v);
		if (rc == EOK)
			joined++;
		if (rc != EOK || v != thread_value((long)i)) {
			printf("threads: thread %lu: join error %d, value %ld, "
			       "expected %ld\n", i, rc, v, thread_value((long)i));
			bad++;
		}
	}
	printf("threads: %lu started, %lu joined, %lu mismatches\n", started,
	       joined, bad);
	free(tids);
	return started == n && joined == n && bad == 0 ? 0 : 1;
}
