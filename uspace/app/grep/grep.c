/*
 * grep: print the lines that match a pattern.
 *
 *   grep [-h] [-v] [-c] [-i] [-n] PATTERN [FILE...]
 *     no FILE, or "-": standard input
 *     -v  select the lines that do not match
 *     -c  print only the number of selected lines
 *     -i  ignore the case of letters
 *     -n  put the line number before each line
 *
 * PATTERN is a basic regular expression (the subset of lib/match.h:
 * characters, ".", "*", "^", "$", "[...]", "\"). With several files each
 * output line starts with "FILE:". Exit status: 0 when a line was
 * selected, 1 when none was, 2 after an error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/match.h>

typedef struct options {
	bool invert, count, icase, number, names;
} options_t;

/* A line of input without its newline, in a growing buffer. */
typedef struct line {
	char *buf;
	size_t len, cap;
} line_t;

static options_t opts;
static match_t pattern;

static void usage(FILE *out)
{
	fprintf(out, "usage: grep [-h] [-v] [-c] [-i] [-n] PATTERN [FILE...]\n"
		"  print the lines that match PATTERN, a basic regular\n"
		"  expression, in each FILE (\"-\" or none: standard input)\n"
		"  -v  select the lines that do not match\n"
		"  -c  print only the number of selected lines\n"
		"  -i  ignore the case of letters\n"
		"  -n  put the line number before each line\n");
}

/* Read the next line of f into *l: 1, 0 at the end, -1 on an error. */
static int line_read(FILE *f, line_t *l)
{
	int c;

	l->len = 0;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (l->len == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 128;
			char *buf = realloc(l->buf, cap);
			if (!buf)
				return -1;
			l->buf = buf;
			l->cap = cap;
		}
		l->buf[l->len++] = (char)c;
	}
	if (ferror(f))
		return -1;
	return c == '\n' || l->len > 0;
}

/* Print a selected line: "FILE:" and "N:" first as asked. */
static void grep_print(const char *name, unsigned long number, const line_t *l)
{
	if (opts.names)
		printf("%s:", name);
	if (opts.number)
		printf("%lu:", number);
	fwrite(l->buf, 1, l->len, stdout);
	putchar('\n');
}

/* Search f (called name); the number of selected lines, or -1 on an error. */
static long grep_stream(FILE *f, const char *name)
{
	line_t l = { 0 };
	unsigned long number = 0;
	long selected = 0;
	int r;

	while ((r = line_read(f, &l)) > 0) {
		number++;
		if (match_find(&pattern, l.buf, l.len) == opts.invert)
			continue;
		selected++;
		if (!opts.count)
			grep_print(name, number, &l);
	}
	if (r < 0)
		fprintf(stderr, "grep: %s: %s\n", name, strerror(errno));
	free(l.buf);
	if (opts.count && opts.names)
		printf("%s:%ld\n", name, selected);
	else if (opts.count)
		printf("%ld\n", selected);
	return r < 0 ? -1 : selected;
}

/* grep_stream for path ("-": standard input). */
static long grep_file(const char *path)
{
	if (strcmp(path, "-") == 0) {
		long r = grep_stream(stdin, "(standard input)");
		clearerr(stdin);
		return r;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "grep: %s: %s\n", path, strerror(errno));
		return -1;
	}
	long r = grep_stream(f, path);
	fclose(f);
	return r;
}

/* Parse the options into opts; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "hvcin")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'v':
			opts.invert = true;
			break;
		case 'c':
			opts.count = true;
			break;
		case 'i':
			opts.icase = true;
			break;
		case 'n':
			opts.number = true;
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
	return -1;
}

int main(int argc, char **argv)
{
	static char *dash[] = { "-" };
	bool selected = false, failed = false;
	int r = parse_args(argc, argv);

	if (r >= 0)
		return r;
	const char *pat = argv[optind++];
	if (match_compile(&pattern, pat, opts.icase ? MATCH_ICASE : 0) != EOK) {
		fprintf(stderr, "grep: %s: %s\n", pat, pattern.error);
		return 2;
	}
	char **files = argc > optind ? argv + optind : dash;
	int nfiles = argc > optind ? argc - optind : 1;
	opts.names = nfiles > 1;
	for (int i = 0; i < nfiles; i++) {
		long n = grep_file(files[i]);
		selected |= n > 0;
		failed |= n < 0;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "grep: write error: %s\n", strerror(errno));
		return 2;
	}
	return failed ? 2 : selected ? 0 : 1;
}
