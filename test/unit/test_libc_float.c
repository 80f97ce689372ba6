/*
 * Unit tests for lib/fmt_float.c: the floating-point conversions of
 * fmt_snprintf (and of libc's snprintf/printf built on it) must produce
 * exactly what the host C library's snprintf produces (glibc: exact,
 * round to nearest even), over a table of special and edge values and
 * tens of thousands of random doubles, precisions, flags and widths.
 */
#include "rng.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lib/fmt.h>

#include "libc_host.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define BUFSZ 2048

static int mismatches;

/* Format one double with fmt through fmt_snprintf and the host. */
static bool check_one(const char *fmt, double v, size_t size)
{
	char got[BUFSZ], exp[BUFSZ];

	memset(got, 'X', sizeof(got));
	memset(exp, 'X', sizeof(exp));
	int rg = fmt_snprintf(got, size, fmt, v);
	int re = snprintf(exp, size, fmt, v);
	if (rg == re && memcmp(got, exp, sizeof(got)) == 0)
		return true;
	if (mismatches++ < 20)
		diag("mismatch: \"%s\" %a (size %zu): got %d \"%.200s\" expected %d "
		     "\"%.200s\"", fmt, v, size, rg, got, re, exp);
	return false;
}

static const double specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 0.5, 1.5, 2.5, 3.5, -0.5, -1.5,
	-2.5, 0.125, 0.375, 9.9995, 9.995, 0.05, 0.15, 0.25, 0.35, 0.45,
	1e-300, 1e300, 1e-5, 1e-4, 1e-3, 999999.5, 9999995.0, 99999.95,
	123456.789, -123456.789, 1234567.0, 12345678.9, 0.000123456789,
	DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN, DBL_TRUE_MIN, 4.9e-324,
	2.2250738585072009e-308, 1e-310, 5e-320, DBL_EPSILON, 1.0 / 3.0,
	2.0 / 3.0, M_PI, M_E, 100.0, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
	9007199254740992.0, 9007199254740993.0, 18446744073709551616.0,
	0.9999999, 0.99999999999, 9.5, 99.5, 0.095, 1e-7, 5e-7, 4.5e-7,
	65536.0, 1.0e-10, 12.0, 0.001, 1234.5, 1e100, 1.7976931348623157e308,
};

static const char *const spec_formats[] = {
	"%f", "%e", "%g", "%F", "%E", "%G", "%.0f", "%.0e", "%.0g", "%.1f",
	"%.1e", "%.1g", "%.2f", "%.2e", "%.2g", "%.3f", "%.3e", "%.3g",
	"%.10f", "%.10e", "%.10g", "%.17f", "%.17e", "%.17g", "%.20e",
	"%.25g", "%.40f", "%.60e", "%.330f", "%.800e", "%.1100f", "%#.0f",
	"%#.0e", "%#g", "%#.3g", "%#.0g", "%#.10g", "%+f", "% f", "%+e",
	"% g", "%+.3g", "%15f", "%-15f|", "%015f", "%+015.3f", "%-+15.3e|",
	"% 015g", "%025.10e", "%.0f", "%8.3f", "%-8.3f|", "%08.3f", "%30.20g",
	"%a", "%A", "%.0a", "%.1a", "%.3a", "%.13a", "%.20a", "%#a", "%#.0a",
	"%+a", "%20a", "%-20a|", "%020a", "%+020.3A", "%Lf", "%.2Lf", "%Lg",
	"%15.7Le",
};

static void test_table(void)
{
	size_t n = sizeof(specials) / sizeof(specials[0]);
	size_t nf = sizeof(spec_formats) / sizeof(spec_formats[0]);
	int bad = 0, total = 0;

	for (size_t f = 0; f < nf; f++) {
		bool is_long = strchr(spec_formats[f], 'L') != NULL;
		for (size_t i = 0; i < n; i++) {
			char got[BUFSZ], exp[BUFSZ];
			total++;
			if (!is_long) {
				bad += !check_one(spec_formats[f], specials[i], BUFSZ);
				continue;
			}
			/* A long double holding a double prints the same. */
			long double lv = specials[i];
			int rg = fmt_snprintf(got, BUFSZ, spec_formats[f], lv);
			int re = snprintf(exp, BUFSZ, spec_formats[f], lv);
			if (rg != re || strcmp(got, exp) != 0) {
				bad++;
				diag("mismatch %s: got \"%s\" expected \"%s\"",
				     spec_formats[f], got, exp);
			}
		}
	}
	ok(bad == 0, "%d table conversions match the host (%d bad)", total, bad);
}

static void test_nonfinite(void)
{
	static const char *const fmts[] = {
		"%f", "%F", "%e", "%E", "%g", "%G", "%a", "%A", "%+f", "% e",
		"%10f", "%-10g|", "%010f", "%+010e", "%.3f", "%#g",
	};
	double vals[] = { INFINITY, -INFINITY, NAN, -NAN };
	int bad = 0;

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (size_t i = 0; i < 4; i++)
			bad += !check_one(fmts[f], vals[i], BUFSZ);
	ok(bad == 0, "inf and nan in every conversion and flag (%d bad)", bad);
}

static void test_rounding_edges(void)
{
	char buf[64];

	fmt_snprintf(buf, sizeof(buf), "%.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, 3.5);
	is_str(buf, "0 2 2 4", "%%.0f rounds exact halves to even");
	fmt_snprintf(buf, sizeof(buf), "%.2f %.2f", 0.125, 0.375);
	is_str(buf, "0.12 0.38", "%%.2f of exact binary halves");
	fmt_snprintf(buf, sizeof(buf), "%.3f", 9.9995);
	is_str(buf, "9.999", "9.9995 is below the half in binary");
	fmt_snprintf(buf, sizeof(buf), "%.1f", 0.05);
	is_str(buf, "0.1", "0.05 is above the half in binary");
	fmt_snprintf(buf, sizeof(buf), "%g %g %g", 100000.0, 1000000.0, 1e-5);
	is_str(buf, "100000 1e+06 1e-05", "%%g switches to exponent notation");
	fmt_snprintf(buf, sizeof(buf), "%g", 999999.5);
	is_str(buf, "1e+06", "%%g rounding carries into the exponent");
	fmt_snprintf(buf, sizeof(buf), "%#g", 1.0);
	is_str(buf, "1.00000", "%%#g keeps trailing zeros");
	fmt_snprintf(buf, sizeof(buf), "%.3e", 9.9996);
	is_str(buf, "1.000e+01", "%%e rounding carries into the exponent");
	fmt_snprintf(buf, sizeof(buf), "%e", 1e-300);
	is_str(buf, "1.000000e-300", "three-digit exponents");
}

/* Values just below powers of ten: rounding carries into a new digit. */
static void test_carries(void)
{
	static const char *const fmts[] = {
		"%%#.%dg", "%%.%dg", "%%.%de", "%%#.%de", "%%.%df", "%%#.%df",
	};
	int bad = 0;

	for (int k = -8; k <= 22; k++) {
		double p10 = pow(10, k);
		double vals[] = { p10, nextafter(p10, 0), p10 * (1 - 1e-9),
				  p10 * (1 - 4e-7), p10 * 0.99995, p10 * 0.95 };
		for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++)
			for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
				for (int prec = 0; prec < 10; prec++) {
					char fmt[16];
					snprintf(fmt, sizeof(fmt), fmts[f], prec);
					bad += !check_one(fmt, vals[v], BUFSZ);
				}
	}
	ok(bad == 0, "carries near powers of ten, %%g %%e %%f with and without #"
	   " (%d bad)", bad);
}

/* Random doubles: half raw bit patterns, half of moderate magnitude. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static double random_double(void)
{
	uint64_t r = rng();
	double d;

	switch (rng() % 4) {
	case 0:
		memcpy(&d, &r, sizeof(d));
		return isfinite(d) ? d : 1.5;
	case 1:
		return (double)(int64_t)r / (double)(1ull << (rng() % 64));
	case 2:
		/* Short decimals such as 12.345: many ties and near-ties. */
		return (double)(int64_t)(r % 2000001 - 1000000) /
			(double)(uint64_t)pow(10, (double)(rng() % 8));
	default:
		return ldexp((double)(r >> 11), (int)(rng() % 200) - 100);
	}
}

static void test_random_precision(void)
{
	static const char convs[] = "efgEFG";
	int bad = 0;

	for (int i = 0; i < 30000; i++) {
		char fmt[16];
		snprintf(fmt, sizeof(fmt), "%%.%d%c", (int)(rng() % 18),
			 convs[rng() % 6]);
		bad += !check_one(fmt, random_double(), BUFSZ);
	}
	ok(bad == 0, "30000 random doubles, precision 0..17, %%e %%f %%g (%d bad)",
	   bad);
}

/* Random flags, width, precision and conversion, with truncation. */
static void test_random_specs(void)
{
	static const char convs[] = "efgEFGaA";
	int bad = 0;

	for (int i = 0; i < 20000; i++) {
		char fmt[32], *p = fmt;
		*p++ = '%';
		for (const char *f = "-+ #0"; *f; f++)
			if (rng() % 4 == 0)
				*p++ = *f;
		if (rng() % 2)
			p += sprintf(p, "%d", (int)(rng() % 40));
		if (rng() % 3)
			p += sprintf(p, ".%d", (int)(rng() % 30));
		*p++ = convs[rng() % 8];
		*p = '\0';
		size_t size = rng() % 4 == 0 ? rng() % 30 : BUFSZ;
		bad += !check_one(fmt, random_double(), size);
	}
	ok(bad == 0, "20000 random float specifications (%d bad)", bad);
}

/* Mixed with integers: the va_list stays in step. */
static void test_mixed_args(void)
{
	char got[256], exp[256];

	fmt_snprintf(got, sizeof(got), "%d %f %s %e %ld %g %c %a %u", 1, 2.5,
		     "x", 3e10, 4L, 5e-5, 'y', 0.75, 6u);
	snprintf(exp, sizeof(exp), "%d %f %s %e %ld %g %c %a %u", 1, 2.5, "x",
		 3e10, 4L, 5e-5, 'y', 0.75, 6u);
	is_str(got, exp, "floats between integer arguments");
	fmt_snprintf(got, sizeof(got), "%*.*f|%-*e|", 12, 3, -1.0 / 7, 14, 2.0);
	snprintf(exp, sizeof(exp), "%*.*f|%-*e|", 12, 3, -1.0 / 7, 14, 2.0);
	is_str(got, exp, "'*' width and precision with floats");
	is_int(fmt_snprintf(NULL, 0, "%.500f", 1.0), 502,
	       "length counted without output");
}

/* Through libc: vl_snprintf and printf to the fake console. */
static void test_libc_paths(void)
{
	char got[128], exp[128];

	vl_snprintf(got, sizeof(got), "%.3f|%10.4e|%g", M_PI, -M_E, 1e100);
	snprintf(exp, sizeof(exp), "%.3f|%10.4e|%g", M_PI, -M_E, 1e100);
	is_str(got, exp, "libc snprintf formats floats");
	fake_reset();
	vl_printf("x=%.2f\n", 2.375);
	is_str(fake_console(), "x=2.38\n", "libc printf of a float reaches the console");
}

int main(void)
{
	test_table();
	test_nonfinite();
	test_rounding_edges();
	test_carries();
	test_random_precision();
	test_random_specs();
	test_mixed_args();
	test_libc_paths();
	return done_testing();
}
