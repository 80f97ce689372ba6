/*
 * ls: list directories and files.
 *
 *   ls [-h] [-l] [-a] [PATH...]
 *     no PATH: the current directory
 *     -l  long format: type (d or -), size in bytes, name
 *     -a  also the names that start with "."
 *
 * Names are sorted, one per line. The file operands come first, then each
 * directory's contents (under a "PATH:" heading when there are several
 * operands). A path that does not exist is reported; the exit status is
 * then 1.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool opt_long, opt_all;

static void usage(FILE *out)
{
	fprintf(out, "usage: ls [-h] [-l] [-a] [PATH...]\n"
		"  list each directory PATH (none: the current one) or file\n"
		"  -l  long format: type, size, name\n"
		"  -a  also names that start with \".\"\n");
}

static int ls_error(const char *path, int err)
{
	fprintf(stderr, "ls: %s: %s\n", path, strerror(err));
	return 1;
}

/* One line about name, whose status is st. */
static void ls_print(const char *name, const struct stat *st)
{
	if (opt_long)
		printf("%c %10lld %s\n", S_ISDIR(st->st_mode) ? 'd' : '-',
		       (long long)st->st_size, name);
	else
		puts(name);
}

/* The line for entry name of directory dir; 0 or 1 after an error. */
static int ls_entry(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	size_t dlen = strlen(dir);
	const char *sep = dlen > 0 && dir[dlen - 1] == '/' ? "" : "/";

	if (!opt_long) {
		puts(name);
		return 0;
	}
	int plen = snprintf(path, sizeof(path), "%s%s%s", dir, sep, name);
	if (plen >= PATH_MAX) {
		fprintf(stderr, "ls: %s%s%s: path too long\n", dir, sep, name);
		return 1;
	}
	if (stat(path, &st) != 0)
		return ls_error(path, errno);
	ls_print(name, &st);
	return 0;
}

/* qsort order of operand paths: bytewise. */
static int ls_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether e is listed: hidden names only with -a. */
static int ls_shown(const struct dirent *e)
{
	return e->d_name[0] != '.' || opt_all;
}

/* List directory path; 0, or 1 after an error message. */
static int ls_dir(const char *path)
{
	struct dirent **list;
	int status = 0;
	int n = scandir(path, &list, ls_shown, alphasort);

	if (n < 0)
		return ls_error(path, errno);
	for (int i = 0; i < n; i++) {
		status |= ls_entry(path, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return status;
}

/*
 * List the operands: files first, then directories (headed when there
 * are several operands). Returns the exit status.
 */
static int ls_operands(char **paths, int count)
{
	struct stat st;
	int status = 0, ndirs = 0, shown = 0;

	qsort(paths, (size_t)count, sizeof(paths[0]), ls_cmp);
	for (int i = 0; i < count; i++) {
		if (stat(paths[i], &st) != 0) {
			status = ls_error(paths[i], errno);
		} else if (S_ISDIR(st.st_mode)) {
			paths[ndirs++] = paths[i];    /* ndirs <= i */
		} else {
			ls_print(paths[i], &st);
			shown++;
		}
	}
	for (int i = 0; i < ndirs; i++) {
		if (count > 1)
			printf("%s%s:\n", shown++ > 0 ? "\n" : "", paths[i]);
		status |= ls_dir(paths[i]);
	}
	return status;
}

int main(int argc, char **argv)
{
	int opt, status;

	while ((opt = getopt(argc, argv, "hla")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'l':
			opt_long = true;
			break;
		case 'a':
			opt_all = true;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc)
		status = ls_dir(".");
	else
		status = ls_operands(argv + optind, argc - optind);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ls: write error: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
