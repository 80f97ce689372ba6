/*
 * restrict: run a program with fewer permissions.
 *
 *   restrict [-h] [-p PERM,...] PROGRAM [ARGS...]
 *
 * PERMs: io, irq, profile, kill, system (see abi/task.h); none by
 * default. The permissions must be ones restrict itself holds (a task
 * can only pass on what it has). restrict waits for the program and
 * exits with its status; Ctrl-C on the console ends the program.
 */
#include <console.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

typedef struct perm_name {
	const char *name;
	uint32_t bit;
} perm_name_t;

static const perm_name_t perm_names[] = {
	{ "io", PERM_IO }, { "irq", PERM_IRQ }, { "profile", PERM_PROFILE },
	{ "kill", PERM_KILL }, { "system", PERM_SYSTEM },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: restrict [-h] [-p PERM,...] PROGRAM [ARGS...]\n"
		"  run PROGRAM with only the named permissions (none by default)\n"
		"  PERM: io, irq, profile, kill, system\n");
}

/* The bit of permission name (n bytes); 0 if unknown. */
static uint32_t perm_bit(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(perm_names) / sizeof(perm_names[0]); i++)
		if (strlen(perm_names[i].name) == n && !strncmp(perm_names[i].name, name, n))
			return perm_names[i].bit;
	return 0;
}

/* Parse "a,b,c" into *perms; false (with a message) on an unknown name. */
static bool parse_perms(const char *list, uint32_t *perms)
{
	while (*list) {
		size_t n = strcspn(list, ",");
		uint32_t bit = perm_bit(list, n);
		if (!bit && n) {
			fprintf(stderr, "restrict: unknown permission '%.*s'\n", (int)n, list);
			return false;
		}
		*perms |= bit;
		list += n + (list[n] == ',');
	}
	return true;
}

/* Start argv[0] with perms and wait; the shell-style status. */
static int run(char **argv, uint32_t perms)
{
	char path[256];
	spawn_opts_t o = { .set_perms = true, .perms = perms };
	task_id_t id, waited;
	int status = 0;

	errno_t rc = spawn_find(argv[0], path, sizeof(path));
	if (rc == EOK)
		rc = spawn(path, argv, &o, &id);
	if (rc != EOK) {
		fprintf(stderr, "restrict: %s: %s\n", argv[0], strerror(rc));
		return rc == ENOENT ? 127 : 126;
	}
	if (isatty(STDIN_FILENO) && console_stdio_phone() >= 0)
		console_set_foreground(console_stdio_phone(), id);
	if (sys_wait(id, &status, 0, &waited) != EOK)
		return 1;
	return spawn_status_code(status);
}

int main(int argc, char **argv)
{
	uint32_t perms = 0;
	int opt;

	while ((opt = getopt(argc, argv, "+hp:")) != -1) {
		switch (opt) {
		case 'h': usage(stdout); return 0;
		case 'p':
			if (!parse_perms(optarg, &perms)) {
				usage(stderr);
				return 2;
			}
			break;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	return run(argv + optind, perms);
}
