/*
 * The host side of gtbench (uspace/app/gtbench): built with its work.c
 * by test/gtcallgrind.t and run under callgrind.
 *   gtbench-host ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "gtbench.h"

/*
 * work.c is built as the guest builds it, with -mstack-protector-guard=global:
 * its canary checks read this word (glibc keeps its own in TLS instead).
 */
unsigned long __stack_chk_guard = 0x5e1f00d5a1ed0000ul;

int main(int argc, char **argv)
{
	unsigned long rounds = argc == 2 ? strtoul(argv[1], NULL, 10) : 0;

	if (rounds == 0) {
		fprintf(stderr, "usage: gtbench-host ROUNDS\n");
		return 2;
	}
	printf("gtbench %lu rounds checksum 0x%08x\n", rounds, (unsigned)gt_run((uint32_t)rounds));
	return 0;
}
