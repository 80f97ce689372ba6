/*
 * gtbench: deterministic work in functions of different shapes, the
 * profiler's ground truth against callgrind (test/gtcallgrind.t).
 *
 *   gtbench [-h] [-l] [ROUNDS [TURNS]]
 *
 * Runs ROUNDS (default 100) identical rounds of work.c and prints
 * "gtbench ROUNDS rounds checksum 0xHEX"; the host build of work.c prints
 * the same checksum for the same ROUNDS. -l runs ROUNDS rounds of loop.c's
 * tight loop instead (100,000 turns each, gt_big's inner loop TURNS turns,
 * default 5, at most 64) and prints "gtbench -l ...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtbench.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gtbench [-h] [ROUNDS]\n"
		"       gtbench -l [ROUNDS [TURNS]]\n"
		"  ROUNDS (default 100) rounds of different work, or with -l of a\n"
		"  tight loop of three calls (TURNS 0..64, default 5: the inner\n"
		"  turns of one of them); prints a checksum\n");
}

/* A number in 0..max from arg (NULL: def); -1 if it is not one. */
static long gtbench_num(const char *arg, long def, long max)
{
	char *end;
	unsigned long v;

	if (!arg)
		return def;
	v = strtoul(arg, &end, 10);
	return *end || !*arg || v > (unsigned long)max ? -1 : (long)v;
}

int main(int argc, char **argv)
{
	int loop = argc > 1 && !strcmp(argv[1], "-l");
	char **arg = argv + 1 + loop;
	int nargs = argc - 1 - loop;
	long rounds, turns;

	if (argc > 1 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	rounds = gtbench_num(nargs > 0 ? arg[0] : NULL, 100, 1000000);
	turns = gtbench_num(nargs > 1 ? arg[1] : NULL, 5, 64);
	if (nargs > 1 + loop || rounds <= 0 || turns < 0) {
		usage(stderr);
		return 2;
	}
	gt_turns = (uint32_t)turns;
	if (loop)
		printf("gtbench -l %ld rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_loop_run((uint32_t)rounds));
	else
		printf("gtbench %ld rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_run((uint32_t)rounds));
	return 0;
}
