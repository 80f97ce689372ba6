/*
 * utest limits: the per-task bounds of abi/limits.h (threads, memory
 * regions, tasks per tree) answer ELIMIT exactly at the bound, sysinfo
 * "system.limits.<id>" shows the usage, and the task works again once it
 * has given back what it held; a sleep of UINT64_MAX ns means forever.
 */
#include <abi/limits.h>
#include <stdio.h>
#include <thread.h>

#include "utest.h"

#define LIMIT_THREAD_STACK (16 * 1024)
#define LIMIT_TREE_TRIES (LIMIT_TASK_TREE + 16)
#define FOREVER_CHECK_NS (300 * NS_PER_MS)

static volatile int limit_stop;
static volatile int forever_woke = -1;

/* My usage record (all zero if the read fails). */
static sysinfo_limits_t my_limits(void)
{
	sysinfo_limits_t r = { 0 };
	char path[48];
	size_t got;

	snprintf(path, sizeof(path), "system.limits.%lu", (unsigned long)sys_task_id());
	if (sys_sysinfo_data(path, &r, sizeof(r), &got) != EOK || got != sizeof(r))
		r = (sysinfo_limits_t){ 0 };
	return r;
}

static long limit_idle_thread(void *arg)
{
	while (!limit_stop)
		sys_sleep_ns(20 * NS_PER_MS);
	return 0;
}

/* Start threads until one fails; their ids go to ids. Returns how many. */
static int limit_start_threads(thread_id_t *ids, int max, errno_t *last)
{
	int n = 0;

	*last = EOK;
	while (n < max) {
		*last = thread_start_stack(limit_idle_thread, NULL, LIMIT_THREAD_STACK, &ids[n]);
		if (*last != EOK)
			break;
		n++;
	}
	return n;
}

static void test_limit_threads(void)
{
	static thread_id_t ids[LIMIT_THREADS + 8];
	sysinfo_limits_t before = my_limits();
	errno_t last;

	limit_stop = 0;
	int n = limit_start_threads(ids, LIMIT_THREADS + 8, &last);
	sysinfo_limits_t during = my_limits();
	int expect = LIMIT_THREADS - (int)before.threads;
	tap_ok(last == ELIMIT && n == expect,
	       "limits: threads: %d more started, then ELIMIT (%d, error %d; %u held before)",
	       expect, n, last, before.threads);
	tap_ok(during.threads == LIMIT_THREADS && during.limit[2] == LIMIT_THREADS,
	       "limits: sysinfo shows %u of %u threads held", during.threads,
	       during.limit[2]);
	limit_stop = 1;
	for (int i = 0; i < n; i++)
		thread_join(ids[i], NULL);
	errno_t rc = thread_start_stack(limit_idle_thread, NULL, LIMIT_THREAD_STACK, &ids[0]);
	if (rc == EOK)
		thread_join(ids[0], NULL);
	tap_ok(rc == EOK, "limits: threads: a thread starts again once they are joined (%d)", rc);
}

static void test_limit_regions(void)
{
	static void *at[LIMIT_REGIONS + 8];
	sysinfo_limits_t before = my_limits();
	errno_t rc = EOK;
	int n = 0;

	while (n < LIMIT_REGIONS + 8 && (rc = sys_map(NULL, 4096, PROT_READ, &at[n])) == EOK)
		n++;
	sysinfo_limits_t during = my_limits();
	int expect = LIMIT_REGIONS - (int)before.regions;
	tap_ok(rc == ELIMIT && n == expect,
	       "limits: regions: %d more mapped, then ELIMIT (%d, error %d; %u before)",
	       expect, n, rc, before.regions);
	tap_ok(during.regions == LIMIT_REGIONS,
	       "limits: sysinfo shows %u of %u regions", during.regions, during.limit[4]);
	for (int i = 0; i < n; i++)
		sys_unmap(at[i], 4096);
	rc = sys_map(NULL, 4096, PROT_READ, &at[0]);
	if (rc == EOK)
		sys_unmap(at[0], 4096);
	tap_ok(rc == EOK, "limits: regions: mapping works again after unmapping (%d)", rc);
}

/* Spawn /bin/hello stopped; EOK and its id, or the error. */
static errno_t limit_spawn_stopped(task_id_t *id)
{
	static const char *const argv[] = { "hello", NULL };
	spawn_args_t a = { .path = "/bin/hello", .argv = argv, .flags = SPAWN_F_STOPPED };

	return sys_spawn_args(&a, id);
}

static void test_limit_tree(void)
{
	static task_id_t ids[LIMIT_TREE_TRIES];
	sysinfo_limits_t before = my_limits();
	errno_t rc = EOK;
	int n = 0;

	while (n < LIMIT_TREE_TRIES && (rc = limit_spawn_stopped(&ids[n])) == EOK)
		n++;
	sysinfo_limits_t during = my_limits();
	int expect = LIMIT_TASK_TREE - (int)before.tree_tasks;
	tap_ok(rc == ELIMIT && n == expect,
	       "limits: tasks: %d more spawned (stopped) in my tree, then ELIMIT "
	       "(%d, error %d; %u in the tree before)", expect, n, rc, before.tree_tasks);
	tap_ok(during.tree_tasks == LIMIT_TASK_TREE,
	       "limits: sysinfo shows %u of %u tasks in tree %lu", during.tree_tasks,
	       during.limit[3], (unsigned long)during.tree);
	int reaped = 0, status;
	for (int i = 0; i < n; i++) {
		sys_kill(ids[i]);
		reaped += sys_wait(ids[i], &status, 0, NULL) == EOK;
	}
	tap_ok(reaped == n && my_limits().tree_tasks == before.tree_tasks,
	       "limits: tasks: all %d killed and reaped, the tree is back to %u",
	       reaped, my_limits().tree_tasks);
	check_hello("limits: tasks");
}

static long forever_thread(void *arg)
{
	forever_woke = 0;
	errno_t rc = sys_sleep_ns(UINT64_MAX);
	forever_woke = 1 + (int)rc;
	return 0;
}

static void test_limit_forever(void)
{
	thread_id_t id;
	errno_t rc = thread_start(forever_thread, NULL, &id);

	if (!tap_ok(rc == EOK, "limits: a sleeper thread started (%d)", rc))
		return;
	sys_sleep_ns(FOREVER_CHECK_NS);
	tap_ok(forever_woke == 0,
	       "limits: sleep(UINT64_MAX) is still asleep after 300 ms (woke: %d)",
	       forever_woke);
	/* The thread sleeps on until utest exits (it cannot be woken). */
}

void test_limits(void)
{
	test_limit_threads();
	test_limit_regions();
	test_limit_tree();
	test_limit_forever();
}
