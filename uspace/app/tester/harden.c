/*
 * tester smash: write past a local array up to the saved frame pointer,
 * over the stack protector's canary (not the return address): the
 * function's check must end the task with EXIT_ABORT before it returns.
 * tester canary: exit 0 if this program's canary is set (nonzero, its
 * lowest byte zero).
 */
#include <stdint.h>
#include <stdio.h>

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
