/* Unit tests for lib/civil.c: dates as days since 1970-01-01 and back. */
#include "tap.h"

#include <lib/civil.h>

typedef struct civil_case {
	int64_t y;
	int m, d;
	int64_t days;
} civil_case_t;

/* Known dates: the epoch, either side of it, leap days, century rules. */
static const civil_case_t cases[] = {
	{ 1970, 1, 1, 0 },        { 1969, 12, 31, -1 },      { 1970, 3, 1, 59 },
	{ 2000, 2, 29, 11016 },   { 2000, 3, 1, 11017 },     { 1900, 3, 1, -25508 },
	{ 2026, 12, 7, 20794 },   { 1600, 1, 1, -135140 },   { 0, 3, 1, -719468 },
	{ 2100, 3, 1, 47541 },    { -1, 12, 31, -719529 },
};

static void test_known(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const civil_case_t *c = &cases[i];
		int64_t y;
		int m, d;

		civil_date(c->days, &y, &m, &d);
		ok(civil_days(c->y, c->m, c->d) == c->days && y == c->y && m == c->m && d == c->d,
		   "%lld-%02d-%02d is day %lld (got %lld, back %lld-%02d-%02d)", (long long)c->y,
		   c->m, c->d, (long long)c->days, (long long)civil_days(c->y, c->m, c->d),
		   (long long)y, m, d);
	}
}

/* Every day over 2000 years: one day apart, and each date comes back. */
static void test_walk(void)
{
	int bad = 0;

	for (int64_t z = -400000; z <= 400000; z++) {
		int64_t y;
		int m, d;

		civil_date(z, &y, &m, &d);
		bad += civil_days(y, m, d) != z || m < 1 || m > 12 || d < 1 || d > 31;
	}
	ok(bad == 0, "800,001 days round-trip through their dates (%d bad)", bad);
}

int main(void)
{
	test_known();
	test_walk();
	return done_testing();
}
