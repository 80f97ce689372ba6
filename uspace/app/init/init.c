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
 * The kernel passes the words after "--" on its command line as ARGS.
 * Orphaned tasks are reaped by the kernel, so init only waits for its own.
 */
#include <console.h>
#include <ipc.h>
#include <prof.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define PATH_MAX_LEN 128
#define SERVER_WAIT_NS (5 * 1000000000ull)

typedef struct server {
	const char *program;       /* /bin/NAME */
	const char *service;       /* name it registers */
	uint32_t perms;
} server_t;

static const server_t servers[] = {
	{ "console", "console", PERM_IO | PERM_IRQ | PERM_KILL },
	{ "fs", "fs", PERM_PROFILE },      /* /dev/kpctl's profiler sessions */
};

/* Spawn /bin/NAME with argv; ENOENT when the initrd has no such program. */
static errno_t init_spawn(const char *name, char **argv, uint32_t perms, task_id_t *id)
{
	char path[PATH_MAX_LEN];

	snprintf(path, sizeof(path), "/bin/%s", name);
	return sys_spawn(path, (const char *const *)argv, perms, id);
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
	if (console_stdio_phone() >= 0)
		console_foreground(console_stdio_phone(), *id, CONSOLE_FG_HAND);
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
	for (size_t i = 0; i < sizeof(servers) / sizeof(servers[0]); i++) {
		const server_t *s = &servers[i];
		char *argv[] = { (char *)s->program, NULL };
		task_id_t id;
		int phone;
		if (init_spawn(s->program, argv, s->perms, &id) != EOK)
			continue;           /* not in this initrd */
		errno_t rc = service_connect_wait(s->service, SERVER_WAIT_NS, &phone);
		if (rc == EOK)
			sys_ipc_hangup(phone);
		else
			printf("init: %s (task %lu) did not register (error %d)\n",
			       s->program, (unsigned long)id, rc);
	}
}

static int init_run(char **argv)
{
	task_id_t id, waited;
	int status = -1;

	errno_t rc = init_spawn_fg(argv[0], argv, &id);
	if (rc != EOK) {
		printf("init: cannot run /bin/%s (error %d)\n", argv[0], rc);
		return 1;
	}
	rc = sys_wait(id, &status, 0, &waited);
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
	task_id_t id, waited;
	int status;

	while (init_spawn_fg("sh", argv, &id) == EOK)
		sys_wait(id, &status, 0, &waited);
	printf("init: no shell; idling\n");
	for (;;)
		sys_sleep_ns(1000000000ull * 3600);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-h")) {
		printf("usage: init [-h] [PROGRAM [ARGS...]]\n"
		       "  the first task: start the servers, then the shell (or run\n"
		       "  /bin/PROGRAM with ARGS and power off with its verdict)\n");
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
