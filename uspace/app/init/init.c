/*
 * init: the first user task (started by the kernel with every permission).
 *
 * It starts the system servers found in /bin — the console server
 * (`console`, with the I/O and IRQ permissions) and the file service
 * (`fs`, with the profiling permission for /dev/kpctl) — and waits
 * until each has registered with the naming service.
 * Then:
 *
 *   init                      run the shell (/bin/sh) if there is one,
 *                             else idle
 *   init PROGRAM [ARGS...]    run /bin/PROGRAM with ARGS, wait for it, and
 *                             power off: a test run's verdict (exit status
 *                             0 = pass) goes to the test machine
 *
 * The program (or shell) is spawned stopped, handed the terminal
 * (CONSOLE_FG_HAND: its tree is then the console's foreground), then
 * started, so that its first read or mode change finds it in the
 * foreground.
 *
 * Either way init then supervises the servers, as MINIX 3's reincarnation
 * server does: a server that ends (killed, faulted, exited) is started
 * again at once and registers its name anew (ns lets the dead server's
 * replacement, spawned by the same parent with the same permissions, take
 * the held name). Clients reconnect on their next call (libc). A server
 * that died more than INIT_RESTARTS_MAX times within
 * INIT_RESTART_WINDOW_NS is started again only after a pause that doubles
 * with each further death (1 s, 2 s, ... INIT_BACKOFF_MAX_S), so that a
 * server that cannot start does not spin; the system cannot do without
 * the file service (every program is a file), so none is given up.
 *
 * The kernel passes the words after "--" on its command line as ARGS.
 * Orphaned tasks are reaped by the kernel, so init only waits for its own.
 */
#include <console.h>
#include <ipc.h>
#include <prof.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <vernier.h>

#define PATH_MAX_LEN 128
#define SERVER_WAIT_NS (5 * 1000000000ull)
#define INIT_RESTARTS_MAX 5
#define INIT_RESTART_WINDOW_NS (10 * 1000000000ull)
#define INIT_BACKOFF_MAX_S 32
#define SHELL_RESPAWN_NS (100 * 1000000ull)   /* between shells that end at once */

typedef struct server {
	const char *program;       /* /bin/NAME */
	const char *service;       /* name it registers */
	uint32_t perms;
	task_id_t id;              /* running as; 0: not running */
	unsigned restarts;         /* within the window that began at since */
	uint64_t since;
} server_t;

static server_t servers[] = {
	{ "console", "console", PERM_IO | PERM_IRQ | PERM_KILL, 0, 0, 0 },
	{ "fs", "fs", PERM_PROFILE, 0, 0, 0 },      /* /dev/kpctl's profiler sessions */
};

#define NSERVERS (sizeof(servers) / sizeof(servers[0]))

/* Spawn /bin/NAME with argv; ENOENT when the initrd has no such program. */
static errno_t init_spawn(const char *name, char **argv, uint32_t perms, task_id_t *id)
{
	char path[PATH_MAX_LEN];

	snprintf(path, sizeof(path), "/bin/%s", name);
	return sys_spawn(path, (const char *const *)argv, perms, id);
}

/* Start server s and wait for its registration; false if it is not there. */
static bool init_start_server(server_t *s)
{
	char *argv[] = { (char *)s->program, NULL };
	int phone;

	s->id = 0;
	if (init_spawn(s->program, argv, s->perms, &s->id) != EOK)
		return false;               /* not in this initrd */
	errno_t rc = service_connect_wait(s->service, SERVER_WAIT_NS, &phone);
	if (rc == EOK)
		sys_ipc_hangup(phone);
	else
		printf("init: %s (task %lu) did not register (error %d)\n",
		       s->program, (unsigned long)s->id, rc);
	return true;
}

/*
 * Hand the console's terminal to task id (CONSOLE_FG_HAND), through a
 * phone of its own: stdio's may still be to a console that died.
 */
static void init_hand_terminal(task_id_t id)
{
	int phone;

	if (console_connect(&phone) != EOK)
		return;
	console_foreground(phone, id, CONSOLE_FG_HAND);
	sys_ipc_hangup(phone);
}

/*
 * Spawn /bin/NAME with every permission, stopped; hand it the console's
 * terminal and start it. EOK, or sys_spawn's error (ENOENT: no program).
 */
static errno_t init_spawn_fg(const char *name, char **argv, task_id_t *id)
{
	char path[PATH_MAX_LEN];
	int phone;

	snprintf(path, sizeof(path), "/bin/%s", name);
	spawn_args_t a = { .path = path, .argv = (const char *const *)argv,
			   .perms = PERM_ALL, .flags = SPAWN_F_STOPPED };
	errno_t rc = sys_spawn_args(&a, id);
	if (rc != EOK)
		return rc;
	init_hand_terminal(*id);
	rc = prof_connect(*id, &phone);
	if (rc == EOK) {
		rc = prof_task_start(phone);
		prof_disconnect(phone);
	}
	if (rc != EOK) {
		printf("init: cannot start /bin/%s (error %d)\n", name, rc);
		sys_kill(*id);
	}
	return rc;
}

/* Start the servers that exist and wait for their registration. */
static void init_start_servers(void)
{
	for (size_t i = 0; i < NSERVERS; i++)
		init_start_server(&servers[i]);
}

/* The server running as task id, or NULL. */
static server_t *init_server_of(task_id_t id)
{
	for (size_t i = 0; i < NSERVERS; i++)
		if (servers[i].id == id)
			return &servers[i];
	return NULL;
}

/*
 * The pause before s is started again, in seconds: 0 for its first
 * INIT_RESTARTS_MAX deaths in a window, then 1, 2, 4 ... (at most
 * INIT_BACKOFF_MAX_S). A window starts at a death that comes more than
 * INIT_RESTART_WINDOW_NS after the window before began.
 */
static unsigned init_backoff(server_t *s)
{
	uint64_t now = sys_clock_ns(CLOCK_MONOTONIC);

	if (s->restarts == 0 || now - s->since > INIT_RESTART_WINDOW_NS) {
		s->since = now;
		s->restarts = 0;
	}
	if (++s->restarts <= INIT_RESTARTS_MAX)
		return 0;
	unsigned shift = s->restarts - INIT_RESTARTS_MAX - 1;
	return shift >= 5 ? INIT_BACKOFF_MAX_S : 1u << shift;
}

/* Server s ended with status: start it again (after a pause if it keeps dying). */
static void init_server_ended(server_t *s, int status)
{
	task_id_t old = s->id;
	unsigned pause = init_backoff(s);

	s->id = 0;
	if (pause) {
		printf("init: %s (task %lu) ended (status %#x) %u times within %llu s; "
		       "restarting in %u s\n", s->program, (unsigned long)old, status,
		       s->restarts, INIT_RESTART_WINDOW_NS / 1000000000ull, pause);
		sys_sleep_ns(pause * 1000000000ull);
	}
	init_start_server(s);
	printf("init: %s (task %lu) ended (status %#x); restarted as task %lu\n",
	       s->program, (unsigned long)old, status, (unsigned long)s->id);
}

/*
 * Wait for child main to end, restarting the servers that end meanwhile
 * (a new console hands main the terminal again); main's status to
 * *status. EOK, or the error of sys_wait.
 */
static errno_t init_supervise(task_id_t main, int *status)
{
	for (;;) {
		task_id_t id;
		int st;
		errno_t rc = sys_wait(WAIT_ANY, &st, 0, &id);
		if (rc != EOK)
			return rc;
		if (id == main) {
			*status = st;
			return EOK;
		}
		server_t *s = init_server_of(id);
		if (s)
			init_server_ended(s, st);
		if (s && main && !strcmp(s->service, CONSOLE_SERVICE))
			init_hand_terminal(main);
	}
}

static int init_run(char **argv)
{
	task_id_t id;
	int status = -1;

	errno_t rc = init_spawn_fg(argv[0], argv, &id);
	if (rc != EOK) {
		printf("init: cannot run /bin/%s (error %d)\n", argv[0], rc);
		return 1;
	}
	rc = init_supervise(id, &status);
	if (rc != EOK) {
		printf("init: waiting for /bin/%s failed (error %d)\n", argv[0], rc);
		return 1;
	}
	printf("init: /bin/%s (task %lu) exited with status %d\n", argv[0],
	       (unsigned long)id, status);
	return status;
}

/* Keep a shell on the console (a new one when it exits); without one, idle. */
static void init_shell(void)
{
	char *argv[] = { "sh", NULL };
	task_id_t id;
	int status;

	while (init_spawn_fg("sh", argv, &id) == EOK) {
		uint64_t start = sys_clock_ns(CLOCK_MONOTONIC);
		init_supervise(id, &status);
		if (sys_clock_ns(CLOCK_MONOTONIC) - start < SHELL_RESPAWN_NS)
			sys_sleep_ns(SHELL_RESPAWN_NS);     /* no console yet, say */
	}
	printf("init: no shell; idling\n");
	for (;;)
		if (init_supervise(0, &status) != EOK)
			sys_sleep_ns(1000000000ull * 3600);  /* no child at all */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		printf("usage: init [-h] [PROGRAM [ARGS...]]\n"
		       "  the first task: start the servers, then the shell (or run\n"
		       "  /bin/PROGRAM with ARGS and power off with its verdict);\n"
		       "  servers that end are started again\n");
		return 0;
	}
	init_start_servers();
	if (argc > 1) {
		int status = init_run(argv + 1);
		sys_poweroff(status == 0 ? POWEROFF_TEST_PASS : POWEROFF_TEST_FAIL);
		return status;
	}
	init_shell();
	return 0;
}
