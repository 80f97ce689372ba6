/*
 * The page loop of gtbench (gtbench -p): a hot loop that touches fresh
 * pages, the ground truth of the interrupt-delay effect (test/gtfault.t).
 * Each page of the buffer is touched once: gt_fill's first store to it
 * takes a demand-zero page fault in the guest, whose time the kernel's
 * own accounting measures (system.exceptions, vector 14); a sample due
 * in the fault must land in the kernel, not on the user instruction
 * after it. gt_scan reads the page back, gt_churn computes between pages.
 * Like work.c it calls nothing outside itself, so its host build runs the
 * same instructions under callgrind (where the faults are the host's and
 * not counted).
 */
#include "gtbench.h"

#define GT_NOINLINE __attribute__((noinline, noclone))

#define GT_PAGE 4096
#define GT_WORDS 64             /* words written and read on each page */

void gt_fill(uint32_t *page, uint32_t seed);
uint32_t gt_scan(const uint32_t *page);
uint32_t gt_churn(uint32_t h, uint32_t turns);

/* Write GT_WORDS words spread over the page (the first one faults). */
GT_NOINLINE void gt_fill(uint32_t *page, uint32_t seed)
{
	for (uint32_t i = 0; i < GT_WORDS; i++) {
		seed = seed * 1664525u + 1013904223u;
		page[i * (GT_PAGE / 4 / GT_WORDS)] = seed;
	}
}

/* A hash of the words gt_fill wrote. */
GT_NOINLINE uint32_t gt_scan(const uint32_t *page)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < GT_WORDS; i++)
		h = (h ^ page[i * (GT_PAGE / 4 / GT_WORDS)]) * 16777619u;
	return h;
}

/* turns rounds of integer mixing: work between two pages. */
GT_NOINLINE uint32_t gt_churn(uint32_t h, uint32_t turns)
{
	for (uint32_t i = 0; i < turns; i++) {
		h ^= h >> 15;
		h *= 0x2c1b3c6du;
		h ^= h >> 12;
		h += i;
	}
	return h;
}

uint32_t gt_pages_run(uint8_t *buf, uint32_t pages, uint32_t turns)
{
	uint32_t h = 1;

	for (uint32_t p = 0; p < pages; p++) {
		uint32_t *page = (uint32_t *)(buf + (uint64_t)p * GT_PAGE);
		gt_fill(page, h + p);
		h = gt_churn(h ^ gt_scan(page), turns);
	}
	return h;
}
