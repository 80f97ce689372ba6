/*
 * sleep: wait for a while.
 *
 *   sleep [-h] SECONDS
 *     SECONDS: a whole or decimal number of seconds (3, 0.5, .25); digits
 *     past the ninth decimal are ignored
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: sleep [-h] SECONDS\n"
		"  wait SECONDS, a whole or decimal number (like 2 or 0.5)\n");
}

/* Parse "12", "1.5" or ".25" into *ts; false if s is not such a number. */
static bool sleep_parse(const char *s, struct timespec *ts)
{
	long sec = 0, nsec = 0, scale = 100000000;
	bool digits = false;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++, digits = true) {
		if (sec > (LONG_MAX - 9) / 10)
			return false;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		p++;
	for (; isdigit((unsigned char)*p); p++, digits = true) {
		nsec += (*p - '0') * scale;
		scale /= 10;
	}
	ts->tv_sec = sec;
	ts->tv_nsec = nsec;
	return digits && *p == '\0';
}

int main(int argc, char **argv)
{
	struct timespec ts;
	int rc = getopt_help_only(argc, argv, usage, 1, 1);

	if (rc >= 0)
		return rc;
	if (!sleep_parse(argv[optind], &ts)) {
		fprintf(stderr, "sleep: %s: not a number of seconds\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (nanosleep(&ts, NULL) != 0) {
		fprintf(stderr, "sleep: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
