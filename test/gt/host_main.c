/*
 * The host side of gtbench (uspace/app/gtbench): built with its work.c
 * by test/gtcallgrind.t and run under callgrind.
 *   gtbench-host [-l] ROUNDS [TURNS]
 * (-l: loop.c's loop, as gtbench -l; test/gtloop.t)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtbench.h"

/*
 * work.c is built as the guest builds it, with -mstack-protector-guard=global:
 * its canary checks read this word (glibc keeps its own in TLS instead).
 */
unsigned long __stack_chk_guard = 0x5e1f00d5a1ed0000ul;

int main(int argc, char **argv)
{
	int loop = argc >= 3 && !strcmp(argv[1], "-l");
	unsigned long rounds = argc == 2 + loop || (loop && argc == 4) ?
		strtoul(argv[1 + loop], NULL, 10) : 0;

	if (loop && argc == 4)
		gt_turns = (uint32_t)strtoul(argv[3], NULL, 10);
	if (rounds == 0) {
		fprintf(stderr, "usage: gtbench-host [-l] ROUNDS [TURNS]\n");
		return 2;
	}
	if (loop)
		printf("gtbench -l %lu rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_loop_run((uint32_t)rounds));
	else
		printf("gtbench %lu rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_run((uint32_t)rounds));
	return 0;
}
