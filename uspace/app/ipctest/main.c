/*
 * ipctest: tests of IPC (kernel calls, answers, forwarding, data transfer,
 * limits, task death, kbox) and of the libc IPC layer and the naming
 * service. Prints TAP on stdout (the plan "1..N" at the end) and exits 0
 * iff every test passed. test/ipc.t boots it as "-- ipctest" on 1, 2 and
 * 4 CPUs.
 *
 *   ipctest [GROUP...]        run the test groups (default: all but
 *                             regress, see test_kbugs.c)
 *   ipctest server KIND ...   a helper server (see server.c; spawned by
 *                             the tests themselves)
 *   ipctest kbox-probe ...    a helper without permissions (test_kbox)
 *   ipctest nsq-helper ...    a helper without permissions (test_nsquota.c)
 *
 * Needs the naming service (/bin/ns, started by the kernel): helper
 * servers register with it and the tests connect through it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipctest.h"

#define ECHO_THREADS_MAX 8

task_id_t my_id;
unsigned ncpus = 1;

static int shared_echo_phone = -1;
static task_id_t shared_echo_task;
static char shared_echo_name[IPC_NAME_MAX + 1];
static bool shared_echo_tried;

uint64_t now_ns(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

void make_name(char *buf, size_t size, const char *what)
{
	snprintf(buf, size, "ipct%lu.%s", (unsigned long)my_id, what);
}

const char *err_str(errno_t e)
{
	static char buf[16];

	switch (e) {
	case EOK: return "EOK";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case ENOSPC: return "ENOSPC";
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ENOTSUP: return "ENOTSUP";
	case ETIMEOUT: return "ETIMEOUT";
	case ELIMIT: return "ELIMIT";
	case EHANGUP: return "EHANGUP";
	}
	snprintf(buf, sizeof(buf), "error %d", e);
	return buf;
}

uint64_t checksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

errno_t call(int phone, uint64_t method, uint64_t a0, uint64_t a1, uint64_t a2,
	     ipc_msg_t *answer)
{
	ipc_callid_t id;
	errno_t rc = ipc_call_async(phone, method, a0, a1, a2, 0, 0, &id);

	return rc != EOK ? rc : ipc_wait_answer(id, ANSWER_TIMEOUT_NS, answer);
}

/*
 * Connect to the server child id registers as name: ESRCH as soon as the
 * child has ended (reaped then), ETIMEOUT after CONNECT_TIMEOUT_NS.
 */
static errno_t connect_child(const char *name, task_id_t id, int *phone)
{
	uint64_t t0 = now_ns();
	int status;

	for (;;) {
		errno_t rc = service_connect(name, phone);
		if (rc != ENOENT && rc != EHANGUP)
			return rc;
		errno_t w = sys_wait(id, &status, WAIT_NOHANG, NULL);
		if (w == EOK || w == ESRCH)         /* EFAULT: not known, try again */
			return ESRCH;
		if (now_ns() - t0 >= CONNECT_TIMEOUT_NS)
			return ETIMEOUT;
		sys_sleep_ns(START_POLL_NS);
	}
}

errno_t start_server(const char *kind, const char *name, const char *arg,
		     task_id_t *id, int *phone)
{
	const char *argv[] = { "ipctest", "server", kind, name, arg, NULL };

	errno_t rc = sys_spawn("/bin/ipctest", argv, 0, id);
	if (rc != EOK)
		return rc;
	rc = connect_child(name, *id, phone);
	if (rc != EOK && rc != ESRCH) {
		int status;
		kill_wait(*id, &status);
	}
	return rc;
}

errno_t kill_wait(task_id_t id, int *status)
{
	errno_t rc = sys_kill(id);

	if (rc != EOK && rc != ESRCH)
		return rc;
	return sys_wait(id, status, 0, NULL);
}

errno_t stop_server(task_id_t id, int phone, int *status)
{
	errno_t rc = call(phone, ECHO_EXIT, 0, 0, 0, NULL);

	if (rc != EOK) {
		kill_wait(id, status);
		return rc;
	}
	sys_ipc_hangup(phone);
	return sys_wait(id, status, 0, NULL);
}

int echo_phone(void)
{
	char threads[8];

	if (shared_echo_tried)
		return shared_echo_phone;
	shared_echo_tried = true;
	snprintf(threads, sizeof(threads), "%u",
		 ncpus < ECHO_THREADS_MAX ? ncpus : ECHO_THREADS_MAX);
	make_name(shared_echo_name, sizeof(shared_echo_name), "echo");
	errno_t rc = start_server("echo", shared_echo_name, threads,
				  &shared_echo_task, &shared_echo_phone);
	if (rc != EOK) {
		tap_diag("cannot start the echo server: %s", err_str(rc));
		shared_echo_phone = -1;
	}
	return shared_echo_phone;
}

task_id_t echo_task(void)
{
	return shared_echo_task;
}

const char *echo_name(void)
{
	return shared_echo_name;
}

/* Stop the shared echo server (1 test): it must have survived everything. */
static void stop_echo(void)
{
	int status = -1;
	errno_t rc = shared_echo_phone < 0 ? ENOENT
		     : stop_server(shared_echo_task, shared_echo_phone, &status);

	tap_ok(rc == EOK && status == 0,
	       "echo server survived every test and exited 0 on request (%s, status %d)",
	       err_str(rc), status);
}

/*
 * The groups and the number of tests each reports, on any number of CPUs
 * (the plan is their sum, printed first, so a test that silently does not
 * run fails the run).
 */
typedef struct group {
	const char *name;
	void (*run)(void);
	bool opt_in;                /* only when named */
	int tests;
} group_t;

static const group_t groups[] = {
	{ "ping", test_ping, false, 8 },
	{ "forward", test_forward, false, 8 },
	{ "data", test_data, false, 7 },
	{ "badbuf", test_badbuf, false, 6 },
	{ "limit", test_limit_kill, false, 7 },
	{ "stress", test_stress, false, 6 },
	{ "kbox", test_kbox, false, 12 },
	{ "ns", test_ns, false, 11 },
	{ "hangup", test_hangup, false, 6 },
	{ "regress", test_kbugs, false, 7 },
	{ "limits", test_limits, false, 18 },
	{ "answerwait", test_answer_wait, false, 7 },
	{ "short", test_short, false, 7 },
	{ "killrace", test_killrace, false, 2 },
	{ "handoff", test_handoff, false, 3 },
	{ "nsquota", test_nsquota, false, 5 },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: ipctest [-h] [GROUP...]\n  groups:");
	for (size_t i = 0; i < NGROUPS; i++)
		fprintf(out, " %s", groups[i].name);
	fprintf(out, "\n  (default: all of them)\n"
		"  helpers the tests spawn: ipctest server KIND NAME [ARG],\n"
		"  ipctest kbox-probe TASK..., ipctest limit-helper KIND [ARG],\n"
		"  ipctest nsq-helper KIND PREFIX\n");
}

static bool group_known(const char *name)
{
	for (size_t i = 0; i < NGROUPS; i++)
		if (!strcmp(groups[i].name, name))
			return true;
	return false;
}

static unsigned cpus_online(void)
{
	system_stats_t st;
	long r = __vernier_syscall(SYS_SYSTEM_STATS, (long)&st, 0, 0, 0, 0, 0);

	return r < 0 || st.cpus_online == 0 ? 1 : st.cpus_online;
}

static bool group_wanted(const group_t *g, int argc, char **argv)
{
	bool wanted = argc == 1 && !g->opt_in;

	for (int j = 1; j < argc; j++)
		wanted |= !strcmp(argv[j], g->name);
	return wanted;
}

static int run_tests(int argc, char **argv)
{
	uint64_t t0 = now_ns();

	ncpus = cpus_online();
	tap_diag("ipctest: %u CPUs online, task %lu", ncpus, (unsigned long)my_id);
	int plan = 0;
	for (size_t i = 0; i < NGROUPS; i++)
		plan += group_wanted(&groups[i], argc, argv) ? groups[i].tests : 0;
	tap_plan(plan + 1);                 /* + stop_echo's */
	echo_phone();                       /* started here: stop_echo always reports */
	for (size_t i = 0; i < NGROUPS; i++) {
		if (!group_wanted(&groups[i], argc, argv))
			continue;
		int before = tap_tests();
		groups[i].run();
		tap_group_done(groups[i].name, before, groups[i].tests);
	}
	stop_echo();
	tap_diag("ipctest: %d tests, %d failed, %llu ms", tap_tests(), tap_failures(),
		 (unsigned long long)((now_ns() - t0) / NS_PER_MS));
	return tap_end();
}

int main(int argc, char **argv)
{
	my_id = sys_task_id();
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "server"))
		return server_main(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "kbox-probe"))
		return kbox_probe_main(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "limit-helper"))
		return limit_helper_main(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "nsq-helper"))
		return nsq_helper_main(argc - 2, argv + 2);
	for (int i = 1; i < argc; i++) {
		if (!group_known(argv[i])) {
			usage(stderr);
			return 2;
		}
	}
	return run_tests(argc, argv);
}
