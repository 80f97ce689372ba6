/*
 * strtod, strtof, strtold and atof: correctly rounded (round to nearest,
 * ties to even) decimal and hexadecimal conversions.
 *
 * One parser turns the text into an exact value: a decimal significand of
 * at most STRTOD_DIGITS digits (more digits collapse into one sticky
 * digit, which cannot change the rounding of double or float because no
 * halfway point between two of them has more than 767 significant digits)
 * times a power of ten, or a 64-bit binary significand with a sticky bit
 * times a power of two. Hex values round exactly by integer arithmetic.
 * Decimal values start from an x87 extended-precision estimate (or the
 * exact double fast path when the significand and power of ten are both
 * exact doubles) and are then settled by comparing the exact value with the
 * halfway points on either side of the candidate in big integers.
 *
 * The three formats are handled as "ordinals": (biased exponent << (p-1)) |
 * fraction, so that the next representable value is ordinal + 1 and
 * infinity is the ordinal after the largest finite value.
 *
 * errno = ERANGE on overflow (result +-HUGE_VAL) and on underflow: a
 * result that is tiny (below the smallest normal after rounding to p bits
 * with an unbounded exponent) and inexact, as glibc does.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STRTOD_DIGITS 800
#define BN_LIMBS 640           /* 20480 bits: long double's worst case */
#define EXP_CLAMP 100000

typedef unsigned __int128 ord_t;

/* A binary floating-point format. */
typedef struct fp_fmt {
	int p;                 /* significand bits, integer bit included */
	int emin;              /* exponent of the smallest subnormal's ulp */
	int emax_field;        /* biased exponent field of infinity */
	int dec_max;           /* D*10^E with nd-1+E > dec_max overflows */
	int dec_min;           /* ... with nd+E < dec_min rounds to zero */
} fp_fmt_t;

static const fp_fmt_t fmt_double = { 53, -1074, 2047, 309, -325 };
static const fp_fmt_t fmt_float = { 24, -149, 255, 39, -46 };
static const fp_fmt_t fmt_ldouble = { 64, -16445, 32767, 4933, -4952 };

/* The parsed text. */
typedef struct num {
	bool neg;
	int kind;              /* NUM_* */
	/* NUM_DEC: digits[0..nd) (no leading zero) * 10^exp */
	char digits[STRTOD_DIGITS + 2];
	int nd;
	long exp;
	/* NUM_HEX: mant * 2^exp (mant != 0), sticky: nonzero bits below */
	ord_t mant;
	bool sticky;
} num_t;

enum { NUM_NONE, NUM_ZERO, NUM_DEC, NUM_HEX, NUM_INF, NUM_NAN };

/* ---------------------------------------------------------------- big integers */

typedef struct bn {
	int n;                 /* limbs in use (no leading zero limb) */
	uint32_t d[BN_LIMBS];
} bn_t;

static void bn_set(bn_t *a, ord_t v)
{
	a->n = 0;
	while (v) {
		a->d[a->n++] = (uint32_t)v;
		v >>= 32;
	}
}

/* a = a * m + add. */
static void bn_mul_small(bn_t *a, uint32_t m, uint32_t add)
{
	uint64_t carry = add;

	for (int i = 0; i < a->n; i++) {
		uint64_t t = (uint64_t)a->d[i] * m + carry;
		a->d[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry && a->n < BN_LIMBS)
		a->d[a->n++] = (uint32_t)carry;
}

/* a = a * 5^e. */
static void bn_mul_pow5(bn_t *a, long e)
{
	static const uint32_t p5[14] = {
		1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125,
		9765625, 48828125, 244140625, 1220703125,
	};

	for (; e >= 13; e -= 13)
		bn_mul_small(a, p5[13], 0);
	if (e > 0)
		bn_mul_small(a, p5[e], 0);
}

/* r = a * b (b: bn limbs at bd; r distinct from both). */
static void bn_mul(bn_t *r, const bn_t *a, const uint32_t *bd, int bn)
{
	int n = a->n + bn;

	if (n > BN_LIMBS)
		n = BN_LIMBS;
	memset(r->d, 0, (size_t)n * sizeof(r->d[0]));
	for (int i = 0; i < a->n; i++) {
		uint64_t carry = 0;
		for (int j = 0; j < bn && i + j < n; j++) {
			uint64_t t = (uint64_t)a->d[i] * bd[j] + r->d[i + j] +
				carry;
			r->d[i + j] = (uint32_t)t;
			carry = t >> 32;
		}
		if (i + bn < n)
			r->d[i + bn] = (uint32_t)carry;
	}
	while (n > 0 && r->d[n - 1] == 0)
		n--;
	r->n = n;
}

/* a <<= s. */
static void bn_shl(bn_t *a, long s)
{
	int limbs = (int)(s / 32), bits = (int)(s % 32);

	if (a->n == 0)
		return;
	if (a->n + limbs + 1 > BN_LIMBS)
		limbs = BN_LIMBS - a->n - 1;   /* cannot happen within bounds */
	a->d[a->n + limbs] = 0;
	for (int i = a->n - 1; i >= 0; i--) {
		uint32_t v = a->d[i];
		if (bits) {
			a->d[i + limbs + 1] |= v >> (32 - bits);
			v <<= bits;
		}
		a->d[i + limbs] = v;
	}
	for (int i = 0; i < limbs; i++)
		a->d[i] = 0;
	a->n += limbs + 1;
	while (a->n > 0 && a->d[a->n - 1] == 0)
		a->n--;
}

static int bn_cmp(const bn_t *a, const bn_t *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = a->n - 1; i >= 0; i--) {
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- exact compare */

/*
 * The decimal value D * 10^E as D * 5^E' / 5^E'' * 2^E: dig holds D * 5^E
 * when E >= 0, den 5^-E when E < 0 (else 1).
 */
typedef struct exact {
	bn_t dig;
	bn_t den;
	long e2;
	bn_t lhs, rhs;         /* scratch */
} exact_t;

static void exact_init(exact_t *x, const num_t *v)
{
	bn_set(&x->dig, 0);
	for (int i = 0; i < v->nd;) {
		uint32_t chunk = 0, mul = 1;
		for (int k = 0; k < 9 && i < v->nd; k++, i++) {
			chunk = chunk * 10 + (uint32_t)(v->digits[i] - '0');
			mul *= 10;
		}
		if (x->dig.n == 0)
			bn_set(&x->dig, chunk);
		else
			bn_mul_small(&x->dig, mul, chunk);
	}
	bn_set(&x->den, 1);
	if (v->exp >= 0)
		bn_mul_pow5(&x->dig, v->exp);
	else
		bn_mul_pow5(&x->den, -v->exp);
	x->e2 = v->exp;
}

/* Sign of (the exact value) - m * 2^k. */
static int exact_cmp(exact_t *x, ord_t m, long k)
{
	bn_t *r = &x->rhs;
	uint32_t md[4];
	int mn = 0;

	for (; m; m >>= 32)
		md[mn++] = (uint32_t)m;
	x->lhs.n = x->dig.n;
	memcpy(x->lhs.d, x->dig.d, (size_t)x->dig.n * sizeof(x->dig.d[0]));
	bn_mul(r, &x->den, md, mn);
	if (x->e2 > k)
		bn_shl(&x->lhs, x->e2 - k);
	else
		bn_shl(r, k - x->e2);
	return bn_cmp(&x->lhs, r);
}

/* ---------------------------------------------------------------- ordinals */

static ord_t ord_inf(const fp_fmt_t *f)
{
	return (ord_t)f->emax_field << (f->p - 1);
}

/* Ordinal u as m * 2^k. */
static void ord_decode(const fp_fmt_t *f, ord_t u, ord_t *m, long *k)
{
	ord_t field = u >> (f->p - 1);
	ord_t frac = u & (((ord_t)1 << (f->p - 1)) - 1);

	if (field == 0) {
		*m = frac;
		*k = f->emin;
	} else {
		*m = frac | (ord_t)1 << (f->p - 1);
		*k = f->emin + (long)field - 1;
	}
}

/* Sign of (value) - (midpoint of ordinals u and u + 1). */
static int cmp_mid(exact_t *x, const fp_fmt_t *f, ord_t u)
{
	ord_t ma, mb;
	long ka, kb;

	ord_decode(f, u, &ma, &ka);
	ord_decode(f, u + 1, &mb, &kb);
	return exact_cmp(x, ma + (mb << (kb - ka)), ka - 1);
}

/* Move candidate u to the correctly rounded ordinal of the value. */
static ord_t settle(exact_t *x, const fp_fmt_t *f, ord_t u)
{
	ord_t inf = ord_inf(f);

	if (u > inf)
		u = inf;
	for (;;) {
		int c;
		if (u < inf) {
			c = cmp_mid(x, f, u);
			if (c > 0 || (c == 0 && (u & 1))) {
				u++;
				continue;
			}
		}
		if (u > 0) {
			c = cmp_mid(x, f, u - 1);
			if (c < 0 || (c == 0 && (u & 1))) {
				u--;
				continue;
			}
		}
		return u;
	}
}

/*
 * Whether the value (correctly rounded to ordinal u) underflows: tiny
 * after rounding with an unbounded exponent, and inexact.
 */
static bool dec_underflow(exact_t *x, const fp_fmt_t *f, ord_t u)
{
	ord_t min_normal = (ord_t)1 << (f->p - 1);
	ord_t m;
	long k;

	if (u > min_normal)
		return false;
	if (u == min_normal &&
	    exact_cmp(x, ((ord_t)1 << (f->p + 1)) - 1, f->emin - 2) >= 0)
		return false;
	ord_decode(f, u, &m, &k);
	return exact_cmp(x, m, k) != 0;
}

/* ---------------------------------------------------------------- estimates */

/* w * 10^e in extended precision (a few ulps off at most). */
static long double estimate(uint64_t w, long e)
{
	static const long double p10[13] = {
		1e1L, 1e2L, 1e4L, 1e8L, 1e16L, 1e32L, 1e64L, 1e128L, 1e256L,
		1e512L, 1e1024L, 1e2048L, 1e4096L,
	};
	long double r = (long double)w;
	long a = e < 0 ? -e : e;

	for (int i = 12; i >= 0; i--) {
		while (a >= (1L << i)) {
			r = e < 0 ? r / p10[i] : r * p10[i];
			a -= 1L << i;
		}
	}
	return r;
}

/* The first (up to 19) digits as an integer; *used: how many. */
static uint64_t leading_digits(const num_t *v, int *used)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < v->nd && i < 19; i++)
		w = w * 10 + (uint64_t)(v->digits[i] - '0');
	*used = i;
	return w;
}

static ord_t ord_of_double(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b & ~(1ull << 63);
}

static ord_t ord_of_float(float d)
{
	uint32_t b;

	memcpy(&b, &d, sizeof(b));
	return b & ~(1u << 31);
}

static ord_t ord_of_ldouble(long double d)
{
	unsigned char raw[16];
	uint64_t mant;
	uint16_t se;

	memcpy(raw, &d, 10);
	memcpy(&mant, raw, 8);
	memcpy(&se, raw + 8, 2);
	return (ord_t)(se & 0x7fff) << 63 | (mant & ~(1ull << 63));
}

/* The estimate's ordinal in format f. */
static ord_t estimate_ord(const fp_fmt_t *f, long double est)
{
	if (f == &fmt_double)
		return ord_of_double((double)est);
	if (f == &fmt_float)
		return ord_of_float((float)est);
	return ord_of_ldouble(est);
}

/* ---------------------------------------------------------------- rounding */

typedef struct result {
	ord_t ord;             /* magnitude */
	bool range;            /* overflow or underflow: ERANGE */
} result_t;

/* Exact double fast path: D and 10^|E| exact doubles (SSE2 arithmetic). */
static bool dec_fast(const num_t *v, const fp_fmt_t *f, result_t *r)
{
	static const double p10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	int used;

	if (f != &fmt_double || v->nd > 15 || v->exp > 22 || v->exp < -22)
		return false;
	double d = (double)leading_digits(v, &used);
	volatile double res = v->exp < 0 ? d / p10[-v->exp] : d * p10[v->exp];
	r->ord = ord_of_double(res);
	r->range = false;
	return true;
}

/*
 * Accept the estimate when it settles the rounding: its relative error is
 * below 2^-58 (13 roundings of 2^-64 plus the constants', and the digits
 * after the 19th: < 10^-18), i.e. 1/32 of a double or float ulp; when the
 * estimate lies more than 1/16 ulp from a midpoint of the format, and the
 * result is normal and finite, rounding it once is correctly rounding V.
 */
static bool dec_accept(const fp_fmt_t *f, long double est, result_t *r)
{
	int drop = f == &fmt_ldouble ? 1 : 64 - f->p;
	ord_t o = ord_of_ldouble(est);
	long field = (long)(o >> 63) - 16383;
	uint64_t mant = (uint64_t)o;
	uint64_t low = mant & ((1ull << drop) - 1), half = 1ull << (drop - 1);
	uint64_t dist = low > half ? low - half : half - low;

	if (f == &fmt_ldouble || dist <= half >> 3)
		return false;
	if (field <= f->emin + f->p ||
	    field >= f->emin + f->emax_field + f->p - 4)
		return false;
	r->ord = estimate_ord(f, est);
	r->range = false;
	return true;
}

/* The exact path: settle the candidate ordinal in big integers. */
static __attribute__((noinline)) void dec_exact(const num_t *v,
						const fp_fmt_t *f,
						long double est, result_t *r)
{
	exact_t x;

	exact_init(&x, v);
	r->ord = settle(&x, f, estimate_ord(f, est));
	if (r->ord == ord_inf(f))
		r->range = true;
	else
		r->range = dec_underflow(&x, f, r->ord);
}

static void round_dec(const num_t *v, const fp_fmt_t *f, result_t *r)
{
	int used;

	r->range = false;
	if (v->nd - 1 + v->exp > f->dec_max) {
		r->ord = ord_inf(f);
		r->range = true;
		return;
	}
	if (v->nd + v->exp < f->dec_min) {
		r->ord = 0;
		r->range = true;
		return;
	}
	if (dec_fast(v, f, r))
		return;
	uint64_t w = leading_digits(v, &used);
	long double est = estimate(w, v->exp + (v->nd - used));
	if (!dec_accept(f, est, r))
		dec_exact(v, f, est, r);
}

static int bit_length(ord_t m)
{
	uint64_t hi = (uint64_t)(m >> 64);

	if (hi)
		return 128 - __builtin_clzll(hi);
	return m ? 64 - __builtin_clzll((uint64_t)m) : 0;
}

/* Round m * 2^e (+ sticky) to p bits with the exponent floor kfloor. */
static ord_t round_bin(const fp_fmt_t *f, ord_t m, long e, bool sticky,
		       long kfloor, bool *inexact, long *kout)
{
	long k = e + bit_length(m) - f->p;
	ord_t q, rem, half;

	if (k < kfloor)
		k = kfloor;
	long s = k - e;
	if (s <= 0) {
		q = m << -s;
		rem = 0;
		half = 1;
	} else if (s >= 128) {
		q = 0;
		rem = m;
		half = s == 128 ? (ord_t)1 << 127 : 0;
	} else {
		q = m >> s;
		rem = m & (((ord_t)1 << s) - 1);
		half = (ord_t)1 << (s - 1);
	}
	*inexact = rem != 0 || sticky;
	*kout = k;
	if (half == 0)                     /* far below half an ulp */
		return q;
	if (rem > half || (rem == half && (sticky || (q & 1))))
		q++;
	return q;
}

static void round_hex(const num_t *v, const fp_fmt_t *f, result_t *r)
{
	bool inexact;
	long k, ku;

	/* Tininess: the top bit after rounding to p bits, exponent unbounded. */
	ord_t qu = round_bin(f, v->mant, v->exp, v->sticky, -(1L << 40),
			     &inexact, &ku);
	bool tiny = ku + bit_length(qu) - 1 < f->emin + f->p - 1;
	ord_t q = round_bin(f, v->mant, v->exp, v->sticky, f->emin,
			       &inexact, &k);
	ord_t inf = ord_inf(f);

	/* q * 2^k with q < 2^p (or == 2^p after a carry): ordinal by value. */
	if (q >> (f->p - 1) == 0)
		r->ord = q;     /* subnormal (k == emin) or zero */
	else
		r->ord = ((ord_t)(k - f->emin + 1) << (f->p - 1)) +
			(q - ((ord_t)1 << (f->p - 1)));
	if (r->ord >= inf)
		r->ord = inf;
	r->range = r->ord == inf || (tiny && inexact);
}

/* ---------------------------------------------------------------- parsing */

static bool match_word(const char *p, const char *word)
{
	for (; *word; p++, word++) {
		if (tolower((unsigned char)*p) != *word)
			return false;
	}
	return true;
}

static const char *parse_special(const char *p, num_t *v)
{
	if (match_word(p, "infinity")) {
		v->kind = NUM_INF;
		return p + 8;
	}
	if (match_word(p, "inf")) {
		v->kind = NUM_INF;
		return p + 3;
	}
	if (!match_word(p, "nan"))
		return p;
	v->kind = NUM_NAN;
	p += 3;
	if (*p == '(') {
		const char *q = p + 1;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (*q == ')')
			p = q + 1;
	}
	return p;
}

/* An exponent: [+-]digits after the marker; p itself if none. */
static const char *parse_exp(const char *p, long *out)
{
	const char *q = p + 1;
	bool neg = false;
	long e = 0;

	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	if (!isdigit((unsigned char)*q))
		return p;
	while (isdigit((unsigned char)*q)) {
		if (e < EXP_CLAMP)
			e = e * 10 + (*q - '0');
		q++;
	}
	*out = neg ? -e : e;
	return q;
}

static void dec_digit(num_t *v, int c, bool after_point, bool *sticky)
{
	if (v->nd == 0 && c == '0') {
		if (after_point)
			v->exp--;
		return;
	}
	if (v->nd < STRTOD_DIGITS) {
		v->digits[v->nd++] = (char)c;
		if (after_point)
			v->exp--;
	} else {
		*sticky |= c != '0';
		if (!after_point)
			v->exp++;
	}
}

static const char *parse_dec(const char *p, num_t *v)
{
	bool point = false, sticky = false, any = false;
	long e = 0;

	v->nd = 0;
	v->exp = 0;
	for (;; p++) {
		if (isdigit((unsigned char)*p)) {
			dec_digit(v, *p, point, &sticky);
			any = true;
		} else if (*p == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (!any)
		return NULL;
	if (*p == 'e' || *p == 'E')
		p = parse_exp(p, &e);
	if (sticky) {
		v->digits[v->nd++] = '1';
		v->exp--;
	}
	while (v->nd > 0 && v->digits[v->nd - 1] == '0') {
		v->nd--;
		v->exp++;
	}
	v->exp += e;
	v->kind = v->nd ? NUM_DEC : NUM_ZERO;
	return p;
}

static int hex_value(int c)
{
	if (isdigit(c))
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void hex_digit(num_t *v, int d, bool after_point)
{
	if (v->mant >> 120) {
		v->sticky |= d != 0;
		if (!after_point)
			v->exp += 4;
		return;
	}
	v->mant = v->mant << 4 | (unsigned)d;
	if (after_point)
		v->exp -= 4;
}

/* After "0x": NULL when no hex digit follows (then "0" is the number). */
static const char *parse_hex(const char *p, num_t *v)
{
	bool point = false, any = false;
	long e = 0;
	int d;

	v->mant = 0;
	v->exp = 0;
	v->sticky = false;
	for (;; p++) {
		if ((d = hex_value((unsigned char)*p)) >= 0) {
			hex_digit(v, d, point);
			any = true;
		} else if (*p == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (!any)
		return NULL;
	if (*p == 'p' || *p == 'P')
		p = parse_exp(p, &e);
	v->exp += e;
	v->kind = v->mant ? NUM_HEX : NUM_ZERO;
	return p;
}

/* Parse s into v; returns the end (s when nothing was converted). */
static const char *parse(const char *s, num_t *v)
{
	const char *p = s, *q;

	v->kind = NUM_NONE;
	v->neg = false;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		v->neg = *p++ == '-';
	q = parse_special(p, v);
	if (v->kind != NUM_NONE)
		return q;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		q = parse_hex(p + 2, v);
		if (q)
			return q;
		v->kind = NUM_ZERO;
		return p + 1;
	}
	q = parse_dec(p, v);
	if (q)
		return q;
	v->neg = false;
	return s;
}

/* ---------------------------------------------------------------- entry points */

/* Parse and round s to format f; the magnitude's ordinal, sign and kind. */
static int convert(const char *s, char **end, const fp_fmt_t *f,
		   ord_t *ord, bool *neg)
{
	num_t v;
	result_t r = { 0, false };
	const char *e = parse(s, &v);

	if (end)
		*end = (char *)e;
	*neg = v.neg;
	if (v.kind == NUM_DEC)
		round_dec(&v, f, &r);
	else if (v.kind == NUM_HEX)
		round_hex(&v, f, &r);
	else if (v.kind == NUM_INF)
		r.ord = ord_inf(f);
	if (r.range)
		errno = ERANGE;
	*ord = r.ord;
	return v.kind;
}

/*
 * The double s starts with (after white space): decimal or hex (C99 "0x"
 * with a "p" binary exponent), inf/infinity, nan/nan(chars); correctly
 * rounded. *end past it (s if none: result 0). ERANGE: see the top.
 */
double strtod(const char *s, char **end)
{
	ord_t ord;
	bool neg;
	double d;

	if (convert(s, end, &fmt_double, &ord, &neg) == NUM_NAN)
		return neg ? -NAN : NAN;
	uint64_t b = (uint64_t)ord | (uint64_t)neg << 63;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/* strtod for float (rounded once, directly to float). */
float strtof(const char *s, char **end)
{
	ord_t ord;
	bool neg;
	float d;

	if (convert(s, end, &fmt_float, &ord, &neg) == NUM_NAN)
		return neg ? -NAN : NAN;
	uint32_t b = (uint32_t)ord | (uint32_t)neg << 31;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/*
 * strtod for x87 extended precision (64-bit significand); correctly
 * rounded for inputs of up to 800 significant digits.
 */
long double strtold(const char *s, char **end)
{
	ord_t ord;
	bool neg;
	long double d = 0;
	unsigned char raw[16] = { 0 };

	if (convert(s, end, &fmt_ldouble, &ord, &neg) == NUM_NAN)
		return neg ? -(long double)NAN : (long double)NAN;
	uint16_t field = (uint16_t)(ord >> 63);
	uint64_t mant = (uint64_t)ord & ~(1ull << 63);
	if (field)
		mant |= 1ull << 63;
	field |= (uint16_t)((unsigned)neg << 15);
	memcpy(raw, &mant, 8);
	memcpy(raw + 8, &field, 2);
	memcpy(&d, raw, 10);
	return d;
}

/* strtod(s, NULL). */
double atof(const char *s)
{
	return strtod(s, NULL);
}
