/*
 * Mathematics (double precision, and float versions that compute in double
 * and round once). sqrt is the SSE2 instruction, the rounding and
 * decomposition functions are exact bit manipulation, fmod and remainder
 * are exact (x87 FPREM/FPREM1); the transcendental functions compute in
 * x87 extended precision and are within 1 ulp of glibc (not always
 * correctly rounded); sin/cos/tan reduce their argument exactly for every
 * double. errno is not set (math_errhandling is MATH_ERREXCEPT only).
 * Not provided: fma, erf/erfc, tgamma/lgamma, the Bessel functions, the
 * long double (l-suffixed) versions, <fenv.h> and <complex.h>.
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
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_SQRT1_2 0.70710678118654752440
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#define HUGE_VALL (__builtin_huge_vall())

typedef float float_t;
typedef double double_t;

#define isgreater(x, y) __builtin_isgreater(x, y)
#define isgreaterequal(x, y) __builtin_isgreaterequal(x, y)
#define isless(x, y) __builtin_isless(x, y)
#define islessequal(x, y) __builtin_islessequal(x, y)
#define islessgreater(x, y) __builtin_islessgreater(x, y)
#define isunordered(x, y) __builtin_isunordered(x, y)

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

/* Trigonometry (radians; exact argument reduction for every double). */
double sin(double x);
double cos(double x);
double tan(double x);
double asin(double x);
double acos(double x);
double atan(double x);
/* atan(y / x) in the quadrant of (x, y), in [-pi, pi]. */
double atan2(double y, double x);
double sinh(double x);
double cosh(double x);
double tanh(double x);
/* 2^x; e^x - 1 and log(1 + x), accurate for tiny x; cube root. */
double exp2(double x);
double expm1(double x);
double log1p(double x);
double cbrt(double x);
/* sqrt(x^2 + y^2) without overflow; inf if either is inf. */
double hypot(double x, double y);
/* x - n*y for the integer n nearest x/y (ties to even); exact. */
double remainder(double x, double y);
/* |x| with the sign of y; a quiet NaN; the next double after x toward y. */
double copysign(double x, double y);
double nan(const char *tag);
double nextafter(double x, double y);
/* Rounding to integral values in the current mode (to nearest even). */
double rint(double x);
double nearbyint(double x);
long lrint(double x);
long long llrint(double x);
long long llround(double x);
/* x - y if x > y, else +0. */
double fdim(double x, double y);
/* The exponent of x as an int (FP_ILOGB0 for 0) or a double. */
int ilogb(double x);
double logb(double x);

/* float versions: the double function rounded to float. */
float sinf(float x);
float cosf(float x);
float tanf(float x);
float asinf(float x);
float acosf(float x);
float atanf(float x);
float atan2f(float y, float x);
float sinhf(float x);
float coshf(float x);
float tanhf(float x);
float expf(float x);
float exp2f(float x);
float expm1f(float x);
float logf(float x);
float log2f(float x);
float log10f(float x);
float log1pf(float x);
float powf(float x, float y);
float cbrtf(float x);
float hypotf(float x, float y);
float fmodf(float x, float y);
float remainderf(float x, float y);
float floorf(float x);
float ceilf(float x);
float roundf(float x);
float truncf(float x);
float rintf(float x);
float nearbyintf(float x);
long lroundf(float x);
long lrintf(float x);
float modff(float x, float *ip);
float frexpf(float x, int *e);
float ldexpf(float x, int e);
float scalbnf(float x, int e);
float fminf(float a, float b);
float fmaxf(float a, float b);
float copysignf(float x, float y);
float fdimf(float x, float y);
float logbf(float x);
float nanf(const char *tag);
float nextafterf(float x, float y);

#endif
