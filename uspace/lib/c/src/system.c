/* system(): a command line run by the shell, /bin/sh -c. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <vernier.h>

#define SHELL "/bin/sh"

/* Run cmd with /bin/sh -c and wait: its 0..255 status, -1 (errno) if it could not run. */
int system(const char *cmd)
{
	struct stat st;

	if (!cmd)
		return stat(SHELL, &st) == 0;
	char *const argv[] = { "sh", "-c", (char *)cmd, NULL };
	task_id_t id;
	int status;
	fflush(NULL);                 /* our output first */
	errno_t rc = spawn(SHELL, argv, NULL, &id);
	if (rc == EOK)
		rc = sys_wait(id, &status, 0, NULL);
	if (rc != EOK) {
		errno = rc;
		return -1;
	}
	return spawn_status_code(status);
}
