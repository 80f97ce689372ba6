/*
 * runall: run programs one after another, for tests that boot with a
 * command line ("-- runall echo,hi ls,-l,/bin") and have no shell.
 *
 *   runall [-h] PROGRAM[,ARG...]...
 *
 * Each operand is one command: /bin/PROGRAM with the arguments separated
 * by commas. Before it runs, runall prints "runall: $ PROGRAM ARG...";
 * after, "runall: PROGRAM exited with status S". The programs get
 * runall's permissions but the system one, so that a poweroff among them
 * fails instead of ending the run. Exit status: 0 if every program could
 * be started, else 1.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define PATH_LEN 128

static void usage(FILE *out)
{
	fprintf(out, "usage: runall [-h] PROGRAM[,ARG...]...\n"
		"  run each /bin/PROGRAM in turn, with its ARGs (separated\n"
		"  by commas), and report how it exited\n");
}

/* Split command at its commas into argv (at most max - 1 words + NULL). */
static void runall_split(char *command, char **argv, size_t max)
{
	size_t n = 0;

	for (char *p = command; p && n < max - 1;) {
		argv[n++] = p;
		p = strchr(p, ',');
		if (p)
			*p++ = '\0';
	}
	argv[n] = NULL;
}

/* Run command with perms, report how it ended; 0, or 1 if it did not start. */
static int runall_one(char *command, uint32_t perms)
{
	char *argv[SPAWN_MAX_ARGS + 1];
	char path[PATH_LEN];
	task_id_t id, waited;
	int status;

	runall_split(command, argv, SPAWN_MAX_ARGS + 1);
	printf("runall: $");
	for (char **a = argv; *a; a++)
		printf(" %s", *a);
	printf("\n");
	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	errno_t rc = sys_spawn(path, (const char *const *)argv, perms, &id);
	if (rc == EOK)
		rc = sys_wait(id, &status, 0, &waited);
	if (rc != EOK) {
		printf("runall: cannot run %s: %s\n", path, strerror(rc));
		return 1;
	}
	printf("runall: %s exited with status %d\n", argv[0], status);
	return 0;
}

int main(int argc, char **argv)
{
	task_info_t self;
	int failed = 0, rc = getopt_help_only(argc, argv, usage, 0, INT_MAX);

	if (rc >= 0)
		return rc;
	if (sys_task_info(sys_task_id(), &self) != EOK)
		self.perms = 0;
	for (int i = optind; i < argc; i++)
		failed |= runall_one(argv[i], self.perms & ~PERM_SYSTEM);
	return failed;
}
