/*
 * Unit tests for libc's strtod/strtof/strtold/atof against the host's
 * glibc, which rounds correctly: the same bits (NaNs: NaN of the same
 * sign), the same end pointer and the same errno, on edge cases and on
 * a million generated strings (random digit strings over the whole
 * exponent range, shortest and long printouts of random doubles, exact
 * halfway points and their neighbours, hex floats).
 */
#include "rng.h"
#include "tap.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_host.h"

static uint64_t rng_state = 0x6a09e667f3bcc909ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static unsigned rnd(unsigned n)
{
	return (unsigned)(rng() % n);
}

typedef struct tally {
	long run, bad;
} tally_t;

static tally_t t_double, t_float, t_ldouble;

static bool same_bits(const void *a, const void *b, size_t n, bool nan_a,
		      bool nan_b, bool neg_a, bool neg_b)
{
	if (nan_a || nan_b)
		return nan_a && nan_b && neg_a == neg_b;
	return memcmp(a, b, n) == 0;
}

/*
 * glibc's hex parser misses the inexact flag when the round bit is 0 and
 * only a lower bit is set (0x4bcc9beaca4aa.2p-1075: no ERANGE, .3: ERANGE),
 * so for hex strings of at most 15 digits (exact in long double) the
 * expected underflow errno comes from the exact value: tiny (below the
 * smallest normal after rounding to p bits) and inexact.
 */
static int hex_errno(const char *s, int glibc_err, long double rounded,
		     long double min_normal, int p)
{
	const char *x = strpbrk(s, "xX");
	size_t digits = 0;

	if (!x || (glibc_err == ERANGE && isinf(rounded)))
		return glibc_err;
	for (const char *c = x + 1; *c && *c != 'p' && *c != 'P'; c++)
		digits += *c != '.';
	if (digits > 15)
		return glibc_err;
	long double exact = fabsl(strtold(s, NULL));
	long double edge = min_normal - ldexpl(min_normal, -p - 1);
	bool tiny = exact < edge;
	return tiny && exact != fabsl(rounded) ? ERANGE : 0;
}

static void check_double(const char *s)
{
	char *e1, *e2;
	errno = 0;
	vl_errno = 0;
	double a = vl_strtod(s, &e1);
	int err_a = vl_errno;
	double b = strtod(s, &e2);
	int err_b = hex_errno(s, errno, b, DBL_MIN, DBL_MANT_DIG);

	t_double.run++;
	if (same_bits(&a, &b, sizeof(a), isnan(a), isnan(b), signbit(a),
		      signbit(b)) && e1 == e2 && err_a == err_b)
		return;
	if (t_double.bad++ < 8)
		diag("strtod(\"%.120s\"): %a end %td errno %d, glibc %a end %td "
		     "errno %d", s, a, e1 - s, err_a, b, e2 - s, err_b);
}

static void check_float(const char *s)
{
	char *e1, *e2;
	errno = 0;
	vl_errno = 0;
	float a = vl_strtof(s, &e1);
	int err_a = vl_errno;
	float b = strtof(s, &e2);
	int err_b = hex_errno(s, errno, b, FLT_MIN, FLT_MANT_DIG);

	t_float.run++;
	if (same_bits(&a, &b, sizeof(a), isnan(a), isnan(b), signbit(a),
		      signbit(b)) && e1 == e2 && err_a == err_b)
		return;
	if (t_float.bad++ < 8)
		diag("strtof(\"%.120s\"): %a end %td errno %d, glibc %a end %td "
		     "errno %d", s, (double)a, e1 - s, err_a, (double)b, e2 - s,
		     err_b);
}

static void check_ldouble(const char *s)
{
	char *e1, *e2;
	errno = 0;
	vl_errno = 0;
	long double a = vl_strtold(s, &e1);
	int err_a = vl_errno;
	long double b = strtold(s, &e2);
	int err_b = errno;

	t_ldouble.run++;
	if (same_bits(&a, &b, 10, isnan(a), isnan(b), signbit(a), signbit(b)) &&
	    e1 == e2 && err_a == err_b)
		return;
	if (t_ldouble.bad++ < 8)
		diag("strtold(\"%.120s\"): %La end %td errno %d, glibc %La end "
		     "%td errno %d", s, a, e1 - s, err_a, b, e2 - s, err_b);
}

static void check_all(const char *s)
{
	check_double(s);
	check_float(s);
	check_ldouble(s);
}

static const char *const edge[] = {
	"", " ", "+", "-", ".", "e5", "-.e1", "0", "-0", "+0.0e100", "00000.000",
	"1", "-1", "  \t\n 42", "1.", ".5", "1e", "1e+", "1e-", "1e+5x", "1.5e-3",
	"inf", "-INF", "infinity", "InFiNiTy!", "infinit", "in", "nan", "-nan",
	"NaN(123abc_)", "nan(", "nan()", "nan(x y)", "nanny", "0x", "0X", "0x.",
	"0x.p1", "0x1", "-0x1p-2", "0x1.8p1", "0xAbC.dEfP-7", "0x1p", "0x1p+",
	"0x1P-1074", "0x1p-1075", "0x1.0000000000001p-1075", "0x1.8p-1074",
	"0x1p-1076", "0x1.fffffffffffffp-1023", "0x1.fffffffffffff8p-1023",
	"0x1.fffffffffffff7ffffffp-1023", "0x1p1023", "0x1p1024",
	"0x1.fffffffffffffp1023", "0x1.fffffffffffff7fp1023",
	"0x1.fffffffffffff8p1023", "0x.000000000000000000000000000000001p130",
	"0x1234567890abcdef1234567890abcdefp0", "0x8000000000000001p0",
	"0x80000000000000008p-4", "0x80000000000000008000000000001p-52",
	"1e308", "1.7976931348623157e308", "1.7976931348623158e308",
	"1.7976931348623159e308", "1e309", "-1e400", "1e99999999999999999999",
	"1e-99999999999999999999", "2.2250738585072014e-308",
	"2.2250738585072011e-308", "2.2250738585072012e-308",
	"2.2250738585072013e-308", "4.9406564584124654e-324",
	"2.4703282292062327e-324", "2.4703282292062328e-324", "5e-324", "3e-324",
	"1e-320", "1e-400", "9007199254740993", "9007199254740992.5",
	"9007199254740993.000000000000000000000000000000000001",
	"0.1", "0.2", "0.3", "3.14159265358979323846264338327950288",
	"2.718281828459045235360287", "1e23", "8.589973e9", "123456789012345678",
	"4503599627370496.5", "4503599627370497.5", "1.00000005960464477550",
	"1.0000000596046447753906250", "1.00000005960464477539062499",
	"3.4028235e38", "3.40282356779733661637539395458142568448e38",
	"3.4028236e38", "1.1754943e-38", "1.17549428e-38", "1.4e-45", "7e-46",
	"7.006492e-46", "1e-50", "1.18973149535723176502e4932",
	"1.18973149535723176508e4932", "1.2e4932", "3.6451995318824746025e-4951",
	"1.8225997659412373012e-4951", "1e-4955", "3.3621031431120935063e-4932",
	"000000000000000000000000000000000000000000001.5e-10",
	"0.00000000000000000000000000000000000000000000000001e50",
	"1234567890123456789012345678901234567890e-40", "1e0000000000000000000001",
	"0.0000000000000000000000000000000000000000000000000000000000000000000",
};

static void test_edges(void)
{
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		check_all(edge[i]);
	ok(vl_atof("  -2.5e1xyz") == -25.0, "atof converts the prefix");
	ok(vl_atof("none") == 0.0, "atof of no number is 0");
}

/* A random digit string: sign, point, leading zeros, exponent. */
static void gen_digits(char *buf, size_t size)
{
	size_t n = 0;
	unsigned nd = 1 + rnd(rnd(8) ? 20 : 60), point = rnd(nd + 1);

	if (rnd(4) == 0)
		buf[n++] = "+-"[rnd(2)];
	for (unsigned z = rnd(3) ? 0 : rnd(5); z; z--)
		buf[n++] = '0';
	for (unsigned i = 0; i < nd; i++) {
		if (i == point && rnd(2))
			buf[n++] = '.';
		buf[n++] = (char)('0' + rnd(10));
	}
	if (rnd(8))
		snprintf(buf + n, size - n, "e%d", (int)rnd(700) - 360);
	else
		buf[n] = 0;
}

/* A random finite double (all exponents equally likely). */
static double random_double(void)
{
	uint64_t b = rng() & ~(0x7ffull << 52);
	double d;

	b |= (uint64_t)rnd(2047) << 52;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/* Exactly halfway between d and its successor, +-1 in the last digit. */
static void gen_halfway(char *buf, size_t size)
{
	double d = fabs(random_double());
	long double mid = ((long double)d + nextafter(d, INFINITY)) / 2;
	int prec = 780;

	snprintf(buf, size, "%.*Le", prec, mid);
	char *e = strchr(buf, 'e');
	char *last = e - 1;
	while (last > buf && *last == '0')
		last--;
	unsigned r = rnd(3);
	if (r == 0 && *last != '.') {
		*last = *last == '9' ? '8' : (char)(*last + 1);
	} else if (r == 1 && *last != '.' && *last > '0') {
		(*last)--;
		memset(last + 1, '9', (size_t)(e - last - 1));
	}
}

/* Halfway between two floats, exact, with and without a nudge. */
static void gen_halfway_float(char *buf, size_t size)
{
	uint32_t b = (uint32_t)rng() & 0x7f7fffff;
	float f;

	memcpy(&f, &b, sizeof(f));
	double mid = ((double)f + nextafterf(f, INFINITY)) / 2;
	if (rnd(2))
		mid = nextafter(mid, rnd(2) ? INFINITY : 0);
	snprintf(buf, size, "%.*e", 120, mid);
}

static void gen_hex(char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s0x", rnd(2) ? "-" : "");
	unsigned nd = 1 + rnd(rnd(4) ? 16 : 40), point = rnd(nd + 1);

	for (unsigned i = 0; i < nd; i++) {
		if (i == point)
			buf[n++] = '.';
		buf[n++] = "0123456789abcdefABCDEF"[rnd(22)];
	}
	snprintf(buf + n, size - n, "p%d", (int)rnd(2400) - 1200 - 4 * point);
}

static void generate(char *buf, size_t size, unsigned kind)
{
	switch (kind) {
	case 0:
	case 1:
	case 2:
		gen_digits(buf, size);
		break;
	case 3:
		snprintf(buf, size, "%.17g", random_double());
		break;
	case 4:
		snprintf(buf, size, "%.*g", 1 + (int)rnd(25), random_double());
		break;
	case 5:
		snprintf(buf, size, "%.16e", random_double());
		break;
	case 6:
		gen_hex(buf, size);
		break;
	default:
		snprintf(buf, size, "%.9g", (double)(float)random_double());
		break;
	}
}

static void test_random(void)
{
	static char buf[1200];
	const long n = 1000000;

	for (long i = 0; i < n; i++) {
		generate(buf, sizeof(buf), (unsigned)(i % 8));
		check_double(buf);
		if (i % 5 == 0)
			check_float(buf);
		if (i % 10 == 0)
			check_ldouble(buf);
	}
	for (int i = 0; i < 3000; i++) {
		gen_halfway(buf, sizeof(buf));
		check_double(buf);
		if (i % 10 == 0)
			check_ldouble(buf);
		gen_halfway_float(buf, sizeof(buf));
		check_float(buf);
	}
}

int main(void)
{
	test_edges();
	test_random();
	ok(t_double.run > 1000000, "strtod: %ld strings", t_double.run);
	is_int(t_double.bad, 0, "strtod agrees with glibc (bits, end, errno)");
	is_int(t_float.bad, 0, "strtof agrees with glibc (%ld strings)",
	       t_float.run);
	is_int(t_ldouble.bad, 0, "strtold agrees with glibc (%ld strings)",
	       t_ldouble.run);
	return done_testing();
}
