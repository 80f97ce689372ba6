/*
 * Unit tests for libc's math functions against the host's libm: the exact
 * operations must agree bit for bit (NaNs only as NaNs), exp/log/pow to
 * within one ulp of the host's (correctly rounded in practice) results,
 * including the special cases of C's Annex F.
 */
#include "rng.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "libc_host.h"

static uint64_t rng_state = 0xa54ff53a5f1d36f1ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static uint64_t bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

static bool identical(double a, double b)
{
	return (isnan(a) && isnan(b)) || bits(a) == bits(b);
}

/* Distance in ulps between two finite doubles of the same sign. */
static uint64_t ulps(double a, double b)
{
	if (identical(a, b))
		return 0;
	if (isnan(a) || isnan(b) || signbit(a) != signbit(b))
		return UINT64_MAX;
	uint64_t x = bits(a) & ~(1ull << 63), y = bits(b) & ~(1ull << 63);
	return x > y ? x - y : y - x;
}

static const double specials[] = {
	0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
	-0.49999999999999994, 4503599627370495.5, -4503599627370495.5,
	4503599627370496.0, 9007199254740993.0, 1e300, -1e300, DBL_MIN,
	DBL_TRUE_MIN, -DBL_TRUE_MIN, DBL_MAX, -DBL_MAX, INFINITY, -INFINITY, NAN,
	0.1, 2.0, 3.0, 10.0, 1e-300, 123.456, -7.25, 1e22, 2.2250738585072009e-308,
};

#define NSPECIAL (sizeof(specials) / sizeof(specials[0]))

static double random_double(void)
{
	uint64_t r = rng();
	double d;

	switch (rng() % 4) {
	case 0:
		memcpy(&d, &r, sizeof(d));
		return d;
	case 1:
		return specials[r % NSPECIAL];
	case 2:
		return (double)(int64_t)(r % 2000001 - 1000000) / 8.0;
	default:
		return ldexp((double)(r >> 11), (int)(rng() % 120) - 110);
	}
}

typedef double (*fn1_t)(double);

static void check_exact1(const char *name, fn1_t mine, fn1_t host)
{
	int bad = 0;

	for (int i = 0; i < 50000; i++) {
		double x = i < (int)NSPECIAL ? specials[i] : random_double();
		double a = mine(x), b = host(x);
		if (!identical(a, b) && bad++ < 3)
			diag("%s(%a): %a vs %a", name, x, a, b);
	}
	is_int(bad, 0, "%s is exact (bit-identical to the host)", name);
}

static void test_exact(void)
{
	check_exact1("sqrt", vl_sqrt, sqrt);
	check_exact1("fabs", vl_fabs, fabs);
	check_exact1("floor", vl_floor, floor);
	check_exact1("ceil", vl_ceil, ceil);
	check_exact1("trunc", vl_trunc, trunc);
	check_exact1("round", vl_round, round);

	int bad = 0;
	for (int i = 0; i < 50000; i++) {
		double x = random_double(), y = random_double();
		if (i < (int)(NSPECIAL * NSPECIAL)) {
			x = specials[i % NSPECIAL];
			y = specials[i / NSPECIAL];
		}
		if (!identical(vl_fmod(x, y), fmod(x, y)) && bad++ < 3)
			diag("fmod(%a, %a): %a vs %a", x, y, vl_fmod(x, y), fmod(x, y));
		bad += !identical(vl_fmin(x, y), fmin(x, y)) && !(x == 0 && y == 0);
		bad += !identical(vl_fmax(x, y), fmax(x, y)) && !(x == 0 && y == 0);
	}
	is_int(bad, 0, "fmod, fmin, fmax are exact");

	bad = 0;
	for (int i = 0; i < 50000; i++) {
		double x = i < (int)NSPECIAL ? specials[i] : random_double();
		int e1, e2, n = (int)(rng() % 2300) - 1150;
		double i1, i2;
		bad += !identical(vl_frexp(x, &e1), frexp(x, &e2)) ||
			(isfinite(x) && e1 != e2);
		bad += !identical(vl_modf(x, &i1), modf(x, &i2)) || !identical(i1, i2);
		bad += !identical(vl_ldexp(x, n), ldexp(x, n));
		if (fabs(x) < 1e18)
			bad += vl_lround(x) != lround(x);
	}
	is_int(bad, 0, "frexp, modf, ldexp (with subnormal rounding), lround are exact");
}

static void check_close1(const char *name, fn1_t mine, fn1_t host,
			 double lo, double hi)
{
	uint64_t worst = 0;
	double worst_x = 0;

	for (int i = 0; i < 100000; i++) {
		double x = lo + (hi - lo) * (double)(rng() >> 11) / 0x1p53;
		if (i % 4 == 0)
			x = random_double();
		uint64_t u = ulps(mine(x), host(x));
		if (u > worst) {
			worst = u;
			worst_x = x;
		}
	}
	for (size_t i = 0; i < NSPECIAL; i++) {
		double x = specials[i];
		uint64_t u = ulps(mine(x), host(x));
		if (u > worst) {
			worst = u;
			worst_x = x;
		}
	}
	ok(worst <= 1, "%s within 1 ulp of the host (worst %llu at %a)", name,
	   (unsigned long long)worst, worst_x);
}

static void test_transcendental(void)
{
	check_close1("exp", vl_exp, exp, -745, 710);
	check_close1("log", vl_log, log, 0, 1e6);
	check_close1("log2", vl_log2, log2, 0, 1e6);
	check_close1("log10", vl_log10, log10, 0, 1e6);

	uint64_t worst = 0;
	for (int i = 0; i < 100000; i++) {
		double x = (double)(rng() >> 11) / 0x1p53 * 100;
		double y = ((double)(rng() >> 11) / 0x1p53 - 0.5) * 300;
		if (i % 3 == 0)
			y = (double)((int)(rng() % 60) - 30);
		if (i % 5 == 0)
			x = -x;
		uint64_t u = ulps(vl_pow(x, y), pow(x, y));
		if (u > worst) {
			worst = u;
			if (u > 1)
				diag("pow(%a, %a) = %a vs %a", x, y, vl_pow(x, y), pow(x, y));
		}
	}
	ok(worst <= 1, "pow within 1 ulp of the host (worst %llu)",
	   (unsigned long long)worst);
	is_int((int)vl_log10(1000), 3, "log10(1000) is exactly 3");
	ok(vl_log10(1e22) == 22 && vl_log2(1024) == 10, "exact at exact powers");
	ok(vl_pow(10, 2) == 100 && vl_pow(2, -3) == 0.125, "exact small powers");
}

static void test_pow_special(void)
{
	int bad = 0;

	for (size_t i = 0; i < NSPECIAL; i++)
		for (size_t j = 0; j < NSPECIAL; j++) {
			double x = specials[i], y = specials[j];
			double a = vl_pow(x, y), b = pow(x, y);
			if (ulps(a, b) > 1 && bad++ < 5)
				diag("pow(%a, %a): %a vs %a", x, y, a, b);
		}
	is_int(bad, 0, "pow special cases (zeros, infinities, NaN, negatives)");
	ok(isnan(vl_log(-1)) && vl_log(0) == -INFINITY && vl_exp(-INFINITY) == 0,
	   "log and exp special values");
}

int main(void)
{
	test_exact();
	test_transcendental();
	test_pow_special();
	return done_testing();
}
