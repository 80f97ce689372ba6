/*
 * Trigonometric, inverse trigonometric and hyperbolic functions, and
 * exp2, expm1, log1p, cbrt, hypot, remainder. The work is done in x87
 * extended precision (64-bit mantissas), so rounding the result to double
 * once is within one ulp.
 *
 * sin/cos/tan reduce the argument modulo pi/2 themselves (the x87
 * instructions use a 66-bit pi, wrong by many ulps near multiples of pi):
 * below 2^28 with pi/2 in four 32-bit pieces (Cody-Waite), above with the
 * bits of 2/pi (Payne-Hanek), then fsin/fcos/fptan on |r| <= pi/4.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* ---------------------------------------------------------------- x87 */

static long double x87_sin(long double x)
{
	__asm__("fsin" : "+t"(x));
	return x;
}

static long double x87_cos(long double x)
{
	__asm__("fcos" : "+t"(x));
	return x;
}

static long double x87_tan(long double x)
{
	__asm__("fptan\n\tfstp %%st(0)" : "+t"(x));
	return x;
}

/* atan(y / x) in the quadrant of (x, y), IEEE special cases included. */
static long double x87_atan2(long double y, long double x)
{
	long double r;

	__asm__("fpatan" : "=t"(r) : "0"(x), "u"(y) : "st(1)");
	return r;
}

/* 2^z - 1 for |z| <= 1. */
static long double x87_f2xm1(long double z)
{
	__asm__("f2xm1" : "+t"(z));
	return z;
}

/* y * log2(x + 1) for |x| < 1 - sqrt(2)/2. */
static long double x87_yl2xp1(long double x, long double y)
{
	long double r;

	__asm__("fyl2xp1" : "=t"(r) : "0"(x), "u"(y) : "st(1)");
	return r;
}

static long double x87_ylog2x(long double x, long double y)
{
	long double r;

	__asm__("fyl2x" : "=t"(r) : "0"(x), "u"(y) : "st(1)");
	return r;
}

static long double x87_rint(long double x)
{
	__asm__("frndint" : "+t"(x));
	return x;
}

/* x * 2^n. */
static long double x87_scale(long double x, long double n)
{
	__asm__("fscale" : "+t"(x) : "u"(n));
	return x;
}

/* 2^z in extended precision, any z (inf/0 at the ends). */
static long double exp2_ext(long double z)
{
	if (z > 20000)
		return __builtin_infl();
	if (z < -20000)
		return 0;
	long double n = x87_rint(z);
	return x87_scale(x87_f2xm1(z - n) + 1.0L, n);
}

#define LOG2E_L 1.44269504088896340735992468100189214L
#define LN2_L 0.693147180559945309417232121458176568L

/* e^x - 1 in extended precision, accurate also for tiny x. */
static long double expm1_ext(long double x)
{
	long double z = x * LOG2E_L;

	if (z > -1 && z < 1)
		return x87_f2xm1(z);
	return exp2_ext(z) - 1.0L;
}

/* ---------------------------------------------------------------- reduction */

/* The bits of 2/pi after the binary point, 32 per word (1536 bits). */
static const uint32_t two_over_pi[48] = {
	0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
	0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
	0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
	0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
	0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
	0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
	0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d, 0xa9e39161, 0x5ee61b08,
	0x6599855f, 0x14a06840, 0x8dffd880, 0x4d732731, 0x06061556, 0xca73a8c9,
};

/* pi/2 in four pieces of 32 bits (their products with k < 2^32 are exact). */
#define PIO2_1 (0xc90fdaa2p-31L)
#define PIO2_2 (0x2168c234p-63L)
#define PIO2_3 (0xc4c6628bp-95L)
#define PIO2_4 (0x80dc1cd1p-127L)
#define PIO2_L 1.57079632679489661923132169163975144L
#define TWO_OVER_PI_L 0.636619772367581343075535053490057448L

/* r = ax - k*pi/2 with |r| <= ~pi/4, ax < 2^28 (Cody-Waite). */
static long double reduce_small(double ax, unsigned *q)
{
	long double k = x87_rint(ax * TWO_OVER_PI_L);
	long double r = (long double)ax - k * PIO2_1;

	r -= k * PIO2_2;
	r -= k * PIO2_3;
	r -= k * PIO2_4;
	*q = (unsigned)(long long)k & 3;
	return r;
}

/* 64 bits of the 9-word little-endian number w from bit lo (0 below 0). */
static uint64_t bits_at(const uint32_t *w, int lo)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++) {
		int b = lo + i;
		if (b >= 0 && b < 9 * 32 && (w[b / 32] >> (b % 32) & 1))
			r |= 1ull << i;
	}
	return r;
}

/* ax = m * 2^e, ax >= 2^28 finite: the same with the bits of 2/pi. */
static long double reduce_big(double ax, unsigned *q)
{
	int e;
	double fr = frexp(ax, &e);
	uint64_t m = (uint64_t)ldexp(fr, 53);
	uint32_t prod[9] = { 0 };

	e -= 53;                              /* ax = m * 2^e, e >= -25 */
	int j = e >= 2 ? (e - 2) / 32 : 0;    /* skip bits worth 4k */
	/* prod = m * window (7 words of 2/pi from word j), little-endian */
	for (int w = 0; w < 7; w++) {
		uint64_t word = two_over_pi[j + 6 - w];
		unsigned __int128 carry = (unsigned __int128)m * word;
		for (int i = w; carry && i < 9; i++) {
			carry += prod[i];
			prod[i] = (uint32_t)carry;
			carry >>= 32;
		}
	}
	/* value = prod * 2^-shift: 2 bits of integer, 128 of fraction */
	int shift = 32 * (j + 7) - e;
	unsigned __int128 frac = (unsigned __int128)bits_at(prod, shift - 64)
		<< 64 | bits_at(prod, shift - 128);
	*q = (unsigned)bits_at(prod, shift) & 3;
	__int128 sf = (__int128)frac;         /* >= 1/2: the next quadrant */
	if (sf < 0)
		*q = (*q + 1) & 3;
	return (long double)sf * 0x1p-128L * PIO2_L;
}

/* x mod pi/2 for finite x: r and the quadrant q of |x|. */
static long double reduce(double x, unsigned *q)
{
	double ax = fabs(x);

	if (ax <= 0.785398163397448) {
		*q = 0;
		return ax;
	}
	if (ax < 0x1p28)
		return reduce_small(ax, q);
	return reduce_big(ax, q);
}

/* ---------------------------------------------------------------- trig */

/* sin of x (NaN for inf/NaN); the quadrant picks fsin/fcos of r. */
double sin(double x)
{
	unsigned q;

	if (!isfinite(x))
		return x - x;
	long double r = reduce(x, &q);
	long double v = (q & 1) ? x87_cos(r) : x87_sin(r);
	if (q & 2)
		v = -v;
	return (double)(signbit(x) ? -v : v);
}

/* cos of x (NaN for inf/NaN). */
double cos(double x)
{
	unsigned q;

	if (!isfinite(x))
		return x - x;
	long double r = reduce(x, &q);
	long double v = (q & 1) ? x87_sin(r) : x87_cos(r);
	return (double)((q == 1 || q == 2) ? -v : v);
}

/* tan of x: tan r, or -1/tan r in odd quadrants. */
double tan(double x)
{
	unsigned q;

	if (!isfinite(x))
		return x - x;
	long double r = reduce(x, &q);
	long double v = x87_tan(r);
	if (q & 1)
		v = -1.0L / v;
	return (double)(signbit(x) ? -v : v);
}

/* atan(y/x) in the quadrant of (x, y) (fpatan: Annex F cases). */
double atan2(double y, double x)
{
	if (isnan(x) || isnan(y))
		return x + y;
	return (double)x87_atan2(y, x);
}

/* atan2(x, 1). */
double atan(double x)
{
	if (isnan(x))
		return x;
	return (double)x87_atan2(x, 1.0L);
}

/* sqrt((1 - x)(1 + x)), exact product in extended precision. */
static long double cofactor(double x)
{
	long double c = (1.0L - x) * (1.0L + x);

	__asm__("fsqrt" : "+t"(c));
	return c;
}

/* atan2(x, sqrt(1 - x^2)); NaN outside [-1, 1]. */
double asin(double x)
{
	if (isnan(x))
		return x;
	if (fabs(x) > 1)
		return NAN;
	return (double)x87_atan2(x, cofactor(x));
}

/* atan2(sqrt(1 - x^2), x); NaN outside [-1, 1]. */
double acos(double x)
{
	if (isnan(x))
		return x;
	if (fabs(x) > 1)
		return NAN;
	return (double)x87_atan2(cofactor(x), x);
}

/* ---------------------------------------------------------------- hyperbolic */

/* (e^x - e^-x)/2, through expm1 below 1 (no cancellation). */
double sinh(double x)
{
	if (!isfinite(x) || x == 0)
		return x;
	long double a = fabs(x), v;
	if (a < 1) {
		long double e = expm1_ext(a);
		v = (e + e / (e + 1)) / 2;
	} else {
		long double e = exp2_ext(a * LOG2E_L);
		v = (e - 1 / e) / 2;
	}
	return (double)(x < 0 ? -v : v);
}

/* (e^x + e^-x)/2. */
double cosh(double x)
{
	if (isnan(x))
		return x;
	if (isinf(x))
		return INFINITY;
	long double e = exp2_ext(fabs(x) * LOG2E_L);
	return (double)((e + 1 / e) / 2);
}

/* expm1(2x)/(expm1(2x) + 2); +-1 beyond 23. */
double tanh(double x)
{
	if (isnan(x) || x == 0)
		return x;
	long double a = fabs(x), v;
	if (a > 23)
		v = 1;
	else {
		long double e = expm1_ext(2 * a);
		v = e / (e + 2);
	}
	return (double)(x < 0 ? -v : v);
}

/* ---------------------------------------------------------------- exp, log */

/* 2^x. */
double exp2(double x)
{
	if (isnan(x))
		return x;
	if (isinf(x))
		return x > 0 ? x : 0.0;
	return (double)exp2_ext(x);
}

/* e^x - 1. */
double expm1(double x)
{
	if (isnan(x) || x == 0)
		return x;
	if (isinf(x))
		return x > 0 ? x : -1.0;
	return (double)expm1_ext(x);
}

/* log(1 + x): fyl2xp1 near 0, else 1 + x is exact in extended. */
double log1p(double x)
{
	if (isnan(x) || x == 0 || x == INFINITY)
		return x;
	if (x < -1)
		return NAN;
	if (x == -1)
		return -INFINITY;
	if (fabs(x) < 0.29)
		return (double)x87_yl2xp1(x, LN2_L);
	return (double)x87_ylog2x(1.0L + x, LN2_L);   /* 1 + x exact */
}

/* The real cube root: 2^(log2|x|/3) and one Newton step. */
double cbrt(double x)
{
	if (!isfinite(x) || x == 0)
		return x;
	long double a = fabs(x);
	long double y = exp2_ext(x87_ylog2x(a, 1.0L) / 3);
	y -= (y - a / (y * y)) / 3;          /* one Newton step */
	return (double)(x < 0 ? -y : y);
}

/* sqrt(x^2 + y^2) in extended precision (no overflow); inf wins over NaN. */
double hypot(double x, double y)
{
	if (isinf(x) || isinf(y))
		return INFINITY;
	if (isnan(x) || isnan(y))
		return x + y;
	long double s = (long double)x * x + (long double)y * y;
	__asm__("fsqrt" : "+t"(s));
	return (double)s;
}

/* x - n*y, n = x/y rounded to even (fprem1, exact); NaN for y = 0 or inf x. */
double remainder(double x, double y)
{
	long double a = x, b = y, r;
	unsigned short status;

	if (isnan(x) || isnan(y))
		return x + y;
	if (isinf(x) || y == 0)
		return NAN;
	do {
		__asm__("fprem1\n\tfnstsw %%ax" : "=t"(r), "=a"(status)
			: "0"(a), "u"(b));
		a = r;
	} while (status & 0x400);   /* C2: reduction incomplete */
	return (double)r;
}
