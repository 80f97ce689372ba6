/*
 * tester smash: write past a local array up to the saved frame pointer,
 * over the stack protector's canary (not the return address): the
 * function's check must end the task with EXIT_ABORT before it returns.
 * tester canary: exit 0 if this program's canary is set (nonzero, its
 * lowest byte zero). tester io / io-deny: per-task I/O ports (below).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <vernier.h>

#include "tester.h"

extern uintptr_t __stack_chk_guard;

static volatile size_t smash_fit = 16;

/* n == 0: overrun to the frame pointer; else write n bytes. Returns normally only if unnoticed. */
__attribute__((noinline, noipa)) static void smash_victim(size_t n)
{
	volatile uint8_t buf[16];

	if (n == 0)
		n = (size_t)((uint8_t *)__builtin_frame_address(0) - (uint8_t *)buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = 0x41;
}

int cmd_smash(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	smash_victim(smash_fit);      /* within bounds: returns */
	printf("tester: smashing the canary\n");
	fflush(stdout);
	smash_victim(0);
	printf("tester: the smashed canary went unnoticed\n");
	return 1;
}

int cmd_canary(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	return __stack_chk_guard != 0 && (__stack_chk_guard & 0xff) == 0 ? 0 : 1;
}

/*
 * tester io PORT [FIRST COUNT]: open ports [FIRST, FIRST + COUNT) if
 * given (exit 3 if refused), then read PORT: exit 0, unless the task is
 * killed for a #GP because PORT is not open to it.
 */
int cmd_io(int argc, char **argv)
{
	if (argc != 2 && argc != 4) {
		usage(0);
		return 2;
	}
	unsigned port = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc == 4) {
		errno_t rc = sys_ioport_allow((unsigned)strtoul(argv[2], NULL, 0),
					      (unsigned)strtoul(argv[3], NULL, 0));
		if (rc != EOK) {
			printf("tester: ports %s+%s refused (%d)\n", argv[2], argv[3], rc);
			return 3;
		}
	}
	printf("tester: reading port %#x\n", port);
	fflush(stdout);
	(void)inb((uint16_t)port);
	return 0;
}

/* The ranges io-deny asks for, each with the error it must get. */
static const struct {
	unsigned port, count;
	errno_t want;
} io_denied[] = {
	{ 0x20, 2, EPERM },     /* PIC */
	{ 0x40, 4, EPERM },     /* PIT */
	{ 0x70, 2, EPERM },     /* CMOS clock */
	{ 0xcf8, 8, EPERM },    /* PCI configuration */
	{ 0xf4, 1, EPERM },     /* QEMU's debug exit */
	{ 0x3f8, 9, EPERM },    /* one past COM1 */
	{ 0x3f0, 16, EPERM },   /* straddles COM1's start */
	{ 0x3f8, 0, EINVAL },   /* empty */
	{ 0xffff, 2, EINVAL },  /* past port 65535 */
	{ 0x10000, 1, EINVAL },
};

/*
 * tester io-deny [noperm]: exit 0 if every range above is refused with its
 * error, and revoking the empty and overlong ones gives EINVAL. noperm
 * (run without PERM_IO): every revoke is refused too, EPERM for the
 * others.
 */
int cmd_io_deny(int argc, char **argv)
{
	int bad = 0;
	bool noperm = argc == 2 && !strcmp(argv[1], "noperm");

	if (argc != 1 && !noperm) {
		usage(0);
		return 2;
	}
	for (size_t i = 0; i < sizeof(io_denied) / sizeof(io_denied[0]); i++) {
		errno_t rc = sys_ioport_allow(io_denied[i].port, io_denied[i].count);
		errno_t rv = sys_ioport_revoke(io_denied[i].port, io_denied[i].count);
		if (rc != io_denied[i].want) {
			printf("tester: ports %#x+%u gave %d, not %d\n", io_denied[i].port,
			       io_denied[i].count, rc, io_denied[i].want);
			bad++;
		}
		if ((noperm || io_denied[i].want == EINVAL) ? rv != io_denied[i].want : rv != EOK) {
			printf("tester: revoking ports %#x+%u gave %d\n", io_denied[i].port,
			       io_denied[i].count, rv);
			bad++;
		}
	}
	return bad ? 1 : 0;
}

#define IO_COM2 0x2f8
#define IO_COM2_LSR 0x2fd
#define IO_SPIN_READS 1000

/*
 * tester io-revoke CPU: open COM2 and read it on every CPU, revoke it on
 * the CPU after CPU, then read it on CPU: the task must be killed for a
 * #GP there (exit 0 if the read worked; 3 if opening, 4 if revoking was
 * refused, 5 if pinning failed).
 */
int cmd_io_revoke(int argc, char **argv)
{
	if (argc != 2) {
		usage(0);
		return 2;
	}
	unsigned n = sys_cpus_online(), cpu = (unsigned)strtoul(argv[1], NULL, 0) % n;
	if (sys_ioport_allow(IO_COM2, 8) != EOK)
		return 3;
	for (unsigned i = 0; i < n; i++) {
		if (sys_set_affinity(0, 1ull << i) != EOK)
			return 5;
		(void)inb(IO_COM2_LSR);
	}
	if (sys_set_affinity(0, 1ull << ((cpu + 1) % n)) != EOK)
		return 5;
	if (sys_ioport_revoke(IO_COM2, 8) != EOK)
		return 4;
	if (sys_set_affinity(0, 1ull << cpu) != EOK)
		return 5;
	printf("tester: reading revoked port %#x on cpu %u\n", IO_COM2_LSR, cpu);
	fflush(stdout);
	(void)inb(IO_COM2_LSR);
	return 0;
}

static volatile unsigned long io_spin_reads;

/* The spinning thread: on the last CPU, read COM2's status for ever. */
static void *io_spinner(void *arg)
{
	(void)arg;
	sys_set_affinity(0, 1ull << (sys_cpus_online() - 1));
	for (;;) {
		(void)inb(IO_COM2_LSR);
		io_spin_reads++;
	}
	return NULL;
}

/*
 * tester io-revoke-spin: open COM2; a second thread reads it in a loop on
 * the last CPU (never switched out); once it has read 1000 times, this
 * thread revokes the ports on CPU 0: the spinner's next read must fault
 * and the task be killed (exit 0 if the spinner still reads 300 ms later;
 * 3 if opening, 4 if revoking was refused, 6 if the spinner never ran).
 */
int cmd_io_revoke_spin(int argc, char **argv)
{
	pthread_t t;

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (sys_ioport_allow(IO_COM2, 8) != EOK)
		return 3;
	sys_set_affinity(0, 1);
	if (pthread_create(&t, NULL, io_spinner, NULL) != 0)
		return 6;
	for (int i = 0; i < 200 && io_spin_reads < IO_SPIN_READS; i++)
		sys_sleep_ns(10000000);
	if (io_spin_reads < IO_SPIN_READS)
		return 6;
	if (sys_ioport_revoke(IO_COM2, 8) != EOK)
		return 4;
	sys_sleep_ns(300000000);
	printf("tester: the spinner still reads after the revoke (%lu reads)\n", io_spin_reads);
	return 0;
}
