/*
 * Mathematics. Exact operations are done on the bit patterns; exp, log
 * and pow use the x87 unit (fyl2x, f2xm1, fscale) whose 64-bit mantissas
 * carry enough extra precision that the final rounding to double is
 * within about one ulp.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "math_bits.h"

#define EXP_BIAS 1023
#define FRAC_BITS 52
#define SIGN_BIT (UINT64_C(1) << 63)

/* Unbiased exponent field of x (1024 for inf and NaN, -1023 for 0/subnormals). */
static int exponent(double x)
{
	return (int)((bits_of(x) >> FRAC_BITS) & 0x7ff) - EXP_BIAS;
}

/* ---------------------------------------------------------------- exact */

double sqrt(double x)
{
	__asm__("sqrtsd %1, %0" : "=x"(x) : "x"(x));
	return x;
}

float sqrtf(float x)
{
	__asm__("sqrtss %1, %0" : "=x"(x) : "x"(x));
	return x;
}

double fabs(double x)
{
	return from_bits(bits_of(x) & ~SIGN_BIT);
}

float fabsf(float x)
{
	return (float)fabs(x);
}

double trunc(double x)
{
	int e = exponent(x);

	if (e >= FRAC_BITS)
		return x;
	if (e < 0)
		return from_bits(bits_of(x) & SIGN_BIT);
	uint64_t mask = (UINT64_C(1) << (FRAC_BITS - e)) - 1;
	return from_bits(bits_of(x) & ~mask);
}

double floor(double x)
{
	double t = trunc(x);

	return x < t ? t - 1.0 : t;
}

double ceil(double x)
{
	double t = trunc(x);

	return x > t ? t + 1.0 : t;
}

double round(double x)
{
	double t = trunc(x);

	if (exponent(x) >= FRAC_BITS)
		return x;
	if (fabs(x - t) >= 0.5)
		return x < 0 ? t - 1.0 : t + 1.0;
	return t;
}

long lround(double x)
{
	return (long)round(x);
}

double modf(double x, double *ip)
{
	*ip = trunc(x);
	if (isinf(x))
		return from_bits(bits_of(x) & SIGN_BIT);
	double f = x - *ip;
	return from_bits((bits_of(f) & ~SIGN_BIT) | (bits_of(x) & SIGN_BIT));
}

double fmod(double x, double y)
{
	long double a = x, b = y, r;
	unsigned short status;

	do {
		__asm__("fprem\n\tfnstsw %%ax" : "=t"(r), "=a"(status)
			: "0"(a), "u"(b));
		a = r;
	} while (status & 0x400);   /* C2: reduction incomplete */
	return (double)r;
}

double frexp(double x, int *e)
{
	int ex = exponent(x);

	*e = 0;
	if (x == 0 || ex == 1024)
		return x;
	if (ex == -EXP_BIAS) {
		x *= 0x1p54;
		*e = -54;
		ex = exponent(x);
	}
	*e += ex + 1;
	uint64_t b = bits_of(x) & ~(UINT64_C(0x7ff) << FRAC_BITS);
	return from_bits(b | ((uint64_t)(EXP_BIAS - 1) << FRAC_BITS));
}

/* musl's method: scale in up to three exact steps, the last one rounding. */
double scalbn(double x, int n)
{
	if (n > 1023) {
		x *= 0x1p1023;
		n -= 1023;
		if (n > 1023) {
			x *= 0x1p1023;
			n = n - 1023 > 1023 ? 1023 : n - 1023;
		}
	} else if (n < -1022) {
		x *= 0x1p-1022 * 0x1p53;
		n += 1022 - 53;
		if (n < -1022) {
			x *= 0x1p-1022 * 0x1p53;
			n = n + 1022 - 53 < -1022 ? -1022 : n + 1022 - 53;
		}
	}
	return x * from_bits((uint64_t)(EXP_BIAS + n) << FRAC_BITS);
}

double ldexp(double x, int e)
{
	return scalbn(x, e);
}

/* A NaN with the quiet bit clear. */
static bool is_signaling(double x)
{
	return isnan(x) && !(bits_of(x) & (UINT64_C(1) << (FRAC_BITS - 1)));
}

/*
 * The NaN rules of fmin/fmax: a quiet NaN loses to a number, a signaling
 * one makes the result NaN (as glibc does). Returns true with *r set
 * when a NaN decided the result.
 */
static bool minmax_nan(double a, double b, double *r)
{
	if (!isnan(a) && !isnan(b))
		return false;
	if (is_signaling(a) || is_signaling(b))
		*r = a + b;
	else
		*r = isnan(a) ? b : a;
	return true;
}

double fmin(double a, double b)
{
	double r;

	if (minmax_nan(a, b, &r))
		return r;
	return a < b || (a == b && signbit(a)) ? a : b;
}

double fmax(double a, double b)
{
	double r;

	if (minmax_nan(a, b, &r))
		return r;
	return a > b || (a == b && !signbit(a)) ? a : b;
}

/* ---------------------------------------------------------------- x87 */

/* y * log2(x) in extended precision. */
static long double x87_ylog2x(long double x, long double y)
{
	long double r;

	__asm__("fyl2x" : "=t"(r) : "0"(x), "u"(y) : "st(1)");
	return r;
}

/* 2^z in extended precision. */
static long double x87_exp2(long double z)
{
	long double n, f, r;

	__asm__("frndint" : "=t"(n) : "0"(z));
	f = z - n;
	__asm__("f2xm1" : "=t"(r) : "0"(f));
	r += 1.0L;
	__asm__("fscale" : "=t"(r) : "0"(r), "u"(n));
	return r;
}

static long double x87_const(int which)
{
	long double r;

	if (which == 0)
		__asm__("fldl2e" : "=t"(r));
	else if (which == 1)
		__asm__("fldln2" : "=t"(r));
	else
		__asm__("fldlg2" : "=t"(r));
	return r;
}

double exp(double x)
{
	if (isnan(x))
		return x;
	if (isinf(x))
		return x > 0 ? x : 0.0;
	return (double)x87_exp2(x * x87_const(0));
}

/* log_b(x) = scale * log2(x); special values first. */
static double log_scaled(double x, long double scale)
{
	if (isnan(x) || x < 0)
		return x < 0 ? NAN : x;
	if (x == 0)
		return -INFINITY;
	if (isinf(x))
		return x;
	return (double)x87_ylog2x(x, scale);
}

double log(double x)
{
	return log_scaled(x, x87_const(1));
}

double log2(double x)
{
	return log_scaled(x, 1.0L);
}

double log10(double x)
{
	return log_scaled(x, x87_const(2));
}

static bool is_integer(double y)
{
	return trunc(y) == y;
}

static bool is_odd_integer(double y)
{
	return is_integer(y) && fabs(y) < 0x1p53 && fmod(y, 2.0) != 0;
}

/* pow for x = +-0 or +-inf (C Annex F). */
static double pow_edge_x(double x, double y)
{
	bool odd = is_odd_integer(y);
	bool big = (x != 0);     /* inf */

	if ((y < 0) != big)
		return odd && signbit(x) ? -INFINITY : INFINITY;
	return odd && signbit(x) ? -0.0 : 0.0;
}

double pow(double x, double y)
{
	if (y == 0 || x == 1)
		return 1.0;
	if (isnan(x) || isnan(y))
		return x + y;
	if (isinf(y)) {
		double ax = fabs(x);
		if (ax == 1)
			return 1.0;
		return (ax > 1) == (y > 0) ? INFINITY : 0.0;
	}
	if (x == 0 || isinf(x))
		return pow_edge_x(x, y);
	if (x < 0 && !is_integer(y))
		return NAN;
	double r = (double)x87_exp2(x87_ylog2x(fabs(x), y));
	return x < 0 && is_odd_integer(y) ? -r : r;
}
