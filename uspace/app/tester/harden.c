/*
 * tester smash: write past a local array up to the saved frame pointer,
 * over the stack protector's canary (not the return address): the
 * function's check must end the task with EXIT_ABORT before it returns.
 * tester canary: exit 0 if this program's canary is set (nonzero, its
 * lowest byte zero). tester io / io-deny: per-task I/O ports (below).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* tester io-deny: exit 0 if every range above is refused with its error. */
int cmd_io_deny(int argc, char **argv)
{
	int bad = 0;

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	for (size_t i = 0; i < sizeof(io_denied) / sizeof(io_denied[0]); i++) {
		errno_t rc = sys_ioport_allow(io_denied[i].port, io_denied[i].count);
		if (rc != io_denied[i].want) {
			printf("tester: ports %#x+%u gave %d, not %d\n", io_denied[i].port,
			       io_denied[i].count, rc, io_denied[i].want);
			bad++;
		}
	}
	return bad ? 1 : 0;
}
