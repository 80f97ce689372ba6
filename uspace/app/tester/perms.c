/*
 * tester: probes run with no permissions by utest's permission tests.
 * Each checks that something another task owns is refused and exits 0 if
 * it was, else the number of the check that went wrong.
 */
#include <errno.h>
#include <profile.h>
#include <stdio.h>

#include "tester.h"

static struct prof_data peek_data;

/*
 * `profil-peek`: another task's classic profile runs. Stopping it
 * (profile(0)) and reading it (getprofile) must both fail with EGENERIC.
 */
int cmd_profil_peek(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (profile(0, 0, 0, 0) == 0 || errno != EGENERIC) {
		printf("tester: profile(0) of another's profile was not refused\n");
		return 3;
	}
	if (getprofile(&peek_data) == 0 || errno != EGENERIC) {
		printf("tester: getprofile of another's profile was not refused\n");
		return 4;
	}
	return 0;
}
