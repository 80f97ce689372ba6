/*
 * tester: probes run with no permissions by utest's permission tests.
 * Each checks that something another task owns is refused and exits 0 if
 * it was, else the number of the check that went wrong.
 */
#include <errno.h>
#include <profile.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

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

static char peek_buf[256];

/* `klog-peek`: reading the kernel log must fail with EPERM. */
int cmd_klog_peek(int argc, char **argv)
{
	uint64_t pos = 0;

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	long r = __vernier_syscall(SYS_KLOG_READ, (long)peek_buf, sizeof(peek_buf),
				   (long)&pos, 0, 0, 0);
	if (r != -EPERM) {
		printf("tester: klog read gave %ld, not EPERM\n", r);
		return 3;
	}
	return 0;
}

/*
 * `console-forge LINE`: write LINE (and a newline) to the kernel log
 * with SYS_CONSOLE_WRITE, then 64 KiB more; exit 0 if the flood was cut
 * short with ELIMIT (the caller checks how LINE was logged).
 */
int cmd_console_forge(int argc, char **argv)
{
	static char flood[64 * 1024];
	long total = 0, r = 0;

	if (argc != 2) {
		usage(0);
		return 2;
	}
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)argv[1], (long)strlen(argv[1]), 0, 0, 0, 0);
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)"\n", 1, 0, 0, 0, 0);
	memset(flood, '.', sizeof(flood));
	for (int i = 0; i < 16 && r >= 0; i++) {
		r = __vernier_syscall(SYS_CONSOLE_WRITE, (long)flood, sizeof(flood), 0, 0, 0, 0);
		total += r > 0 ? r : 0;
	}
	if (r != -ELIMIT || total > 8192) {
		printf("tester: the flood wrote %ld bytes, last %ld\n", total, r);
		return 3;
	}
	return 0;
}
