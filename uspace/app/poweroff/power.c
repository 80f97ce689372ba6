/*
 * poweroff and reboot: the shared body (reboot links this file, see
 * UPROG_EXTRA_reboot in the Makefile).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "power.h"

static void usage(FILE *out, const char *name, const char *what)
{
	fprintf(out, "usage: %s [-h]\n"
		"  %s (needs the system permission)\n", name, what);
}

int power_main(int argc, char **argv, const char *name, const char *what, unsigned how)
{
	int opt;

	while ((opt = getopt(argc, argv, "h")) != -1) {
		if (opt == 'h') {
			usage(stdout, name, what);
			return 0;
		}
		usage(stderr, name, what);
		return 2;
	}
	if (optind != argc) {
		usage(stderr, name, what);
		return 2;
	}
	fflush(stdout);
	errno_t rc = sys_poweroff(how);
	fprintf(stderr, "%s: %s\n", name, strerror(rc));
	return 1;
}
