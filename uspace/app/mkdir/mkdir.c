/*
 * mkdir: make directories.
 *
 *   mkdir [-h] [-p] DIR...
 *     -p  make missing parent directories too; an existing directory is
 *         not an error
 *
 * A directory that cannot be made is reported; the exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool opt_parents;

static void usage(FILE *out)
{
	fprintf(out, "usage: mkdir [-h] [-p] DIR...\n"
		"  make each directory DIR\n"
		"  -p  make missing parents too; existing ones are fine\n");
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Make directory path (with -p, an existing one will do); 0 or an errno. */
static int mkdir_one(const char *path)
{
	if (mkdir(path, 0777) == 0)
		return 0;
	int err = errno;
	return opt_parents && is_dir(path) ? 0 : err;
}

/* Make each ancestor of path, then path; 0 or an errno. */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		int err = mkdir_one(path);
		*p = '/';
		if (err != 0)
			return err;
	}
	return mkdir_one(path);
}

int main(int argc, char **argv)
{
	int opt, status = 0;

	while ((opt = getopt(argc, argv, "hp")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'p':
			opt_parents = true;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		char *path = argv[i];
		int err = opt_parents ? mkdir_parents(path) : mkdir_one(path);
		if (err != 0) {
			fprintf(stderr, "mkdir: %s: %s\n", path, strerror(err));
			status = 1;
		}
	}
	return status;
}
