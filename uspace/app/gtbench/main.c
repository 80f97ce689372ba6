/*
 * gtbench: deterministic work in functions of different shapes, the
 * profiler's ground truth against callgrind (test/gtcallgrind.t).
 *
 *   gtbench [-h] [ROUNDS]
 *
 * Runs ROUNDS (default 100) identical rounds of work.c and prints
 * "gtbench ROUNDS rounds checksum 0xHEX"; the host build of work.c prints
 * the same checksum for the same ROUNDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtbench.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gtbench [-h] [ROUNDS]\n");
}

int main(int argc, char **argv)
{
	unsigned long rounds = 100;
	char *end;

	if (argc > 1 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 || (argc == 2 && (rounds = strtoul(argv[1], &end, 10),
				       *end || !*argv[1] || rounds == 0 || rounds > 1000000))) {
		usage(stderr);
		return 2;
	}
	printf("gtbench %lu rounds checksum 0x%08x\n", rounds, (unsigned)gt_run((uint32_t)rounds));
	return 0;
}
