/*
 * utest: the user-space test suite. Prints TAP on stdout ("ok N - desc",
 * "not ok N - desc", "# diag", the plan "1..N" at the end) and exits 0
 * iff every test passed. Run it as the kernel's "-- utest" (init powers
 * QEMU off with the verdict); test/user.t boots it on 1, 2 and 4 CPUs.
 *
 *   utest            run every test group
 *   utest GROUP...   run only these groups (see -h for the names)
 *
 * Some tests spawn /bin/tester (fault demonstrations, helpers) and
 * /bin/hello; before each deliberate fault the diagnostic line
 * "# expect report: tester fault KIND" lets the harness pair it with the
 * kernel's "task: N (tester): ..." report.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "utest.h"

long raw3(long n, long a1, long a2, long a3)
{
	return __vernier_syscall(n, a1, a2, a3, 0, 0, 0);
}

long get_thread_stats(thread_id_t id, thread_stats_t *st)
{
	return raw3(SYS_THREAD_STATS, (long)id, (long)st, 0);
}

long get_system_stats(system_stats_t *st)
{
	return raw3(SYS_SYSTEM_STATS, (long)st, 0, 0);
}

uint64_t now_ns(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

uint64_t spin_until(uint64_t deadline)
{
	volatile uint64_t work = 0;
	uint64_t n = 0;

	while (now_ns() < deadline) {
		for (int i = 0; i < 1000; i++)
			work++;
		n++;
	}
	return n;
}

uint64_t stats_cpu_ns(const thread_stats_t *st)
{
	return st->user_ns + st->kernel_ns;
}

unsigned cpus_online(void)
{
	system_stats_t st;

	if (get_system_stats(&st) < 0 || st.cpus_online == 0)
		return 1;
	return st.cpus_online;
}

errno_t run_wait(const char *const *argv, uint32_t perms, int *status)
{
	char path[64];
	task_id_t id;

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	errno_t rc = sys_spawn(path, argv, perms, &id);
	if (rc != EOK)
		return rc;
	return sys_wait(id, status, 0, NULL);
}

void check_hello(const char *why)
{
	const char *const argv[] = { "hello", NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0, "%s: /bin/hello still runs and exits 0",
	       why);
	if (rc != EOK || status != 0)
		tap_diag("spawn/wait error %d, status %s", rc, status_str(status));
}

const char *status_str(int status)
{
	static char buf[48];

	if (status & TASK_STATUS_KILLED)
		snprintf(buf, sizeof(buf), "killed (reason %d)",
			 status & ~TASK_STATUS_KILLED);
	else
		snprintf(buf, sizeof(buf), "exit %d", status);
	return buf;
}

/*
 * The groups and the number of tests each reports (the same on any number
 * of CPUs). The plan is their sum, printed first, so a test that silently
 * does not run (an early return, a skipped branch) fails the run.
 */
typedef struct group {
	const char *name;
	int tests;
	void (*tests_fn[4])(void);
} group_t;

static const group_t groups[] = {
	{ "threads", 4, { test_thread_join, test_thread_shared, test_tester_threads } },
	{ "sched", 6, { test_pin_hop, test_fair_share, test_parallel } },
	{ "time", 9, { test_sleep, test_clock, test_cputime } },
	{ "efault", 32, { test_efault, test_enosys } },
	{ "faults", 7, { test_faults } },
	{ "spawn", 14, { test_spawn_reap, test_kill, test_orphans, test_perms } },
	{ "fpu", 3, { test_fpu } },
	{ "regs", 3, { test_regs } },
	{ "reap", 1, { test_spawn_poll } },
	{ "map", 10, { test_map } },
	{ "sysinfo", 14, { test_sysinfo } },
	{ "loadavg", 1, { test_loadavg } },
	{ "prof", 23, { test_prof } },
	{ "profil", 8, { test_profil } },
	{ "cprof", 19, { test_cprof } },
	{ "libc", 29, { test_libc_files, test_libc_system, test_pthreads,
		    test_libc_numbers } },
	{ "calc", 2, { test_calc } },
	{ "limits", 12, { test_limits } },
	{ "bincache", 2, { test_bincache } },
	{ "klog", 6, { test_klog } },
	{ "harden", 14, { test_harden } },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: utest [-h] [GROUP...]\n  groups:");
	for (size_t i = 0; i < NGROUPS; i++)
		fprintf(out, " %s", groups[i].name);
	fprintf(out, " (default: all)\n");
}

static const group_t *find_group(const char *name)
{
	for (size_t i = 0; i < NGROUPS; i++)
		if (!strcmp(groups[i].name, name))
			return &groups[i];
	return NULL;
}

static void run_group(const group_t *g)
{
	int before = tap_tests();

	for (size_t i = 0; i < sizeof(g->tests_fn) / sizeof(g->tests_fn[0]); i++)
		if (g->tests_fn[i])
			g->tests_fn[i]();
	tap_group_done(g->name, before, g->tests);
}

static bool group_wanted(const group_t *g, int argc, char **argv)
{
	bool wanted = argc == 1;

	for (int j = 1; j < argc; j++)
		wanted |= !strcmp(argv[j], g->name);
	return wanted;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!find_group(argv[i])) {
			fprintf(stderr, "utest: unknown group '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	uint64_t t0 = now_ns();
	tap_diag("utest: %u CPUs online, task %lu", cpus_online(),
		 (unsigned long)sys_task_id());
	int plan = 0;
	for (size_t i = 0; i < NGROUPS; i++)
		plan += group_wanted(&groups[i], argc, argv) ? groups[i].tests : 0;
	tap_plan(plan);
	for (size_t i = 0; i < NGROUPS; i++)
		if (group_wanted(&groups[i], argc, argv))
			run_group(&groups[i]);
	tap_diag("utest: %d tests, %d failed, %llu ms", tap_tests(), tap_failures(),
		 (unsigned long long)((now_ns() - t0) / NS_PER_MS));
	return tap_end();
}
