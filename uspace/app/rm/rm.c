/*
 * rm: remove files, and with -r directories and what they hold.
 *
 *   rm [-h] [-r] [-f] PATH...
 *     -r  remove directories, recursively
 *     -f  say nothing about paths that do not exist (nor about no PATH)
 *
 * "/" and paths ending in "." or ".." are refused. A path that cannot be
 * removed is reported; the exit status is then 1.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool opt_recursive, opt_force;

static int rm_path(const char *path);

static void usage(FILE *out)
{
	fprintf(out, "usage: rm [-h] [-r] [-f] PATH...\n"
		"  remove each file PATH\n"
		"  -r  remove directories and their contents too\n"
		"  -f  ignore paths that do not exist\n");
}

static int rm_error(const char *path, int err)
{
	fprintf(stderr, "rm: %s: %s\n", path, strerror(err));
	return 1;
}

/* dir + "/" + name in malloc'd memory, or NULL. */
static char *rm_join(const char *dir, const char *name)
{
	bool slash = dir[0] != '\0' && dir[strlen(dir) - 1] == '/';
	char *path;

	if (asprintf(&path, "%s%s%s", dir, slash ? "" : "/", name) < 0)
		return NULL;
	return path;
}

/*
 * Remove what directory dir holds; 0, or 1 after a message. All names
 * are read (scandir) before any is removed: removing entries renumbers
 * those readdir has still to give.
 */
static int rm_contents(const char *dir)
{
	struct dirent **list;
	int status = 0;
	int n = scandir(dir, &list, NULL, NULL);

	if (n < 0)
		return rm_error(dir, errno);
	for (int i = 0; i < n; i++) {
		char *path = rm_join(dir, list[i]->d_name);
		if (!path) {
			status = rm_error(dir, ENOMEM);
			break;
		}
		status |= rm_path(path);
		free(path);
	}
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return status;
}

/* Remove path (a directory only with -r); 0, or 1 after a message. */
static int rm_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return opt_force && errno == ENOENT ? 0 : rm_error(path, errno);
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? 0 : rm_error(path, errno);
	if (!opt_recursive)
		return rm_error(path, EISDIR);
	if (rm_contents(path) != 0)
		return 1;
	return rmdir(path) == 0 ? 0 : rm_error(path, errno);
}

/* Whether path is "/" or ends in "." or ".." (POSIX says to refuse). */
static bool rm_refused(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t lead = strspn(path, "/");

	return (lead > 0 && path[lead] == '\0') || strcmp(base, ".") == 0 ||
		strcmp(base, "..") == 0;
}

/* Parse the options; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "hrf")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'r':
			opt_recursive = true;
			break;
		case 'f':
			opt_force = true;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc && !opt_force) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int status = parse_args(argc, argv);

	if (status >= 0)
		return status;
	status = 0;
	for (int i = optind; i < argc; i++) {
		if (rm_refused(argv[i])) {
			fprintf(stderr, "rm: refusing to remove %s\n", argv[i]);
			status = 1;
			continue;
		}
		status |= rm_path(argv[i]);
	}
	return status;
}
