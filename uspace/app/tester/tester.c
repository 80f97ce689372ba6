/*
 * tester: demonstrations and helpers for the user-space tests (utest).
 *
 *   tester fault null|div0|priv|stack|kernel|umip  commit that fault
 *   tester smash                               overflow a local array over
 *                                              its canary (the stack
 *                                              protector ends the task, 134)
 *   tester canary                              exit 0 if the canary is set
 *   tester io PORT [FIRST COUNT]               open ports FIRST.. (exit 3 if
 *                                              refused), read PORT (faults
 *                                              if it is not open)
 *   tester io-deny [noperm]                    exit 0 if kernel-owned and
 *                                              bad port ranges are refused
 *   tester io-revoke CPU                       open COM2, revoke it, read
 *                                              it on CPU (faults)
 *   tester io-revoke-spin                      revoke COM2 while another
 *                                              thread reads it (faults)
 *   tester spin SECONDS [THREADS]              burn CPU, report times
 *   tester threads [N]                         create and join N threads
 *   tester touch-unmapped                      map, unmap, touch (faults)
 *   tester touch-protnone                      touch PROT_NONE memory (faults)
 *   tester thread-guard                        exit 0 if nothing maps in the
 *                                              guard below a thread stack
 *   tester thread-overflow                     a thread overflows its stack
 *                                              (faults)
 *   tester perm-escalate                       exit 0 if privileges that
 *                                              were not granted are refused
 *   tester tree-zero                           exit 0 if task_quota_root(0)
 *                                              is 0 (run it below a parent
 *                                              with the same permissions)
 *   tester pin-hop                             run on each CPU in turn
 *   tester noop                                exit 0 at once
 *   tester power off|reboot                    ACPI power off / restart
 *   tester orphan [zombie]                     start `tester spin 1`, exit at once
 *                                              (zombie: start `tester noop`,
 *                                              exit once it has ended)
 *   tester env                                 print the working directory,
 *                                              the arguments and environment
 *   tester copy                                copy standard input to
 *                                              standard output, a report
 *                                              to standard error
 *   tester profil-peek                         exit 0 if another's profil
 *                                              cannot be stopped or read
 *   tester klog-peek                           exit 0 if the kernel log
 *                                              cannot be read
 *   tester console-forge LINE [MS]             log LINE, then flood (for
 *                                              MS ms): exit 0 if the
 *                                              flood was cut
 *   tester console-long                        exit 0 if a 1024-byte line
 *                                              is logged, 1025 refused
 *   tester raw                                 raw mode at its first
 *                                              console call and back:
 *                                              exit 0, 3 if refused
 *   tester prof-self                           profile itself: exit 0 if
 *                                              no kernel address came
 *   tester ipc-short                           exit 0 if a short call has
 *                                              no rights we lack
 *   tester fsstale PATH                        open PATH, read it until the
 *                                              file service comes back:
 *                                              exit 0 if the old
 *                                              descriptor gives EBADF
 *   tester klog TEXT                           log TEXT as a kernel line
 *   tester kholes                              TAP: kernel hole probes
 *                                              (kholes.c; kholes-fault,
 *                                              kholes-flood N, kholes-hog,
 *                                              kholes-victim: its helpers)
 *
 * Exit status 2 means bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tasktree.h>
#include <unistd.h>
#include <vernier.h>

#include "tester.h"

void usage(int ok)
{
	fprintf(ok ? stdout : stderr,
		"usage: tester fault null|div0|priv|stack|kernel|umip\n"
		"       tester smash\n"
		"       tester canary\n"
		"       tester io PORT [FIRST COUNT]\n"
		"       tester io-deny [noperm]\n"
		"       tester io-revoke CPU\n"
		"       tester io-revoke-spin\n"
		"       tester spin SECONDS [THREADS]\n"
		"       tester threads [N]\n"
		"       tester touch-unmapped\n"
		"       tester touch-protnone\n"
		"       tester thread-guard\n"
		"       tester thread-overflow\n"
		"       tester perm-escalate\n"
		"       tester pin-hop\n"
		"       tester noop\n"
		"       tester power off|reboot\n"
		"       tester orphan [zombie]\n"
		"       tester env [ARGS...]\n"
		"       tester copy\n"
		"       tester profil-peek\n"
		"       tester klog-peek\n"
		"       tester console-forge LINE [MS]\n"
		"       tester console-long\n"
		"       tester prof-self\n"
		"       tester ipc-short\n"
		"       tester fsstale PATH\n"
		"       tester klog TEXT\n"
		"       tester kholes | kholes-fault | kholes-flood N | kholes-hog | kholes-victim\n"
		"       tester -h\n");
}

int parse_ulong(const char *s, unsigned long min, unsigned long max,
		unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long get_thread_stats(thread_id_t id, thread_stats_t *st)
{
	return __vernier_syscall(SYS_THREAD_STATS, (long)id, (long)st, 0, 0, 0,
				 0);
}

/*
 * Run with no permissions: spawning with more, killing the parent and
 * powering off must all be refused with EPERM. Exit 0 if they were, else
 * the number of the check that went wrong.
 */
static int cmd_perm_escalate(int argc, char **argv)
{
	task_info_t me;
	task_id_t id;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (sys_task_info(sys_task_id(), &me) != EOK || me.perms != 0) {
		printf("tester: perm-escalate wants to run with no permissions\n");
		return 1;
	}
	const char *const argv_noop[] = { "tester", "noop", NULL };
	errno_t rc = sys_spawn("/bin/tester", argv_noop, PERM_ALL, &id);
	if (rc != EPERM) {
		printf("tester: spawn with PERM_ALL gave %d, not EPERM\n", rc);
		if (rc == EOK)
			sys_wait(id, NULL, 0, NULL);
		return 3;
	}
	rc = sys_kill(me.parent);
	if (rc != EPERM) {
		printf("tester: kill of the parent gave %d, not EPERM\n", rc);
		return 4;
	}
	rc = sys_poweroff(POWEROFF_TEST_FAIL);
	if (rc != EPERM) {
		printf("tester: poweroff gave %d, not EPERM\n", rc);
		return 5;
	}
	return 0;
}

/*
 * Pin the calling thread to each CPU in turn (0, 1, ..., N-1, then 0
 * again) and check it runs there after each move. Exit 0 if it always did.
 */
static int cmd_pin_hop(int argc, char **argv)
{
	system_stats_t sys;
	thread_stats_t st;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&sys, 0, 0, 0, 0, 0) < 0)
		return 1;
	for (uint32_t i = 0; i <= sys.cpus_online; i++) {
		uint32_t cpu = i % sys.cpus_online;
		errno_t rc = sys_set_affinity(0, 1ull << cpu);
		long r = get_thread_stats(0, &st);
		printf("pin-hop: pinned to cpu %u (error %d), running on cpu %u\n",
		       cpu, rc, r < 0 ? ~0u : st.cpu);
		if (rc != EOK || r < 0 || st.cpu != cpu)
			return 1;
	}
	return 0;
}

static int cmd_noop(int argc, char **argv)
{
	if (argc != 1) {
		usage(0);
		return 2;
	}
	return 0;
}

typedef struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} command_t;

/* Ask the kernel to turn the machine off or restart it (needs PERM_SYSTEM). */
static int cmd_power(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "off") && strcmp(argv[1], "reboot"))) {
		usage(0);
		return 2;
	}
	errno_t rc = sys_poweroff(strcmp(argv[1], "off") ? POWEROFF_REBOOT : POWEROFF_OFF);
	printf("tester: power %s failed (error %d)\n", argv[1], rc);
	return 1;
}

/* Leave a child behind: it is reparented to the kernel, which reaps it. */
static int cmd_orphan(int argc, char **argv)
{
	const char *const spin[] = { "tester", "spin", "1", NULL };
	const char *const noop[] = { "tester", "noop", NULL };
	bool zombie = argc > 1 && !strcmp(argv[1], "zombie");
	task_info_t info = { .threads = 1 };
	task_id_t id;

	if (sys_spawn("/bin/tester", zombie ? noop : spin, 0, &id) != EOK)
		return 1;
	for (int i = 0; zombie && info.threads && i < 1000; i++)
		if (sys_sleep_ns(100000) != EOK || sys_task_info(id, &info) != EOK)
			return 1;
	return 0;
}

/* What a spawned program sees: working directory, arguments, environment. */
static int cmd_env(int argc, char **argv)
{
	char cwd[256];

	printf("cwd %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	for (int i = 0; i < argc; i++)
		printf("arg %s\n", argv[i]);
	for (char **e = environ; e && *e; e++)
		printf("env %s\n", *e);
	return 0;
}

/* Standard input to standard output; "copied N bytes" to standard error. */
/* Regression: task 0 was looked up as SYS_TASK_INFO(0), the caller itself. */
static int cmd_tree_zero(int argc, char **argv)
{
	return task_quota_root(0) == 0 ? 0 : 1;
}

static int cmd_copy(int argc, char **argv)
{
	char buf[512];
	size_t n, total = 0;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		if (fwrite(buf, 1, n, stdout) != n)
			return 1;
		total += n;
	}
	fprintf(stderr, "copied %zu bytes\n", total);
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}

static const command_t commands[] = {
	{ "fault", cmd_fault },
	{ "smash", cmd_smash },
	{ "canary", cmd_canary },
	{ "io", cmd_io },
	{ "io-deny", cmd_io_deny },
	{ "io-revoke", cmd_io_revoke },
	{ "io-revoke-spin", cmd_io_revoke_spin },
	{ "spin", cmd_spin },
	{ "threads", cmd_threads },
	{ "touch-unmapped", cmd_touch_unmapped },
	{ "touch-protnone", cmd_touch_protnone },
	{ "thread-guard", cmd_thread_guard },
	{ "thread-overflow", cmd_thread_overflow },
	{ "perm-escalate", cmd_perm_escalate },
	{ "tree-zero", cmd_tree_zero },
	{ "pin-hop", cmd_pin_hop },
	{ "noop", cmd_noop },
	{ "power", cmd_power },
	{ "orphan", cmd_orphan },
	{ "env", cmd_env },
	{ "copy", cmd_copy },
	{ "profil-peek", cmd_profil_peek },
	{ "klog-peek", cmd_klog_peek },
	{ "console-forge", cmd_console_forge },
	{ "console-long", cmd_console_long },
	{ "raw", cmd_raw },
	{ "prof-self", cmd_prof_self },
	{ "ipc-short", cmd_ipc_short },
	{ "fsstale", cmd_fsstale },
	{ "klog", cmd_klog },
	{ "kholes", cmd_kholes },
	{ "kholes-fault", cmd_kholes_fault },
	{ "kholes-flood", cmd_kholes_flood },
	{ "kholes-hog", cmd_kholes_hog },
	{ "kholes-victim", cmd_kholes_victim },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(0);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(1);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tester: unknown command '%s'\n", argv[1]);
	usage(0);
	return 2;
}
