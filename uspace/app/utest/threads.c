/*
 * utest threads: create and join many threads (values round-trip), threads
 * of one task sharing memory (an atomic counter bumped by 8 threads), and
 * `tester threads` as a separate task.
 */
#include <thread.h>

#include "utest.h"

#define JOIN_THREADS 200
#define SHARED_THREADS 8
#define SHARED_INCREMENTS 100000

static long join_value(long i)
{
	return (i << 20) ^ (0x5a5a + i * 3);
}

static long join_thread(void *arg)
{
	return join_value((long)arg);
}

void test_thread_join(void)
{
	static thread_id_t tids[JOIN_THREADS];
	int started = 0, joined = 0, bad = 0;

	for (; started < JOIN_THREADS; started++)
		if (thread_start(join_thread, (void *)(long)started,
				 &tids[started]) != EOK)
			break;
	/* Join in reverse order, so some are still running when joined. */
	for (int i = started - 1; i >= 0; i--) {
		long v = -1;
		errno_t rc = thread_join(tids[i], &v);
		joined += rc == EOK;
		if (rc != EOK || v != join_value(i)) {
			if (bad++ < 5)
				tap_diag("thread %d: join error %d, value %ld, want %ld",
					 i, rc, v, join_value(i));
		}
	}
	tap_ok(started == JOIN_THREADS && joined == JOIN_THREADS && bad == 0,
	       "threads: %d threads started and joined, values round-trip",
	       JOIN_THREADS);
	if (started != JOIN_THREADS || bad)
		tap_diag("started %d, joined %d, wrong %d", started, joined, bad);
	/* A joined thread cannot be joined again. */
	long v;
	tap_ok(started > 0 && thread_join(tids[0], &v) == ESRCH,
	       "threads: joining a joined thread fails with ESRCH");
}

typedef struct shared {
	volatile uint64_t counter;
	volatile uint64_t seen[SHARED_THREADS];  /* written by each thread */
	volatile int go;
} shared_t;

static shared_t shared;

static long shared_thread(void *arg)
{
	long me = (long)arg;

	while (!shared.go)
		sys_yield();
	for (int i = 0; i < SHARED_INCREMENTS; i++)
		__atomic_fetch_add(&shared.counter, 1, __ATOMIC_RELAXED);
	shared.seen[me] = (uint64_t)me + 1000;
	return 0;
}

void test_thread_shared(void)
{
	thread_id_t tids[SHARED_THREADS];
	int started = 0;

	shared.counter = 0;
	shared.go = 0;
	for (; started < SHARED_THREADS; started++)
		if (thread_start(shared_thread, (void *)(long)started,
				 &tids[started]) != EOK)
			break;
	shared.go = 1;
	for (int i = 0; i < started; i++)
		thread_join(tids[i], NULL);
	int seen_ok = 1;
	for (int i = 0; i < started; i++)
		seen_ok &= shared.seen[i] == (uint64_t)i + 1000;
	uint64_t want = (uint64_t)SHARED_THREADS * SHARED_INCREMENTS;
	tap_ok(started == SHARED_THREADS && shared.counter == want && seen_ok,
	       "threads: %d threads share memory (atomic counter %llu, want %llu)",
	       SHARED_THREADS, (unsigned long long)shared.counter,
	       (unsigned long long)want);
}

void test_tester_threads(void)
{
	const char *const argv[] = { "tester", "threads", "100", NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0,
	       "threads: `tester threads 100` in its own task exits 0 (%s)",
	       rc == EOK ? status_str(status) : "spawn failed");
}
