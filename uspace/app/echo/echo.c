/*
 * echo: write the arguments, separated by spaces, and a newline.
 *
 *   echo [-h] [-n] [ARGS...]
 *     -n  no newline at the end
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: echo [-h] [-n] [ARGS...]\n"
		"  write the arguments separated by spaces, then a newline\n"
		"  -n  no newline at the end\n");
}

int main(int argc, char **argv)
{
	bool newline = true;
	int opt;

	while ((opt = getopt(argc, argv, "hn")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'n':
			newline = false;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (newline)
		putchar('\n');
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "echo: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
