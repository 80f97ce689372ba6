/*
 * utest harden: what the CPU hardening means for user programs. The
 * kernel says in sysinfo system.hardening what it turned on. With UMIP
 * `tester fault umip` (SIDT) is killed for a #GP, without it SIDT runs (the
 * fallback); a program whose stack canary is smashed ends with EXIT_ABORT
 * before the corrupt frame returns; every program starts with its canary
 * set. I/O ports: PERM_IO alone opens none; a task holding it opens the
 * ranges it drives with SYS_IOPORT_ALLOW and can use those and no others;
 * the kernel's own ports and bad ranges are refused; SYS_IOPORT_REVOKE
 * closes them again, on every CPU.
 */
#include <abi/harden.h>
#include <stdbool.h>
#include <stdio.h>
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

#define IO_FAULT (TASK_STATUS_KILLED | KILL_REASON_FAULT)

/* `tester io ARGS...` with perms; its status (-1 if the spawn failed). */
static int harden_io_run(uint32_t perms, const char *a1, const char *a2, const char *a3)
{
	const char *const argv[] = { "tester", "io", a1, a2, a3, NULL };
	int status = -1;

	return run_wait(argv, perms, &status) == EOK ? status : -1;
}

static void harden_io(void)
{
	const char *const deny[] = { "tester", "io-deny", NULL };
	int s, ds = -1;

	s = harden_io_run(PERM_IO, "0x2fd", NULL, NULL);
	tap_ok(s == IO_FAULT, "ioport: PERM_IO alone opens no port: reading COM2 faults (%s)",
	       status_str(s));
	s = harden_io_run(PERM_IO, "0x2fd", "0x2f8", "8");
	tap_ok(s == 0, "ioport: with COM2 opened its status port reads (%s)", status_str(s));
	s = harden_io_run(PERM_IO, "0x3fd", "0x2f8", "8");
	tap_ok(s == IO_FAULT, "ioport: with COM2 opened, COM1 still faults (%s)", status_str(s));
	s = harden_io_run(PERM_IO, "0x61", "0x60", "1");
	tap_ok(s == IO_FAULT, "ioport: the port after an opened one faults (%s)", status_str(s));
	s = harden_io_run(0, "0x2fd", "0x2f8", "8");
	tap_ok(s == 3, "ioport: without PERM_IO opening COM2 is refused (%s)", status_str(s));
	errno_t rc = run_wait(deny, PERM_IO, &ds);
	tap_ok(rc == EOK && ds == 0, "ioport: PIC, PIT, clock, PCI, debug-exit ports and bad "
	       "ranges are refused with EPERM/EINVAL, revoking bad ranges with EINVAL (%s)", rc == EOK ? status_str(ds) : "spawn failed");
}

/*
 * Revoked ports fault: read on each CPU after a revoke on another (the
 * next run there loads the cleared bits), and in a thread that spins
 * reading on another CPU while the revoke happens (that CPU's TSS bitmap
 * is reloaded before the call returns).
 */
static void harden_io_revoke(void)
{
	const char *const spin[] = { "tester", "io-revoke-spin", NULL };
	system_stats_t sys = { .cpus_online = 1 };
	char num[8], said[64] = "";
	unsigned faulted = 0;
	int s = -1;

	__vernier_syscall(SYS_SYSTEM_STATS, (long)&sys, 0, 0, 0, 0, 0);
	for (uint32_t c = 0; c < sys.cpus_online; c++) {
		const char *const argv[] = { "tester", "io-revoke", num, NULL };
		snprintf(num, sizeof(num), "%u", (unsigned)c);
		s = -1;
		errno_t rc = run_wait(argv, PERM_IO, &s);
		if (rc == EOK && s == IO_FAULT)
			faulted++;
		else if (!said[0])
			snprintf(said, sizeof(said), "; cpu %u: %s", (unsigned)c,
				 rc == EOK ? status_str(s) : "spawn failed");
	}
	tap_ok(faulted == sys.cpus_online, "ioport: revoked COM2 faults on each CPU, revoked on "
	       "another (%u of %u%s)", faulted, sys.cpus_online, said);
	s = -1;
	errno_t rc = run_wait(spin, PERM_IO, &s);
	tap_ok(rc == EOK && s == IO_FAULT, "ioport: a thread reading COM2 on another CPU faults "
	       "once it is revoked (%s)", rc == EOK ? status_str(s) : "spawn failed");
	const char *const deny[] = { "tester", "io-deny", "noperm", NULL };
	s = -1;
	rc = run_wait(deny, 0, &s);
	tap_ok(rc == EOK && s == 0, "ioport: without PERM_IO revoking is refused too (%s)",
	       rc == EOK ? status_str(s) : "spawn failed");
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
	harden_io();
	harden_io_revoke();
}
