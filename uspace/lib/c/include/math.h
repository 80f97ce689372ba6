/*
 * Mathematics (double precision). sqrt is the SSE2 instruction, the
 * rounding and decomposition functions are exact bit manipulation, fmod is
 * exact (x87 FPREM); exp, log and pow are accurate to about 1 ulp but not
 * correctly rounded. errno is not set (math_errhandling is
 * MATH_ERREXCEPT only).
 */
#ifndef _MATH_H
#define _MATH_H

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
#define math_errhandling MATH_ERREXCEPT

#define M_E 2.7182818284590452354
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_SQRT2 1.41421356237309504880

#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf_sign(x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)
#define fpclassify(x) \
	__builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, \
			     FP_ZERO, x)
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4

/* Correctly rounded square root (NaN for x < 0). */
double sqrt(double x);
float sqrtf(float x);
/* |x| (clears the sign bit, also of NaN). */
double fabs(double x);
float fabsf(float x);
/* Largest integral value <= x; smallest >= x; x rounded toward zero. */
double floor(double x);
double ceil(double x);
double trunc(double x);
/* Nearest integral value, halfway cases away from zero. */
double round(double x);
/* round() converted to long (undefined if out of range). */
long lround(double x);
/* x - n*y for the integer n of x/y rounded toward zero; exact. */
double fmod(double x, double y);
/* Split x into an integral part (*ip) and a fraction with x's sign. */
double modf(double x, double *ip);
/* x = m * 2^*e with 0.5 <= |m| < 1 (m = x for 0, inf, NaN). */
double frexp(double x, int *e);
/* x * 2^e, correctly rounded. */
double ldexp(double x, int e);
double scalbn(double x, int e);
/* Smaller or larger of two values (a quiet NaN argument loses). */
double fmin(double a, double b);
double fmax(double a, double b);
/* e^x, natural and base-10/base-2 logarithms, x^y (about 1 ulp). */
double exp(double x);
double log(double x);
double log2(double x);
double log10(double x);
double pow(double x, double y);

#endif
