/*
 * bench cprof: what the call profiler's hooks cost a call-heavy program.
 * Runs /bin/callbench (plain) and /bin/callbench-cp (the same source with
 * -finstrument-functions) CPROF_RUNS times each, alternating, and prints
 * the medians of spawn-to-exit cycles and their ratio:
 *
 *   cprof.callbench.plain  cycles of a plain run
 *   cprof.callbench.hooks  cycles of an instrumented run
 *   cprof.slowdown         hooks / plain (the goal: at most 1.5 x)
 *
 * With QEMU's -icount, cycles are instructions times a constant
 * (tools/bench.sh --icount converts), so the slowdown is then in
 * instructions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <vernier.h>

#include "bench.h"

#define CPROF_RUNS 5
#define CPROF_ROUNDS "4"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Cycles from spawning path to its exit, or 0 if it failed. */
static uint64_t cprof_run(const char *path)
{
	const char *const argv[] = { path, "-q", "-r", CPROF_ROUNDS, NULL };
	task_id_t id;
	int status;
	uint64_t t0 = tsc_read();

	if (sys_spawn(path, argv, 0, &id) != EOK || sys_wait(id, &status, 0, NULL) != EOK ||
	    status != 0)
		return 0;
	return tsc_read() - t0;
}

int bench_cprof(void)
{
	uint64_t plain[CPROF_RUNS], hooks[CPROF_RUNS];

	for (int i = 0; i < CPROF_RUNS; i++) {
		plain[i] = cprof_run("/bin/callbench");
		hooks[i] = cprof_run("/bin/callbench-cp");
		if (!plain[i] || !hooks[i]) {
			printf("bench: cprof: callbench%s failed\n", plain[i] ? "-cp" : "");
			return -1;
		}
	}
	qsort(plain, CPROF_RUNS, sizeof(plain[0]), cmp_u64);
	qsort(hooks, CPROF_RUNS, sizeof(hooks[0]), cmp_u64);
	uint64_t p = plain[CPROF_RUNS / 2], h = hooks[CPROF_RUNS / 2];
	printf("cprof.callbench.plain %llu cycles\n", (unsigned long long)p);
	printf("cprof.callbench.hooks %llu cycles\n", (unsigned long long)h);
	printf("cprof.slowdown %.2f x\n", (double)h / (double)p);
	return 0;
}
