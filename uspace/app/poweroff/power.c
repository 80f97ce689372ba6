/*
 * poweroff and reboot, one source: built as poweroff, and built again with
 * -DPOWER_REBOOT as reboot (the Makefile's REBOOT_OBJ).
 *
 *   poweroff [-h]      turn the machine off (ACPI S5)
 *   reboot [-h]        restart the machine
 *
 * Takes the system permission (PERM_SYSTEM); returns only on failure,
 * with status 1.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#ifdef POWER_REBOOT
#define POWER_NAME "reboot"
#define POWER_WHAT "restart the machine"
#define POWER_HOW POWEROFF_REBOOT
#else
#define POWER_NAME "poweroff"
#define POWER_WHAT "turn the machine off"
#define POWER_HOW POWEROFF_OFF
#endif

static void usage(FILE *out)
{
	fprintf(out, "usage: %s [-h]\n"
		"  %s (needs the system permission)\n", POWER_NAME, POWER_WHAT);
}

int main(int argc, char **argv)
{
	int st = getopt_help_only(argc, argv, usage, 0, 0);
	if (st >= 0)
		return st;
	fflush(stdout);
	errno_t rc = sys_poweroff(POWER_HOW);
	fprintf(stderr, "%s: %s\n", POWER_NAME, strerror(rc));
	return 1;
}
