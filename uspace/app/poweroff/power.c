/*
 * poweroff and reboot: the shared body (reboot links this file, see
 * UPROG_EXTRA_reboot in the Makefile).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "power.h"

static const char *power_name, *power_what;

static void usage(FILE *out)
{
	fprintf(out, "usage: %s [-h]\n"
		"  %s (needs the system permission)\n", power_name, power_what);
}

int power_main(int argc, char **argv, const char *name, const char *what, unsigned how)
{
	power_name = name;
	power_what = what;
	int st = getopt_help_only(argc, argv, usage, 0, 0);
	if (st >= 0)
		return st;
	fflush(stdout);
	errno_t rc = sys_poweroff(how);
	fprintf(stderr, "%s: %s\n", name, strerror(rc));
	return 1;
}
