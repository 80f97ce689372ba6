/*
 * utest faults and spawn: tasks that fault are killed alone (status
 * TASK_STATUS_KILLED | KILL_REASON_FAULT); 1,000 spawn/reap cycles give
 * every frame back; 200 children reaped by polling as they exit (reap);
 * SYS_KILL ends a spinning task and refuses the kernel task and unknown
 * ids; a child without permissions cannot gain them.
 */
#include <ipc.h>
#include <stdio.h>
#include <tasktree.h>

#include "utest.h"

#define SPAWN_WARMUP 10
#define SPAWN_COUNT 1000
#define SPAWN_POLLED 200
#define KILL_SETTLE_NS (200 * NS_PER_MS)
#define KILL_MAX_NS (2 * NS_PER_SEC)
#define NO_SUCH_TASK (1ull << 40)

static uint32_t task_count(void)
{
	system_stats_t st;

	return get_system_stats(&st) < 0 ? 0 : st.tasks;
}

/* ------------------------------------------------------------ faults */

static const char *const fault_kinds[] = { "null", "div0", "priv", "stack",
					   "kernel" };

void test_faults(void)
{
	uint32_t tasks_before = task_count();

	for (size_t i = 0; i < sizeof(fault_kinds) / sizeof(fault_kinds[0]); i++) {
		const char *const argv[] = { "tester", "fault", fault_kinds[i], NULL };
		int status = -1;
		tap_diag("expect report: tester fault %s", fault_kinds[i]);
		errno_t rc = run_wait(argv, 0, &status);
		tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_FAULT),
		       "faults: `tester fault %s` is killed for its fault (%s)",
		       fault_kinds[i], rc == EOK ? status_str(status) : "spawn failed");
	}
	uint32_t tasks_after = task_count();
	tap_ok(tasks_after == tasks_before,
	       "faults: only the faulting tasks died and all were reaped "
	       "(%u tasks before, %u after)", tasks_before, tasks_after);
	check_hello("after the faults");
}

/* ------------------------------------------------------- spawn / reap */

/* n spawn+wait cycles of `tester noop`; returns how many went wrong. */
static int spawn_many(int n)
{
	const char *const argv[] = { "tester", "noop", NULL };
	int bad = 0;

	for (int i = 0; i < n; i++) {
		int status = -1;
		if (run_wait(argv, 0, &status) != EOK || status != 0)
			bad++;
	}
	return bad;
}

/*
 * n children (`tester orphan zombie`: each leaves a dead grandchild) reaped
 * by polling with WAIT_NOHANG, so a child may be reaped while the reaper
 * is still waking this task for it. Returns how many went wrong.
 */
static int spawn_poll_many(int n)
{
	const char *const argv[] = { "tester", "orphan", "zombie", NULL };
	int bad = 0;

	for (int i = 0; i < n; i++) {
		task_id_t id = 0, got = 0;
		int status = -1;
		errno_t rc = sys_spawn("/bin/tester", argv, 0, &id);
		while (rc == EOK && got != id) {
			rc = sys_wait(id, &status, WAIT_NOHANG, &got);
			if (rc == EAGAIN) {
				sys_yield();         /* the grandchild may be queued here */
				rc = EOK;
			}
		}
		bad += rc != EOK || status != 0;
	}
	return bad;
}

void test_spawn_poll(void)
{
	uint64_t t0 = now_ns();
	int bad = spawn_poll_many(SPAWN_POLLED);
	tap_diag("spawn: %d polled reaps in %llu ms", SPAWN_POLLED,
		 (unsigned long long)((now_ns() - t0) / NS_PER_MS));
	tap_ok(bad == 0, "spawn: %d children reaped by polling while they exit "
	       "(%d failed)", SPAWN_POLLED, bad);
}

void test_spawn_reap(void)
{
	system_stats_t before, after;

	int bad = spawn_many(SPAWN_WARMUP);
	get_system_stats(&before);
	uint64_t t0 = now_ns();
	bad += spawn_many(SPAWN_COUNT);
	uint64_t dt = now_ns() - t0;
	get_system_stats(&after);
	tap_diag("spawn: %d spawn+wait in %llu ms; free frames %llu before, "
		 "%llu after; tasks %u before, %u after", SPAWN_COUNT,
		 (unsigned long long)(dt / NS_PER_MS),
		 (unsigned long long)before.frames_free,
		 (unsigned long long)after.frames_free, before.tasks, after.tasks);
	tap_ok(bad == 0, "spawn: %d+%d children spawned, exited 0 and were "
	       "reaped (%d failed)", SPAWN_WARMUP, SPAWN_COUNT, bad);
	tap_ok(after.frames_free == before.frames_free,
	       "spawn: %d spawn/reap cycles leave the free frame count as it was",
	       SPAWN_COUNT);
	tap_ok(after.tasks == before.tasks, "spawn: and the task count");
}

/* ---------------------------------------------------------------- kill */

void test_kill(void)
{
	const char *const argv[] = { "tester", "spin", "30", "2", NULL };
	const char *step = "spawn";
	task_id_t id = 0;
	int status = -1;
	uint64_t dt = 0;

	errno_t rc = sys_spawn("/bin/tester", argv, 0, &id);
	if (rc == EOK) {
		sys_sleep_ns(KILL_SETTLE_NS);       /* let it spin */
		step = "kill";
		rc = sys_kill(id);
		uint64_t t0 = now_ns();
		errno_t wrc = sys_wait(id, &status, 0, NULL);
		dt = now_ns() - t0;
		if (rc != EOK && wrc == EOK)
			tap_diag("kill: refused, tester spin had ended: %s",
				 status_str(status));
		if (rc == EOK && wrc != EOK) {
			rc = wrc;
			step = "wait";
		}
	}
	char why[64];
	snprintf(why, sizeof(why), "%s failed: error %d", step, rc);
	tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_SIGNAL),
	       "kill: a spinning 2-thread task is killed (%s)",
	       rc == EOK ? status_str(status) : why);
	tap_ok(rc == EOK && dt < KILL_MAX_NS,
	       "kill: it was gone within 2 s (%llu ms)",
	       (unsigned long long)(dt / NS_PER_MS));
	rc = sys_kill(id);
	tap_ok(rc == ESRCH, "kill: a reaped task id gives ESRCH (%d)", rc);
	rc = sys_kill(0);
	tap_ok(rc == EPERM, "kill: the kernel task (0) gives EPERM (%d)", rc);
	rc = sys_kill(NO_SUCH_TASK);
	tap_ok(rc == ESRCH, "kill: a nonexistent task gives ESRCH (%d)", rc);
	check_hello("after the kill");
}

/*
 * Regression: a task whose parent is gone is reaped by the kernel; its
 * last thread was once freed after the task, a use-after-free.
 */
void test_orphans(void)
{
	const char *const argv[] = { "tester", "orphan", NULL };
	system_stats_t before, after;
	int status = -1;

	get_system_stats(&before);
	for (int i = 0; i < 5; i++)
		run_wait(argv, 0, &status);
	uint64_t t0 = now_ns();
	do {
		sys_sleep_ns(100 * NS_PER_MS);
		get_system_stats(&after);
	} while (after.tasks != before.tasks && now_ns() - t0 < 5 * 1000 * NS_PER_MS);
	tap_ok(status == 0 && after.tasks == before.tasks,
	       "orphans: 5 orphaned tasks are reaped by the kernel (tasks %u before, %u after)",
	       before.tasks, after.tasks);
	check_hello("after the orphans");
}

/* --------------------------------------------------------- permissions */

void test_perms(void)
{
	const char *const argv[] = { "tester", "perm-escalate", NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0,
	       "perms: a child with no permissions cannot spawn with PERM_ALL, "
	       "kill its parent or power off (%s)",
	       rc == EOK ? status_str(status) : "spawn failed");
	uint32_t perms = 0xdead;
	tap_ok(sys_ipc_caller_perms(0, &perms) == ENOENT &&
	       sys_ipc_caller_perms((ipc_callid_t)-1, &perms) == ENOENT && perms == 0xdead,
	       "perms: sys_ipc_caller_perms of a call we did not receive: ENOENT");
	const char *const zero[] = { "tester", "tree-zero", NULL };
	task_id_t me = sys_task_id();
	rc = run_wait(zero, PERM_ALL, &status);
	tap_ok(rc == EOK && status == 0 && task_in_tree(me, me) && !task_in_tree(0, me),
	       "perms: task_quota_root(0) is 0 in a child with our permissions, not "
	       "the caller's root (%s)", rc == EOK ? status_str(status) : "spawn failed");
}
