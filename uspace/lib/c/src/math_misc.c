/*
 * The rest of <math.h>: sign and neighbour manipulation, rounding in the
 * current mode (round to nearest even: Vernier never changes it), and the
 * float (f-suffixed) versions, which compute in double and round once
 * (within one float ulp: the double result is far more accurate).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "math_bits.h"

/* |x| with y's sign bit. */
double copysign(double x, double y)
{
	return from_bits((bits_of(x) & ~(1ull << 63)) | (bits_of(y) & 1ull << 63));
}

/* A quiet NaN (the payload text is ignored). */
double nan(const char *tag)
{
	(void)tag;
	return NAN;
}

float nanf(const char *tag)
{
	(void)tag;
	return NAN;
}

/* The double next to x toward y (y if equal). */
double nextafter(double x, double y)
{
	if (isnan(x) || isnan(y))
		return x + y;
	if (x == y)
		return y;
	if (x == 0)
		return copysign(0x1p-1074, y);
	uint64_t b = bits_of(x);
	b += ((x < y) == (x > 0)) ? 1 : -1;
	return from_bits(b);
}

/* x rounded to an integer, ties to even (the only rounding mode). */
double rint(double x)
{
	double t = copysign(0x1p52, x);

	if (!(fabs(x) < 0x1p52))
		return x;
	volatile double s = x + t;
	return copysign(s - t, x);
}

/* rint (no exceptions are raised either way). */
double nearbyint(double x)
{
	return rint(x);
}

/* rint converted (undefined out of range, as in C). */
long lrint(double x)
{
	return (long)rint(x);
}

/* rint converted to long long. */
long long llrint(double x)
{
	return (long long)rint(x);
}

/* round converted to long long. */
long long llround(double x)
{
	return (long long)round(x);
}

/* x - y if x > y, else +0 (NaN in: NaN). */
double fdim(double x, double y)
{
	if (isnan(x) || isnan(y))
		return x + y;
	return x > y ? x - y : 0.0;
}

/* The unbiased exponent of x (FP_ILOGB0 for 0, INT_MAX for inf/NaN). */
int ilogb(double x)
{
	int e;

	if (x == 0)
		return FP_ILOGB0;
	if (!isfinite(x))
		return isnan(x) ? FP_ILOGBNAN : 0x7fffffff;
	frexp(x, &e);
	return e - 1;
}

/* ilogb as a double: -inf for 0, inf for inf. */
double logb(double x)
{
	if (x == 0)
		return -INFINITY;
	if (!isfinite(x))
		return x * x;
	return (double)ilogb(x);
}

/* ---------------------------------------------------------------- float */

/* The float versions: widen, call the double function, round once. */

#define F1(name) \
	float name##f(float x) { return (float)name((double)x); }
#define F2(name) \
	float name##f(float x, float y) \
	{ return (float)name((double)x, (double)y); }

F1(sin) F1(cos) F1(tan) F1(asin) F1(acos) F1(atan) F2(atan2)
F1(sinh) F1(cosh) F1(tanh) F1(exp) F1(exp2) F1(expm1) F1(log) F1(log2)
F1(log10) F1(log1p) F2(pow) F1(cbrt) F2(hypot) F2(fmod) F2(remainder)
F1(floor) F1(ceil) F1(round) F1(trunc) F1(rint) F1(nearbyint) F2(fmin)
F2(fmax) F2(copysign) F2(fdim) F1(logb)

long lroundf(float x)
{
	return lround(x);
}

long lrintf(float x)
{
	return lrint(x);
}

float modff(float x, float *ip)
{
	double i, f = modf(x, &i);

	*ip = (float)i;
	return (float)f;
}

float frexpf(float x, int *e)
{
	return (float)frexp(x, e);
}

float ldexpf(float x, int e)
{
	return (float)ldexp(x, e);
}

float scalbnf(float x, int e)
{
	return (float)ldexp(x, e);
}

float nextafterf(float x, float y)
{
	uint32_t b;

	if (isnan(x) || isnan(y))
		return x + y;
	if (x == y)
		return y;
	if (x == 0)
		return (float)copysign(0x1p-149, y);
	memcpy(&b, &x, sizeof(b));
	b += ((x < y) == (x > 0)) ? 1 : -1;
	memcpy(&x, &b, sizeof(x));
	return x;
}
