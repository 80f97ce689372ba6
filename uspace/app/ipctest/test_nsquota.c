/*
 * ipctest nsquota: the naming service's quotas per task tree (issue 27,
 * hole 10: 8 children of one task registered 61 of ns's 63 names, and
 * then every service_register got ELIMIT). Each test failed before the
 * quotas: one tree now holds at most LIMIT_NS_TREE_NAMES names, trees
 * outside the system trees leave LIMIT_NS_RESERVED slots to them, and
 * NS_M_STATUS reports the usage.
 *
 * Helpers spawned without permissions (`ipctest nsq-helper KIND P`), each
 * the root of a tree of its own:
 *   tree P   registers LIMIT_NS_NAMES names "P.h.i", then runs
 *            `limit-helper names P.c` and `limit-helper names P.d` (same
 *            tree); exits with the names accepted in all, + 100 if the
 *            last child's last name got ELIMIT
 *   hold P   registers up to LIMIT_NS_NAMES names "P.h.i" and runs
 *            `limit-helper names P.c` (whose names stay held), then
 *            starts a second thread to say it is done and sleeps until
 *            killed
 */
#include <abi/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#include "ipctest.h"

#define NSQ_TREES 5                        /* 5 x 16 > the 55 slots they share */
#define NSQ_SHARE (IPC_MAX_PHONES - 1 - LIMIT_NS_RESERVED)
#define NSQ_POLL_NS (10 * NS_PER_MS)
#define NSQ_WAIT_NS (20000 * NS_PER_MS)
#define NSQ_SLEEP_NS (3600 * 1000000000ull)

/* `limit-helper names PREFIX.suffix`: its status. */
static int nsq_names_child(const char *prefix, const char *suffix)
{
	char name[IPC_NAME_MAX + 1];
	const char *argv[] = { "ipctest", "limit-helper", "names", name, NULL };

	snprintf(name, sizeof(name), "%s.%s", prefix, suffix);
	return run_unprivileged(argv);
}

/* Register up to LIMIT_NS_NAMES names "prefix.h.i"; how many went. */
static int nsq_register(const char *prefix)
{
	char name[IPC_NAME_MAX + 1];
	int n = 0;

	for (int i = 0; i < LIMIT_NS_NAMES; i++) {
		snprintf(name, sizeof(name), "%s.h.%d", prefix, i);
		if (service_register(name) != EOK)
			break;
		n++;
	}
	return n;
}

static int helper_tree(const char *prefix)
{
	int n = nsq_register(prefix);
	int c = nsq_names_child(prefix, "c");
	int d = nsq_names_child(prefix, "d");

	if (c < 0 || d < 0)
		return 255;
	return n + c % 100 + d % 100 + (d >= 100 ? 100 : 0);
}

static long nsq_sleeper(void *arg)
{
	for (;;)
		sys_sleep_ns(NSQ_SLEEP_NS);
	return 0;
}

static int helper_hold(const char *prefix)
{
	thread_id_t tid;

	nsq_register(prefix);
	nsq_names_child(prefix, "c");
	thread_start(nsq_sleeper, NULL, &tid);
	return (int)nsq_sleeper(NULL);
}

int nsq_helper_main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[0], "tree"))
		return helper_tree(argv[1]);
	if (argc >= 2 && !strcmp(argv[0], "hold"))
		return helper_hold(argv[1]);
	return 2;
}

/* ------------------------------------------------ the tests */

static void nsq_tree(void)
{
	char prefix[IPC_NAME_MAX + 1];
	const char *argv[] = { "ipctest", "nsq-helper", "tree", prefix, NULL };

	make_name(prefix, sizeof(prefix), "nqt");
	int status = run_unprivileged(argv);
	tap_ok(status == LIMIT_NS_TREE_NAMES + 100,
	       "nsquota: one unprivileged tree (a task and two children) registers "
	       "%d names, then ELIMIT (status %d)", LIMIT_NS_TREE_NAMES, status);
}

/* Start `nsq-helper hold P.k`; wait until it says it is done. Its id or 0. */
static task_id_t nsq_hold(int k)
{
	char prefix[IPC_NAME_MAX + 1], what[16];
	const char *argv[] = { "ipctest", "nsq-helper", "hold", prefix, NULL };
	task_info_t info;
	task_id_t id;

	snprintf(what, sizeof(what), "nqh%d", k);
	make_name(prefix, sizeof(prefix), what);
	if (sys_spawn("/bin/ipctest", argv, 0, &id) != EOK)
		return 0;
	uint64_t deadline = now_ns() + NSQ_WAIT_NS;
	while (sys_task_info(id, &info) == EOK && info.threads == 1 && now_ns() < deadline)
		sys_sleep_ns(NSQ_POLL_NS);
	return id;
}

/* The trees' names as ns reports them; true if each had at most the quota. */
static bool nsq_fill(task_id_t ids[NSQ_TREES], int names[NSQ_TREES])
{
	bool ok = true;
	ns_status_t st;

	for (int k = 0; k < NSQ_TREES; k++) {
		ids[k] = nsq_hold(k);
		names[k] = ids[k] && ns_status(ids[k], &st) == EOK && st.tree == ids[k] ?
			(int)st.tree_names : -1;
		ok &= names[k] >= 0 && names[k] <= LIMIT_NS_TREE_NAMES;
	}
	return ok;
}

static void nsq_reserve(void)
{
	task_id_t ids[NSQ_TREES];
	int names[NSQ_TREES];
	char name[IPC_NAME_MAX + 1];
	ns_status_t st = { 0 };

	bool within = nsq_fill(ids, names);
	tap_ok(within && names[0] == LIMIT_NS_TREE_NAMES,
	       "nsquota: %d unprivileged trees hold %d %d %d %d %d names (each at most %d)",
	       NSQ_TREES, names[0], names[1], names[2], names[3], names[4],
	       LIMIT_NS_TREE_NAMES);
	errno_t rc = ns_status(ids[NSQ_TREES - 1], &st);
	tap_ok(rc == EOK && st.room == 0 && st.used >= NSQ_SHARE,
	       "nsquota: NS_M_STATUS: %u slots taken, room 0 for another such tree "
	       "(%u; %s)", st.used, st.room, err_str(rc));
	make_name(name, sizeof(name), "nqsys");
	rc = service_register(name);
	tap_ok(rc == EOK, "nsquota: a system tree (ours) still registers a name (%s)",
	       err_str(rc));
	if (rc == EOK)
		service_release(name);
	for (int k = 0; k < NSQ_TREES; k++)
		if (ids[k] && sys_kill(ids[k]) == EOK)
			sys_wait(ids[k], NULL, 0, NULL);
	make_name(name, sizeof(name), "nqafter");
	const char *argv[] = { "ipctest", "limit-helper", "names", name, NULL };
	int status = run_unprivileged(argv);
	tap_ok(status == LIMIT_NS_NAMES + 100,
	       "nsquota: once those trees are gone, a new one registers %d names "
	       "(status %d)", LIMIT_NS_NAMES, status);
}

void test_nsquota(void)
{
	nsq_tree();
	nsq_reserve();
}
