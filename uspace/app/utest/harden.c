/*
 * utest harden: what the CPU hardening means for user programs. The
 * kernel says in sysinfo system.hardening what it turned on. With UMIP
 * `tester fault umip` (SIDT) is killed for a #GP, without it SIDT runs (the
 * fallback); a program whose stack canary is smashed ends with EXIT_ABORT
 * before the corrupt frame returns; every program starts with its canary
 * set.
 */
#include <abi/harden.h>
#include <stdbool.h>
#include <stdlib.h>
#include <vernier.h>

#include "utest.h"

static void harden_umip(uint64_t flags)
{
	const char *const argv[] = { "tester", "fault", "umip", NULL };
	int status = -1;
	bool umip = flags & HARDEN_UMIP;

	if (umip)
		tap_diag("expect report: tester fault umip");
	errno_t rc = run_wait(argv, 0, &status);
	if (umip)
		tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_FAULT),
		       "harden: UMIP on: SIDT in user mode kills the task (%s)",
		       rc == EOK ? status_str(status) : "spawn failed");
	else
		tap_ok(rc == EOK && status == 1,
		       "harden: no UMIP: SIDT runs in user mode (%s)",
		       rc == EOK ? status_str(status) : "spawn failed");
}

static void harden_smash(void)
{
	const char *const smash[] = { "tester", "smash", NULL };
	const char *const canary[] = { "tester", "canary", NULL };
	int status = -1, cs = -1;

	errno_t rc = run_wait(smash, 0, &status);
	tap_ok(rc == EOK && status == EXIT_ABORT,
	       "harden: a smashed stack canary ends the program with %d (%s)",
	       EXIT_ABORT, rc == EOK ? status_str(status) : "spawn failed");
	rc = run_wait(canary, 0, &cs);
	tap_ok(rc == EOK && cs == 0, "harden: a program starts with its canary set (%s)",
	       rc == EOK ? status_str(cs) : "spawn failed");
}

void test_harden(void)
{
	uint64_t flags = 0;
	errno_t rc = sys_sysinfo_int("system.hardening", &flags);
	unsigned known = HARDEN_SMEP | HARDEN_SMAP | HARDEN_UMIP | HARDEN_RDRAND |
			 HARDEN_RDSEED | HARDEN_CANARY_HW;

	tap_ok(rc == EOK && !(flags & ~(uint64_t)known),
	       "harden: system.hardening reads %#llx (error %d)", (unsigned long long)flags, rc);
	tap_ok(!(flags & HARDEN_CANARY_HW) || (flags & (HARDEN_RDRAND | HARDEN_RDSEED)),
	       "harden: a hardware canary only with RDRAND or RDSEED");
	tap_diag("SMEP %s, SMAP %s, UMIP %s, RDRAND %s", flags & HARDEN_SMEP ? "on" : "absent",
		 flags & HARDEN_SMAP ? "on" : "absent", flags & HARDEN_UMIP ? "on" : "absent",
		 flags & HARDEN_RDRAND ? "yes" : "no");
	harden_umip(flags);
	harden_smash();
}
