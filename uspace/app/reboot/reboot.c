/*
 * reboot: restart the machine.
 *
 *   reboot [-h]
 *
 * Takes the system permission (PERM_SYSTEM); returns only on failure,
 * with status 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: reboot [-h]\n"
		"  restart the machine (needs the system permission)\n");
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "h")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	fflush(stdout);
	errno_t rc = sys_poweroff(POWEROFF_REBOOT);
	fprintf(stderr, "reboot: %s\n", strerror(rc));
	return 1;
}
