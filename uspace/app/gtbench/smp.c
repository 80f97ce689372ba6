/*
 * The jobs of gtbench -t (test/gtsmp.t): each thread runs its own mix of
 * work.c's functions on the inputs gt_init made once, so that on several
 * CPUs different code runs at the same time. The jobs only read the
 * shared inputs, except gt_matmul's product, which every job that
 * multiplies writes with the same values: the instructions each job runs
 * do not depend on the others. Like work.c this calls nothing outside
 * gtbench's work, so its host build runs the same instructions under
 * callgrind (one job after the other).
 */
#include "gtbench.h"

#define GT_NOINLINE __attribute__((noinline, noclone))

typedef struct gt_node gt_node_t;

extern uint8_t gt_text[];
extern gt_node_t *gt_head;

uint32_t gt_fsm(const uint8_t *s, uint32_t n);
uint32_t gt_crc32(const uint8_t *s, uint32_t n);
uint32_t gt_walk(const gt_node_t *head, uint32_t walks);
uint32_t gt_matmul(void);

/* Tokenize the text 3 times, CRC a sixth of it: the state machine's job. */
static uint32_t gt_job_text(void)
{
	uint32_t h = 0;

	for (int i = 0; i < 3; i++)
		h += gt_fsm(gt_text, 3072);
	return h ^ gt_crc32(gt_text, 512);
}

/* Walk the list 14 times, CRC a third of the text: the pointer chaser's job. */
static uint32_t gt_job_walk(void)
{
	return gt_walk(gt_head, 14) ^ gt_crc32(gt_text, 1024);
}

/* Three products: the multiplier's job. */
static uint32_t gt_job_matrix(void)
{
	return gt_matmul() + gt_matmul() + gt_matmul();
}

/* A little of each. */
static uint32_t gt_job_mixed(void)
{
	return gt_fsm(gt_text, 3072) ^ gt_walk(gt_head, 4) ^ gt_matmul() ^
	       gt_crc32(gt_text, 768);
}

GT_NOINLINE uint32_t gt_job(uint32_t job, uint32_t rounds)
{
	uint32_t sum = 0;

	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t h = job % GT_JOBS == 0 ? gt_job_text() :
			     job % GT_JOBS == 1 ? gt_job_walk() :
			     job % GT_JOBS == 2 ? gt_job_matrix() : gt_job_mixed();
		sum = sum * 31u + h;
	}
	return sum;
}
