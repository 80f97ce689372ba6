/*
 * date: print the date and time, in UTC (there are no time zones).
 *
 *   date [-h] [-u] [+FORMAT]
 *     -u       UTC (accepted for compatibility: it is the only time)
 *     +FORMAT  strftime conversions (%Y %m %d %H %M %S %a %b %e %Z %s ...);
 *              the default is "%a %b %e %H:%M:%S %Z %Y"
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define DEFAULT_FORMAT "%a %b %e %H:%M:%S %Z %Y"
#define OUT_MAX 1024

static void usage(FILE *out)
{
	fprintf(out, "usage: date [-h] [-u] [+FORMAT]\n"
		"  print the date and time (UTC) as FORMAT says (strftime)\n"
		"  default: +%s\n", DEFAULT_FORMAT);
}

/* Parse the options and operand (into *fmt); -1 to go on, else the status. */
static int parse_args(int argc, char **argv, const char **fmt)
{
	int opt;

	while ((opt = getopt(argc, argv, "hu")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt != 'u') {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && argv[optind][0] == '+')
		*fmt = argv[optind++] + 1;
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *fmt = DEFAULT_FORMAT;
	char out[OUT_MAX];
	struct tm tm;
	time_t now = time(NULL);
	int status = parse_args(argc, argv, &fmt);

	if (status >= 0)
		return status;
	if (!gmtime_r(&now, &tm)) {
		fprintf(stderr, "date: %s\n", strerror(errno));
		return 1;
	}
	if (strftime(out, sizeof(out), fmt, &tm) == 0 && fmt[0] != '\0') {
		fprintf(stderr, "date: the date is longer than %d bytes\n",
			OUT_MAX - 1);
		return 1;
	}
	if (puts(out) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "date: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
