/*
 * cat: copy files (or standard input) to standard output.
 *
 *   cat [-h] [FILE...]
 *     no FILE, or "-": standard input
 *
 * A file that cannot be read is reported and skipped; the exit status is
 * then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: cat [-h] [FILE...]\n"
		"  copy each FILE (\"-\" or none: standard input) to standard\n"
		"  output\n");
}

/* Copy in to stdout; 0, 1 after a read error message, -1 on a write error. */
static int cat_copy(FILE *in, const char *name)
{
	int c;

	while ((c = getc(in)) != EOF) {
		if (putchar(c) == EOF)
			return -1;
	}
	if (ferror(in)) {
		fprintf(stderr, "cat: %s: %s\n", name, strerror(errno));
		return 1;
	}
	return 0;
}

/* cat_copy for the file path ("-": standard input). */
static int cat_file(const char *path)
{
	if (strcmp(path, "-") == 0) {
		int r = cat_copy(stdin, "standard input");
		clearerr(stdin);
		return r;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cat: %s: %s\n", path, strerror(errno));
		return 1;
	}
	int r = cat_copy(f, path);
	fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	static char *dash[] = { "-" };
	int status = 0, rc = getopt_help_only(argc, argv, usage, 0, INT_MAX);

	if (rc >= 0)
		return rc;
	char **files = argv + optind;
	int nfiles = argc - optind;
	if (nfiles == 0) {
		files = dash;
		nfiles = 1;
	}
	for (int i = 0; i < nfiles; i++) {
		int r = cat_file(files[i]);
		if (r < 0)
			break;
		status |= r;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cat: write error: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
