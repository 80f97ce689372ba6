/*
 * wc: count the lines, words and bytes of files.
 *
 *   wc [-h] [-l] [-w] [-c] [FILE...]
 *     no FILE: standard input ("-" too)
 *     -l  lines (newlines)   -w  words   -c  bytes
 *
 * Without -l, -w or -c all three are shown, in that order, then the
 * file's name; with several files a "total" line follows. A word is a
 * run of characters other than white space. A file that cannot be read
 * is reported; the exit status is then 1.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct counts {
	unsigned long lines, words, bytes;
} counts_t;

static bool show_lines, show_words, show_bytes;

static void usage(FILE *out)
{
	fprintf(out, "usage: wc [-h] [-l] [-w] [-c] [FILE...]\n"
		"  count lines, words and bytes of each FILE (\"-\" or none:\n"
		"  standard input)\n"
		"  -l  lines   -w  words   -c  bytes   (default: all three)\n");
}

/* Add what f holds to *c; 0, or -1 on a read error. */
static int wc_count(FILE *f, counts_t *c)
{
	bool in_word = false;
	int ch;

	while ((ch = getc(f)) != EOF) {
		c->bytes++;
		if (ch == '\n')
			c->lines++;
		if (isspace(ch)) {
			in_word = false;
		} else if (!in_word) {
			in_word = true;
			c->words++;
		}
	}
	return ferror(f) ? -1 : 0;
}

/* One output line: the chosen counts, then name unless it is NULL. */
static void wc_print(const counts_t *c, const char *name)
{
	const char *sep = "";

	if (show_lines) {
		printf("%7lu", c->lines);
		sep = " ";
	}
	if (show_words) {
		printf("%s%7lu", sep, c->words);
		sep = " ";
	}
	if (show_bytes)
		printf("%s%7lu", sep, c->bytes);
	if (name)
		printf(" %s", name);
	putchar('\n');
}

/* Count and print path ("-" or NULL: standard input), adding to *total. */
static int wc_file(const char *path, counts_t *total)
{
	counts_t c = { 0 };
	bool is_stdin = !path || strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");

	if (!f) {
		fprintf(stderr, "wc: %s: %s\n", path, strerror(errno));
		return 1;
	}
	int r = wc_count(f, &c);
	if (r != 0)
		fprintf(stderr, "wc: %s: %s\n", path ? path : "-",
			strerror(errno));
	if (is_stdin)
		clearerr(stdin);
	else
		fclose(f);
	wc_print(&c, path);
	total->lines += c.lines;
	total->words += c.words;
	total->bytes += c.bytes;
	return r != 0;
}

/* Parse the options; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "hlwc")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'l':
			show_lines = true;
			break;
		case 'w':
			show_words = true;
			break;
		case 'c':
			show_bytes = true;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!show_lines && !show_words && !show_bytes)
		show_lines = show_words = show_bytes = true;
	return -1;
}

int main(int argc, char **argv)
{
	counts_t total = { 0 };
	int status = parse_args(argc, argv);

	if (status >= 0)
		return status;
	status = 0;
	if (optind == argc)
		status = wc_file(NULL, &total);
	for (int i = optind; i < argc; i++)
		status |= wc_file(argv[i], &total);
	if (argc - optind > 1)
		wc_print(&total, "total");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "wc: write error: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
