/*
 * kill: end tasks.
 *
 *   kill [-h] TASKID...
 *
 * Killing a task that is not one's own child takes the kill permission
 * (PERM_KILL). Each id that cannot be killed is reported; the exit status
 * is then 1.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: kill [-h] TASKID...\n"
		"  end each task TASKID (a number, as in init's messages)\n");
}

/* Parse a task id (decimal digits, not 0); false if s is not one. */
static bool kill_parse(const char *s, task_id_t *id)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	*id = v;
	return *end == '\0' && errno == 0 && v != 0;
}

/* Kill the task named by s; 0, or 1 after a message. */
static int kill_one(const char *s)
{
	task_id_t id;

	if (!kill_parse(s, &id)) {
		fprintf(stderr, "kill: %s: not a task id\n", s);
		return 1;
	}
	errno_t rc = sys_kill(id);
	if (rc != EOK) {
		fprintf(stderr, "kill: %s: %s\n", s, strerror(rc));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0, rc = getopt_help_only(argc, argv, usage, 1, INT_MAX);

	if (rc >= 0)
		return rc;
	for (int i = optind; i < argc; i++)
		status |= kill_one(argv[i]);
	return status;
}
