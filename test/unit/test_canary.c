/*
 * Unit tests for lib/canary.c: a canary's lowest byte is always zero and
 * the rest never all zero; the mixer turns TSC-like inputs (consecutive
 * counts differing in a few low bits) into values that are all distinct,
 * whose bits 8..63 are each set about half the time, and where one
 * flipped input bit changes about half the output bits.
 */
#include "tap.h"

#include <stdint.h>

#include <lib/canary.h>

#define DRAWS 4096
#define TSC_BASE 0x12345678abcull

static uint64_t drawn[DRAWS];

/* The canary from a "TSC" at base + i * step, mixed like the fallback does. */
static uint64_t tsc_canary(uint64_t base, uint64_t i, uint64_t step)
{
	uint64_t h = canary_mix(0, base + i * step);
	h = canary_mix(h, base + i * step + 37);
	return canary_from(h);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_low_byte(void)
{
	int bad = 0;

	for (uint64_t r = 0; r < 100000; r++)
		bad += (canary_from(r * 0x9e3779b97f4a7c15ull) & 0xff) != 0;
	is_int(bad, 0, "the lowest byte of a canary is always zero");
	ok(canary_from(0) != 0 && (canary_from(0) & 0xff) == 0,
	   "a zero input still gives a nonzero canary (%#llx)", (unsigned long long)canary_from(0));
	ok(canary_from(0xff) != 0, "an input with only its low byte set gives a nonzero canary");
	is_uint(canary_from(0x1122334455667788ull), 0x1122334455667700ull,
		"bits 8..63 are the random value's");
}

static void test_distinct(void)
{
	size_t dups = 0;

	for (uint64_t i = 0; i < DRAWS; i++)
		drawn[i] = tsc_canary(TSC_BASE, i, 1);
	qsort(drawn, DRAWS, sizeof(drawn[0]), cmp_u64);
	for (size_t i = 1; i < DRAWS; i++)
		dups += drawn[i] == drawn[i - 1];
	is_uint(dups, 0, "%d consecutive TSC values give %d distinct canaries", DRAWS, DRAWS);
}

static void test_balance(void)
{
	unsigned set[64] = { 0 };
	int off = 0;

	for (uint64_t i = 0; i < DRAWS; i++) {
		uint64_t c = tsc_canary(TSC_BASE, i, 3);
		for (int b = 0; b < 64; b++)
			set[b] += (c >> b) & 1;
	}
	for (int b = 8; b < 64; b++)
		if (set[b] < DRAWS * 45 / 100 || set[b] > DRAWS * 55 / 100) {
			diag("bit %d set in %u of %d", b, set[b], DRAWS);
			off++;
		}
	is_int(off, 0, "each of bits 8..63 is set in 45-55%% of the canaries");
}

static void test_avalanche(void)
{
	uint64_t total = 0, worst = 64;

	for (int bit = 0; bit < 64; bit++) {
		uint64_t d = canary_mix(0, TSC_BASE) ^ canary_mix(0, TSC_BASE ^ (1ull << bit));
		uint64_t n = (uint64_t)__builtin_popcountll(d);
		total += n;
		worst = n < worst ? n : worst;
	}
	ok(total / 64 >= 24 && total / 64 <= 40,
	   "one flipped input bit changes %llu output bits on average", (unsigned long long)(total / 64));
	ok(worst >= 12, "and at least %llu for every input bit", (unsigned long long)worst);
	ok(canary_mix(1, 2) != canary_mix(2, 1), "the running hash depends on the order");
}

int main(void)
{
	test_low_byte();
	test_distinct();
	test_balance();
	test_avalanche();
	return done_testing();
}
