/*
 * gtbench: the profiler's ground truth of different code (test/gtcallgrind.t).
 * work.c holds the hot functions and calls nothing outside itself, so the
 * same file built for the host with the same code-generation flags runs
 * the same instructions under callgrind.
 */
#ifndef GTBENCH_H
#define GTBENCH_H

#include <stdint.h>

/* Run rounds identical rounds of work; a checksum of the results. */
uint32_t gt_run(uint32_t rounds);

/* The number of different jobs gt_job runs (thread i runs job i % GT_JOBS). */
#define GT_JOBS 4

/* gt_init's inputs for gt_job (once, before any job). */
void gt_init(void);
/* Run rounds rounds of job's mix of work.c's functions; a checksum. */
uint32_t gt_job(uint32_t job, uint32_t rounds);

/* Run rounds rounds of 100,000 turns of loop.c's loop; a checksum. */
uint32_t gt_loop_run(uint32_t rounds);
/* The inner turns of the loop's gt_big (default 5). */
extern uint32_t gt_turns;

/*
 * Touch each of pages fresh pages of buf once (pages.c: gt_fill, gt_scan,
 * and turns turns of gt_churn between pages); a checksum.
 */
uint32_t gt_pages_run(uint8_t *buf, uint32_t pages, uint32_t turns);
/* The most pages gtbench -p takes (256 MiB of buffer). */
#define GT_PAGES_MAX 65536u

#endif
