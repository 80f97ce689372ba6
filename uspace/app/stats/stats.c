/*
 * stats: the time of day, the uptime and the load averages on one line,
 * like uptime(1):
 *
 *   10:32:07 up 0 days, 00:05:12, load average: 0.00 0.01 0.05
 *
 *   stats [-h]
 *
 * The time is UTC; the uptime and loads come from the kernel's sysinfo
 * tree (system.uptime, system.load).
 */
#include <getopt.h>
#include <stats.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: stats [-h]\n"
		"  print the time (UTC), the uptime and the load averages\n");
}

/* The options: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv)
{
	return getopt_help_only(argc, argv, usage, 0, 0);
}

/* Print the line; 0, or 1 after a message. */
static int stats_print(void)
{
	char up[STATS_UPTIME_BUF], l[3][STATS_LOAD_BUF];
	time_t now = time(NULL);
	sysinfo_load_t load;
	uint64_t ns;
	struct tm tm;
	errno_t rc = stats_uptime_ns(&ns);

	if (rc == EOK)
		rc = stats_load(&load);
	if (rc != EOK) {
		fprintf(stderr, "stats: cannot read sysinfo: %s\n", strerror(rc));
		return 1;
	}
	gmtime_r(&now, &tm);
	for (int i = 0; i < 3; i++)
		stats_fmt_load(l[i], sizeof(l[i]), load.avg[i]);
	printf("%02d:%02d:%02d up %s, load average: %s %s %s\n", tm.tm_hour,
	       tm.tm_min, tm.tm_sec,
	       stats_fmt_uptime(up, sizeof(up), ns / 1000000000u), l[0], l[1],
	       l[2]);
	return 0;
}

int main(int argc, char **argv)
{
	int status = parse_args(argc, argv);

	if (status >= 0)
		return status;
	return stats_print();
}
