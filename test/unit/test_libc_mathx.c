/*
 * Unit tests for libc's trigonometric, hyperbolic and other <math.h>
 * functions beyond test_libc_math.c's, against the host's glibc: each
 * function within one ulp of glibc's long double version rounded to
 * double (glibc's double sinh, tanh and cbrt are themselves up to 2 ulps
 * off, and its cos/tan 8 and 14 ulps off at the double nearest a multiple
 * of pi/2, checked here against values from 3000-bit arithmetic) on a
 * sweep of random points in the ranges that matter for it (the counts are
 * printed), on the special values of C's Annex F, and near multiples of
 * pi/2 for sin/cos/tan. The
 * exact operations (remainder, rint, copysign, nextafter, ...) must agree
 * bit for bit; the float versions within one float ulp of glibc's.
 */
#include "rng.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "libc_host.h"

static uint64_t rng_state = 0x3c6ef372fe94f82bull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

/* Uniform in [lo, hi). */
static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rng() >> 11) * 0x1p-53);
}

/* Random sign, random exponent in [emin, emax], random mantissa. */
static double logscale(int emin, int emax)
{
	double m = 1 + (double)(rng() >> 12) * 0x1p-52;
	double x = ldexp(m, emin + (int)(rng() % (unsigned)(emax - emin + 1)));

	return rng() & 1 ? -x : x;
}

static uint64_t bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/* Distance in ulps (0 for two NaNs, max for a sign or NaN mismatch). */
static uint64_t ulps(double a, double b)
{
	if ((isnan(a) && isnan(b)) || bits(a) == bits(b))
		return 0;
	if (isnan(a) || isnan(b) || signbit(a) != signbit(b))
		return UINT64_MAX;
	uint64_t x = bits(a) & ~(1ull << 63), y = bits(b) & ~(1ull << 63);
	return x > y ? x - y : y - x;
}

static uint64_t ulpsf(float a, float b)
{
	uint32_t x, y;

	if (isnan(a) && isnan(b))
		return 0;
	if (a == b)
		return signbit(a) == signbit(b) ? 0 : UINT64_MAX;
	if (isnan(a) || isnan(b) || signbit(a) != signbit(b))
		return UINT64_MAX;
	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	x &= 0x7fffffff;
	y &= 0x7fffffff;
	return x > y ? x - y : y - x;
}

static const double specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-310, -1e-310,
	DBL_TRUE_MIN, DBL_MIN, DBL_MAX, -DBL_MAX, INFINITY, -INFINITY, NAN,
	1e-20, 3.0, 10.0, 100.0, 710.0, -710.0, 1e300, M_PI, M_PI_2, -M_PI,
	0x1p28, 0x1p60, 0x1p1023, 1e22, 6381956970095103.0 * 0x1p797,
};
#define NSPECIAL (sizeof(specials) / sizeof(specials[0]))

/* glibc's long double functions rounded to double: the references. */
static double sin_ref(double x)
{
	return (double)sinl(x);
}

static double cos_ref(double x)
{
	return (double)cosl(x);
}

static double tan_ref(double x)
{
	return (double)tanl(x);
}

static double asin_ref(double x)
{
	return (double)asinl(x);
}

static double acos_ref(double x)
{
	return (double)acosl(x);
}

static double atan_ref(double x)
{
	return (double)atanl(x);
}

static double sinh_ref(double x)
{
	return (double)sinhl(x);
}

static double cosh_ref(double x)
{
	return (double)coshl(x);
}

static double tanh_ref(double x)
{
	return (double)tanhl(x);
}

static double exp2_ref(double x)
{
	return (double)exp2l(x);
}

static double expm1_ref(double x)
{
	return (double)expm1l(x);
}

static double log1p_ref(double x)
{
	return (double)log1pl(x);
}

static double cbrt_ref(double x)
{
	return (double)cbrtl(x);
}

static double atan2_ref(double y, double x)
{
	return (double)atan2l(y, x);
}

static double hypot_ref(double y, double x)
{
	return (double)hypotl(y, x);
}

typedef double (*fn1_t)(double);
typedef double (*fn2_t)(double, double);

typedef struct sweep {
	const char *name;
	fn1_t ours, ref;
	double lo, hi;          /* uniform range; logscale exponents if lo > hi */
	int emin, emax;
} sweep_t;

static const sweep_t sweeps[] = {
	{ "sin", vl_sin, sin_ref, -10, 10, 0, 0 },
	{ "sin", vl_sin, sin_ref, 1, 0, -30, 1023 },
	{ "cos", vl_cos, cos_ref, -10, 10, 0, 0 },
	{ "cos", vl_cos, cos_ref, 1, 0, -30, 1023 },
	{ "tan", vl_tan, tan_ref, -10, 10, 0, 0 },
	{ "tan", vl_tan, tan_ref, 1, 0, -30, 1023 },
	{ "asin", vl_asin, asin_ref, -1, 1, 0, 0 },
	{ "asin", vl_asin, asin_ref, 1, 0, -1074, 0 },
	{ "acos", vl_acos, acos_ref, -1, 1, 0, 0 },
	{ "acos", vl_acos, acos_ref, 1, 0, -1074, 0 },
	{ "atan", vl_atan, atan_ref, 1, 0, -1074, 1023 },
	{ "atan", vl_atan, atan_ref, -4, 4, 0, 0 },
	{ "sinh", vl_sinh, sinh_ref, -720, 720, 0, 0 },
	{ "sinh", vl_sinh, sinh_ref, 1, 0, -1074, 10 },
	{ "cosh", vl_cosh, cosh_ref, -720, 720, 0, 0 },
	{ "cosh", vl_cosh, cosh_ref, 1, 0, -1074, 10 },
	{ "tanh", vl_tanh, tanh_ref, -25, 25, 0, 0 },
	{ "tanh", vl_tanh, tanh_ref, 1, 0, -1074, 10 },
	{ "exp2", vl_exp2, exp2_ref, -1100, 1030, 0, 0 },
	{ "exp2", vl_exp2, exp2_ref, 1, 0, -1074, 3 },
	{ "expm1", vl_expm1, expm1_ref, -50, 710, 0, 0 },
	{ "expm1", vl_expm1, expm1_ref, 1, 0, -1074, 3 },
	{ "log1p", vl_log1p, log1p_ref, -1, 2, 0, 0 },
	{ "log1p", vl_log1p, log1p_ref, 1, 0, -1074, 1023 },
	{ "cbrt", vl_cbrt, cbrt_ref, 1, 0, -1074, 1023 },
	{ "cbrt", vl_cbrt, cbrt_ref, -30, 30, 0, 0 },
};
#define NSWEEP (sizeof(sweeps) / sizeof(sweeps[0]))
#define POINTS 40000

static double sweep_point(const sweep_t *s)
{
	if (s->lo < s->hi)
		return uniform(s->lo, s->hi);
	double x = logscale(s->emin, s->emax);
	return s->emax <= 10 && s->emin < -100 && s->lo == 1 && rng() % 4 == 0 ?
		fabs(x) : x;
}

static void test_sweeps(void)
{
	for (size_t i = 0; i < NSWEEP; i++) {
		const sweep_t *s = &sweeps[i];
		uint64_t worst = 0;
		double at = 0;
		for (int n = 0; n < POINTS; n++) {
			double x = sweep_point(s);
			uint64_t d = ulps(s->ours(x), s->ref(x));
			if (d > worst) {
				worst = d;
				at = x;
			}
		}
		for (size_t k = 0; k < NSPECIAL; k++) {
			uint64_t d = ulps(s->ours(specials[k]), s->ref(specials[k]));
			if (d > worst) {
				worst = d;
				at = specials[k];
			}
		}
		if (s->lo < s->hi)
			ok(worst <= 1, "%s within 1 ulp on %d points in [%g, %g] "
			   "and %zu specials (worst %llu at %a)", s->name, POINTS,
			   s->lo, s->hi, NSPECIAL, (unsigned long long)worst, at);
		else
			ok(worst <= 1, "%s within 1 ulp on %d points, |x| in "
			   "[2^%d, 2^%d], and %zu specials (worst %llu at %a)",
			   s->name, POINTS, s->emin, s->emax + 1, NSPECIAL,
			   (unsigned long long)worst, at);
	}
}

/* The doubles nearest k*pi/2 (and their neighbours): the hard reductions. */
static void test_near_pio2(void)
{
	fn1_t ours[3] = { vl_sin, vl_cos, vl_tan };
	fn1_t ref[3] = { sin_ref, cos_ref, tan_ref };
	uint64_t worst = 0;
	int points = 0;

	for (int i = 0; i < 20000; i++) {
		double k = (double)(rng() % (i < 10000 ? 1000 : 100000000));
		double x = k * M_PI_2;
		x = nextafter(x, (rng() & 1) ? INFINITY : -INFINITY);
		if (rng() & 1)
			x = nextafter(x, INFINITY);
		for (int f = 0; f < 3; f++, points++) {
			uint64_t d = ulps(ours[f](x), ref[f](x));
			worst = d > worst ? d : worst;
		}
	}
	ok(worst <= 1, "sin/cos/tan within 1 ulp at %d points next to k*pi/2 "
	   "(worst %llu)", points, (unsigned long long)worst);
	/* The double nearest a multiple of pi/2 (x mod pi/2 = 4.687e-19). */
	double hard = 6381956970095103.0 * 0x1p797;
	ok(vl_sin(hard) == 1.0 && vl_cos(hard) == -0x1.14ae72e6ba22fp-61 &&
	   vl_tan(hard) == -0x1.d9ba9a7975636p+60, "sin/cos/tan correctly "
	   "rounded at 6381956970095103 * 2^797");
	ok(vl_sin(-hard) == -1.0 && vl_tan(-hard) == 0x1.d9ba9a7975636p+60,
	   "and at its negation");
}

static void test_two_args(void)
{
	uint64_t worst_atan2 = 0, worst_hypot = 0;
	int bad = 0;

	for (int n = 0; n < POINTS; n++) {
		double y = logscale(-1074, 1023), x = logscale(-1074, 1023);
		if (n % 2) {
			y = uniform(-5, 5);
			x = uniform(-5, 5);
		}
		uint64_t d = ulps(vl_atan2(y, x), atan2_ref(y, x));
		worst_atan2 = d > worst_atan2 ? d : worst_atan2;
		d = ulps(vl_hypot(y, x), hypot_ref(y, x));
		worst_hypot = d > worst_hypot ? d : worst_hypot;
		if (bits(vl_remainder(y, x)) != bits(remainder(y, x)) && bad++ < 3)
			diag("remainder(%a, %a)", y, x);
	}
	for (size_t i = 0; i < NSPECIAL; i++)
		for (size_t j = 0; j < NSPECIAL; j++) {
			double y = specials[i], x = specials[j];
			uint64_t d = ulps(vl_atan2(y, x), atan2_ref(y, x));
			worst_atan2 = d > worst_atan2 ? d : worst_atan2;
			d = ulps(vl_hypot(y, x), hypot_ref(y, x));
			worst_hypot = d > worst_hypot ? d : worst_hypot;
			if (ulps(vl_remainder(y, x), remainder(y, x)) && bad++ < 3)
				diag("remainder(%a, %a)", y, x);
		}
	ok(worst_atan2 <= 1, "atan2 within 1 ulp on %d pairs and %zu special "
	   "pairs (worst %llu)", POINTS, NSPECIAL * NSPECIAL,
	   (unsigned long long)worst_atan2);
	ok(worst_hypot <= 1, "hypot within 1 ulp (worst %llu)",
	   (unsigned long long)worst_hypot);
	is_int(bad, 0, "remainder exact on %d pairs and the special pairs",
	       POINTS);
}

static void test_exact(void)
{
	int bad = 0;

	for (int n = 0; n < POINTS; n++) {
		double x = n % 2 ? logscale(-1074, 1023) : uniform(-1e6, 1e6);
		double y = logscale(-1074, 1023);
		if (n < (int)NSPECIAL)
			x = specials[n];
		bad += bits(vl_rint(x)) != bits(rint(x));
		bad += bits(vl_nearbyint(x)) != bits(nearbyint(x));
		bad += bits(vl_copysign(x, y)) != bits(copysign(x, y));
		bad += ulps(vl_nextafter(x, y), nextafter(x, y)) != 0;
		bad += ulps(vl_fdim(x, y), fdim(x, y)) != 0;
		bad += ulps(vl_logb(x), logb(x)) != 0;
		bad += vl_ilogb(x) != ilogb(x);
		if (fabs(x) < 0x1p62) {
			bad += vl_lrint(x) != lrint(x);
			bad += vl_llrint(x) != llrint(x);
			bad += vl_llround(x) != llround(x);
		}
	}
	is_int(bad, 0, "rint, nearbyint, lrint, llrint, llround, copysign, "
	       "nextafter, fdim, logb, ilogb exact on %d points", POINTS);
	ok(isnan(vl_nan("")) && !signbit(vl_nan("1")), "nan() is a quiet NaN");
}

#define FREF1(f) \
	static float f##f_ref(float x) { return (float)f##l(x); }
#define FREF2(f) \
	static float f##f_ref(float x, float y) { return (float)f##l(x, y); }
/* Float references: glibc's long double functions rounded to float. */
FREF1(sin)
FREF1(cos)
FREF1(tan)
FREF1(asin)
FREF1(acos)
FREF1(atan)
FREF1(sinh)
FREF1(cosh)
FREF1(tanh)
FREF1(exp)
FREF1(exp2)
FREF1(expm1)
FREF1(log)
FREF1(log2)
FREF1(log10)
FREF1(log1p)
FREF1(cbrt)
FREF1(floor)
FREF1(ceil)
FREF1(round)
FREF1(trunc)
FREF1(rint)
FREF1(sqrt)
FREF2(atan2)
FREF2(pow)
FREF2(hypot)
FREF2(fmod)
FREF2(remainder)
FREF2(fmin)
FREF2(fmax)
FREF2(copysign)
FREF2(fdim)

typedef float (*ffn1_t)(float);
typedef float (*ffn2_t)(float, float);

static void test_float(void)
{
	static const struct { const char *name; ffn1_t ours, ref; } f1[] = {
		{ "sinf", vl_sinf, sinf_ref }, { "cosf", vl_cosf, cosf_ref },
		{ "tanf", vl_tanf, tanf_ref }, { "asinf", vl_asinf, asinf_ref },
		{ "acosf", vl_acosf, acosf_ref }, { "atanf", vl_atanf, atanf_ref },
		{ "sinhf", vl_sinhf, sinhf_ref }, { "coshf", vl_coshf, coshf_ref },
		{ "tanhf", vl_tanhf, tanhf_ref }, { "expf", vl_expf, expf_ref },
		{ "exp2f", vl_exp2f, exp2f_ref }, { "expm1f", vl_expm1f, expm1f_ref },
		{ "logf", vl_logf, logf_ref }, { "log2f", vl_log2f, log2f_ref },
		{ "log10f", vl_log10f, log10f_ref }, { "log1pf", vl_log1pf, log1pf_ref },
		{ "cbrtf", vl_cbrtf, cbrtf_ref }, { "floorf", vl_floorf, floorf_ref },
		{ "ceilf", vl_ceilf, ceilf_ref }, { "roundf", vl_roundf, roundf_ref },
		{ "truncf", vl_truncf, truncf_ref }, { "rintf", vl_rintf, rintf_ref },
		{ "sqrtf", vl_sqrtf, sqrtf_ref },
	};
	static const struct { const char *name; ffn2_t ours, ref; } f2[] = {
		{ "atan2f", vl_atan2f, atan2f_ref }, { "powf", vl_powf, powf_ref },
		{ "hypotf", vl_hypotf, hypotf_ref }, { "fmodf", vl_fmodf, fmodf_ref },
		{ "remainderf", vl_remainderf, remainderf_ref },
		{ "fminf", vl_fminf, fminf_ref }, { "fmaxf", vl_fmaxf, fmaxf_ref },
		{ "copysignf", vl_copysignf, copysignf_ref },
		{ "fdimf", vl_fdimf, fdimf_ref },
		{ "nextafterf", vl_nextafterf, nextafterf },
	};
	uint64_t worst = 0;
	const char *worst_name = "";
	const int points = 5000;

	for (size_t f = 0; f < sizeof(f1) / sizeof(f1[0]); f++)
		for (int n = 0; n < points; n++) {
			float x = n % 2 ? (float)uniform(-20, 20) :
				(float)logscale(-149, 127);
			uint64_t d = ulpsf(f1[f].ours(x), f1[f].ref(x));
			if (d > worst) {
				worst = d;
				worst_name = f1[f].name;
			}
		}
	for (size_t f = 0; f < sizeof(f2) / sizeof(f2[0]); f++)
		for (int n = 0; n < points; n++) {
			float x = (float)uniform(-20, 20), y = (float)uniform(-20, 20);
			if (n % 2) {
				x = (float)logscale(-149, 127);
				y = (float)logscale(-149, 127);
			}
			uint64_t d = ulpsf(f2[f].ours(x, y), f2[f].ref(x, y));
			if (d > worst) {
				worst = d;
				worst_name = f2[f].name;
			}
		}
	ok(worst <= 1, "%zu float functions within 1 ulp of glibc's long double "
	   "results on %d points "
	   "each (worst %llu: %s)", sizeof(f1) / sizeof(f1[0]) +
	   sizeof(f2) / sizeof(f2[0]), points, (unsigned long long)worst,
	   worst_name);
}

int main(void)
{
	test_sweeps();
	test_near_pio2();
	test_two_args();
	test_exact();
	test_float();
	return done_testing();
}
