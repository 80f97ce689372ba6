/*
 * The host side of gtbench (uspace/app/gtbench): built with its work.c,
 * loop.c and smp.c by test/lib/gtref.py and run under callgrind.
 *   gtbench-host [-l] ROUNDS [TURNS]
 *   gtbench-host -t THREADS ROUNDS
 *   gtbench-host -j JOB ROUNDS
 *   gtbench-host -p PAGES TURNS PASSES
 * (-l: loop.c's loop, as gtbench -l, test/gtloop.t; -t: the threads' jobs
 * one after the other, with gtbench -t's checksum; -j: one job alone, for
 * its own instruction counts; test/gtsmp.t; -p: pages.c's loop over fresh
 * pages of an anonymous mapping, as gtbench -p, test/gtfault.t)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gtbench.h"

/*
 * work.c is built as the guest builds it, with -mstack-protector-guard=global:
 * its canary checks read this word (glibc keeps its own in TLS instead).
 */
unsigned long __stack_chk_guard = 0x5e1f00d5a1ed0000ul;

/* gtbench -t THREADS ROUNDS's jobs in turn; its line. */
static int host_smp(unsigned long threads, unsigned long rounds)
{
	uint32_t sum = 0;

	gt_init();
	for (unsigned long i = 0; i < threads; i++)
		sum = sum * 31u + gt_job((uint32_t)i, (uint32_t)rounds);
	printf("gtbench -t %lu %lu rounds checksum 0x%08x\n", threads, rounds,
	       (unsigned)sum);
	return 0;
}

/* gtbench -p PAGES TURNS PASSES: its line. */
static int host_pages(unsigned long pages, unsigned long turns, unsigned long passes)
{
	uint32_t sum = 0;

	for (unsigned long i = 0; i < passes; i++) {
		uint8_t *buf = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("gtbench-host: mmap");
			return 1;
		}
		sum = sum * 31u + gt_pages_run(buf, (uint32_t)pages, (uint32_t)turns);
		munmap(buf, pages * 4096);
	}
	printf("gtbench -p %lu %lu %lu checksum 0x%08x\n", pages, turns, passes, (unsigned)sum);
	return 0;
}

int main(int argc, char **argv)
{
	int loop = argc >= 3 && !strcmp(argv[1], "-l");
	unsigned long rounds = argc == 2 + loop || (loop && argc == 4) ?
		strtoul(argv[1 + loop], NULL, 10) : 0;

	if (argc == 4 && !strcmp(argv[1], "-t") && strtoul(argv[2], NULL, 10) &&
	    strtoul(argv[3], NULL, 10))
		return host_smp(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "-j") && strtoul(argv[3], NULL, 10)) {
		gt_init();
		printf("job %s: 0x%08x\n", argv[2], (unsigned)gt_job(
			(uint32_t)strtoul(argv[2], NULL, 10), (uint32_t)strtoul(argv[3], NULL, 10)));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "-p") && strtoul(argv[2], NULL, 10) &&
	    strtoul(argv[4], NULL, 10))
		return host_pages(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10),
				  strtoul(argv[4], NULL, 10));
	if (loop && argc == 4)
		gt_turns = (uint32_t)strtoul(argv[3], NULL, 10);
	if (rounds == 0) {
		fprintf(stderr, "usage: gtbench-host [-l] ROUNDS [TURNS]\n"
			"       gtbench-host -t THREADS ROUNDS\n"
			"       gtbench-host -j JOB ROUNDS\n"
			"       gtbench-host -p PAGES TURNS PASSES\n");
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
