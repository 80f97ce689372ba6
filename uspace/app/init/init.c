/*
 * init: the first user task (started by the kernel with every permission).
 *
 *   init                      start the shell (until it exists: idle)
 *   init PROGRAM [ARGS...]    run /bin/PROGRAM with ARGS, wait for it, and
 *                             power off: a test run's verdict (exit status
 *                             0 = pass) goes to the test machine
 *
 * The kernel passes the words after "--" on its command line as ARGS.
 * Orphaned tasks are reaped by the kernel, so init only waits for its own.
 */
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define PATH_MAX_LEN 128

static int init_run(int argc, char **argv)
{
	char path[PATH_MAX_LEN];
	task_id_t id, waited;
	int status = -1;

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	errno_t rc = sys_spawn(path, (const char *const *)argv, PERM_ALL, &id);
	if (rc != EOK) {
		printf("init: cannot run %s (error %d)\n", path, rc);
		return 1;
	}
	rc = sys_wait(id, &status, 0, &waited);
	if (rc != EOK) {
		printf("init: waiting for %s failed (error %d)\n", path, rc);
		return 1;
	}
	printf("init: %s (task %lu) exited with status %d\n", path,
	       (unsigned long)id, status);
	return status;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		int status = init_run(argc - 1, argv + 1);
		sys_poweroff(status == 0 ? POWEROFF_TEST_PASS : POWEROFF_TEST_FAIL);
		return status;
	}
	printf("init: no shell yet; idling\n");
	for (;;)
		sys_sleep_ns(1000000000ull * 3600);
}
