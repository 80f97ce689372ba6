/*
 * head: copy the first lines of files.
 *
 *   head [-h] [-n N | -N] [FILE...]
 *     no FILE, or "-": standard input
 *     -n N, -N  the first N lines (default 10)
 *
 * With several files each is headed "==> FILE <==". A file that cannot
 * be read is reported; the exit status is then 1.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long max_lines = 10;

static void usage(FILE *out)
{
	fprintf(out, "usage: head [-h] [-n N | -N] [FILE...]\n"
		"  copy the first N lines (default 10) of each FILE\n"
		"  (\"-\" or none: standard input)\n");
}

/* Parse a line count into max_lines; false (after a message) if bad. */
static bool head_count(const char *s)
{
	char *end = NULL;

	errno = 0;
	if (isdigit((unsigned char)s[0]))
		max_lines = strtol(s, &end, 10);
	if (end && *end == '\0' && errno == 0)
		return true;
	fprintf(stderr, "head: %s: not a line count\n", s);
	return false;
}

/* Copy the first max_lines lines of f; 0, or -1 on a read error. */
static int head_copy(FILE *f)
{
	long left = max_lines;
	int c;

	while (left > 0 && (c = getc(f)) != EOF) {
		putchar(c);
		if (c == '\n')
			left--;
	}
	return ferror(f) ? -1 : 0;
}

/* head_copy of path ("-": standard input); 0, or 1 after an error. */
static int head_file(const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");

	if (!f) {
		fprintf(stderr, "head: %s: %s\n", path, strerror(errno));
		return 1;
	}
	int r = head_copy(f);
	if (r != 0)
		fprintf(stderr, "head: %s: %s\n", path, strerror(errno));
	if (is_stdin)
		clearerr(stdin);
	else
		fclose(f);
	return r != 0;
}

/* Parse the options ("-N" first); -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	int opt;

	if (argc > 1 && argv[1][0] == '-' &&
	    isdigit((unsigned char)argv[1][1])) {
		if (!head_count(argv[1] + 1)) {
			usage(stderr);
			return 2;
		}
		optind = 2;
	}
	while ((opt = getopt(argc, argv, "hn:")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt != 'n' || !head_count(optarg)) {
			usage(stderr);
			return 2;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	int status = parse_args(argc, argv);
	int nfiles = argc - optind;

	if (status >= 0)
		return status;
	status = nfiles == 0 ? head_file("-") : 0;
	for (int i = 0; i < nfiles; i++) {
		const char *path = argv[optind + i];
		if (nfiles > 1)
			printf("%s==> %s <==\n", i > 0 ? "\n" : "", path);
		status |= head_file(path);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "head: write error: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
