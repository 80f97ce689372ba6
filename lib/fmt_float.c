/*
 * fmt_float: the floating-point conversions of lib/fmt, exact and
 * identical to glibc's output (round to nearest, ties to even).
 *
 * Every finite double is m * 2^e with integers m < 2^53 and -1074 <= e <=
 * 971, so its decimal expansion is finite: m * 2^e for e >= 0, and
 * m * 5^-e / 10^-e for e < 0. Both integers are computed exactly in base
 * 10^9 (at most 767 digits), giving every decimal digit of the value;
 * rounding to the requested number of digits is then a decision on the
 * digit string (the dropped part is above, at or below one half), with no
 * floating-point arithmetic at all. %a/%A work on the binary fraction.
 *
 * User space and host only: the kernel links kernel/fmt_nofloat.c.
 */
#include <lib/fmt.h>
#include <lib/string.h>

#include <stdbool.h>
#include <stdint.h>

#define LIMB_BASE 1000000000u
#define LIMB_DIGITS 9
/* 2^53 * 5^1074 < 10^767: 86 limbs. */
#define MAX_LIMBS 90
#define MAX_DIGITS (MAX_LIMBS * LIMB_DIGITS)
#define POW5_13 1220703125u
#define FLOAT_INT_MAX __INT_MAX__

/* ---------------------------------------------------------------- output */

typedef struct fout {
	fmt_sink_t sink;
	void *ctx;
	size_t count;
} fout_t;

static void put(fout_t *o, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (o->sink)
		o->sink(o->ctx, s, n);
	o->count += n;
}

static void put_rep(fout_t *o, char c, size_t n)
{
	char chunk[32];

	memset(chunk, c, sizeof(chunk));
	while (n > 0) {
		size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
		put(o, chunk, k);
		n -= k;
	}
}

/* ---------------------------------------------------------------- bignum */

/* A non-negative integer in base 10^9, least significant limb first. */
typedef struct big {
	uint32_t limb[MAX_LIMBS];
	size_t n;
} big_t;

static void big_set(big_t *b, uint64_t v)
{
	b->n = 0;
	do {
		b->limb[b->n++] = (uint32_t)(v % LIMB_BASE);
		v /= LIMB_BASE;
	} while (v != 0);
}

/* b *= f, f <= 5^13 (so limb * f + carry fits in 64 bits). */
static void big_mul(big_t *b, uint32_t f)
{
	uint64_t carry = 0;

	for (size_t i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->limb[i] * f + carry;
		b->limb[i] = (uint32_t)(t % LIMB_BASE);
		carry = t / LIMB_BASE;
	}
	while (carry != 0) {
		b->limb[b->n++] = (uint32_t)(carry % LIMB_BASE);
		carry /= LIMB_BASE;
	}
}

static void big_mul_pow2(big_t *b, int k)
{
	for (; k >= 29; k -= 29)
		big_mul(b, 1u << 29);
	big_mul(b, 1u << k);
}

static void big_mul_pow5(big_t *b, int k)
{
	uint32_t f = 1;

	for (; k >= 13; k -= 13)
		big_mul(b, POW5_13);
	while (k-- > 0)
		f *= 5;
	big_mul(b, f);
}

/* ---------------------------------------------------------------- decimal */

/*
 * A decimal value 0.d[0]d[1]...d[n-1] * 10^exp, digits as characters,
 * without trailing zeros; n == 0 is zero.
 */
typedef struct decimal {
	char d[MAX_DIGITS];
	int n;
	int exp;
} decimal_t;

static void dec_strip(decimal_t *x)
{
	while (x->n > 0 && x->d[x->n - 1] == '0')
		x->n--;
	if (x->n == 0)
		x->exp = 1;
}

/* Write the digits of b into x (most significant first). */
static void dec_from_big(decimal_t *x, const big_t *b)
{
	char tmp[LIMB_DIGITS];
	size_t top = b->n - 1;
	uint32_t v = b->limb[top];
	int k = 0;

	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	x->n = 0;
	while (k > 0)
		x->d[x->n++] = tmp[--k];
	for (size_t i = top; i-- > 0;) {
		v = b->limb[i];
		for (int j = LIMB_DIGITS - 1; j >= 0; j--) {
			x->d[x->n + j] = (char)('0' + v % 10);
			v /= 10;
		}
		x->n += LIMB_DIGITS;
	}
}

/* The exact decimal expansion of the finite, non-negative v. */
static void dec_from_double(decimal_t *x, double v)
{
	uint64_t bits;
	big_t b;

	memcpy(&bits, &v, sizeof(bits));
	int be = (int)((bits >> 52) & 0x7ff);
	uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
	int e = be == 0 ? -1074 : be - 1075;
	if (be != 0)
		m |= UINT64_C(1) << 52;
	if (m == 0) {
		x->n = 0;
		x->exp = 1;
		return;
	}
	while (e < 0 && (m & 1) == 0) {
		m >>= 1;
		e++;
	}
	big_set(&b, m);
	if (e > 0)
		big_mul_pow2(&b, e);
	else if (e < 0)
		big_mul_pow5(&b, -e);
	dec_from_big(x, &b);
	x->exp = x->n + (e < 0 ? e : 0);
	dec_strip(x);
}

/* Whether the digits dropped when keeping keep of them round up. */
static bool dec_round_up(const decimal_t *x, int keep)
{
	char first = x->d[keep];

	if (first != '5')
		return first > '5';
	if (keep + 1 < x->n)
		return true;    /* more nonzero digits follow: above half */
	/* Exactly half: to even. */
	return keep > 0 && ((x->d[keep - 1] - '0') & 1) != 0;
}

/* Round x to its first keep digits (keep may be <= 0). */
static void dec_round(decimal_t *x, int keep)
{
	if (keep >= x->n)
		return;
	if (keep < 0) {
		x->n = 0;
		dec_strip(x);
		return;
	}
	bool up = dec_round_up(x, keep);
	x->n = keep;
	if (up) {
		int i = keep - 1;
		while (i >= 0 && x->d[i] == '9')
			i--;
		if (i < 0) {
			x->d[0] = '1';
			x->n = 1;
			x->exp++;
		} else {
			x->d[i]++;
			x->n = i + 1;
		}
	}
	dec_strip(x);
}

/* Emit the digits at positions [from, from + count) (zeros outside). */
static void put_digits(fout_t *o, const decimal_t *x, int from, int count)
{
	int end = from + count;

	if (from < 0) {
		int z = end < 0 ? count : -from;
		put_rep(o, '0', (size_t)z);
		from += z;
	}
	if (from < end && from < x->n) {
		int k = (end < x->n ? end : x->n) - from;
		put(o, x->d + from, (size_t)k);
		from += k;
	}
	if (from < end)
		put_rep(o, '0', (size_t)(end - from));
}

/* ---------------------------------------------------------------- layout */

/* A conversion's sign character (0 for none). */
static char sign_char(const fmt_spec_t *s, bool neg)
{
	if (neg)
		return '-';
	if (s->flags & FMT_PLUS)
		return '+';
	if (s->flags & FMT_SPACE)
		return ' ';
	return 0;
}

/*
 * Emit what precedes a body of body_len characters: spaces (right
 * alignment), the sign, the prefix ("0x") and zeros ('0' flag, only when
 * zeros is allowed). Returns the number of spaces owed after the body.
 */
static size_t put_head(fout_t *o, const fmt_spec_t *s, char sign,
		       const char *prefix, size_t body_len, bool zeros)
{
	size_t plen = strlen(prefix);
	size_t len = (sign ? 1 : 0) + plen + body_len;
	size_t fill = (size_t)s->width > len ? (size_t)s->width - len : 0;
	bool zero_fill = zeros && (s->flags & FMT_ZERO) && !(s->flags & FMT_LEFT);

	if (!(s->flags & FMT_LEFT) && !zero_fill)
		put_rep(o, ' ', fill);
	if (sign)
		put(o, &sign, 1);
	put(o, prefix, plen);
	if (zero_fill)
		put_rep(o, '0', fill);
	return (s->flags & FMT_LEFT) ? fill : 0;
}

static bool is_upper(char conv)
{
	return conv >= 'A' && conv <= 'Z';
}

static void put_special(fout_t *o, const fmt_spec_t *s, bool neg, bool nan)
{
	const char *text = nan ? (is_upper(s->conv) ? "NAN" : "nan") :
		(is_upper(s->conv) ? "INF" : "inf");
	size_t tail = put_head(o, s, sign_char(s, neg), "", 3, false);

	put(o, text, 3);
	put_rep(o, ' ', tail);
}

/* ---------------------------------------------------------------- %f %e */

/* The exponent's digits (at least two) into buf; their count. */
static size_t exp_digits(char *buf, int e)
{
	char tmp[8];
	size_t n = 0, k = 0;
	unsigned v = (unsigned)(e < 0 ? -e : e);

	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (k < 2)
		tmp[k++] = '0';
	while (k > 0)
		buf[n++] = tmp[--k];
	return n;
}

/* Fixed notation of the rounded x with prec fraction digits. */
static void put_fixed(fout_t *o, const fmt_spec_t *s, char sign,
		      const decimal_t *x, int prec)
{
	bool point = prec > 0 || (s->flags & FMT_ALT);
	int int_len = x->n == 0 || x->exp <= 0 ? 1 : x->exp;
	size_t body = (size_t)int_len + (point ? 1 + (size_t)prec : 0);
	size_t tail = put_head(o, s, sign, "", body, true);

	if (x->n == 0 || x->exp <= 0)
		put(o, "0", 1);
	else
		put_digits(o, x, 0, x->exp);
	if (point)
		put(o, ".", 1);
	put_digits(o, x, x->n == 0 ? 1 : x->exp, prec);
	put_rep(o, ' ', tail);
}

/* Exponent notation of the rounded x with prec fraction digits. */
static void put_exp(fout_t *o, const fmt_spec_t *s, char sign,
		    const decimal_t *x, int prec)
{
	bool point = prec > 0 || (s->flags & FMT_ALT);
	int e = x->n == 0 ? 0 : x->exp - 1;
	char ebuf[8] = { is_upper(s->conv) ? 'E' : 'e', e < 0 ? '-' : '+' };
	size_t elen = 2 + exp_digits(ebuf + 2, e);
	size_t body = 1 + (point ? 1 + (size_t)prec : 0) + elen;
	size_t tail = put_head(o, s, sign, "", body, true);

	put_digits(o, x, 0, 1);
	if (point)
		put(o, ".", 1);
	put_digits(o, x, 1, prec);
	put(o, ebuf, elen);
	put_rep(o, ' ', tail);
}

static void conv_f(fout_t *o, const fmt_spec_t *s, char sign, decimal_t *x,
		   int prec)
{
	dec_round(x, x->exp + prec > MAX_DIGITS ? MAX_DIGITS : x->exp + prec);
	put_fixed(o, s, sign, x, prec);
}

static void conv_e(fout_t *o, const fmt_spec_t *s, char sign, decimal_t *x,
		   int prec)
{
	dec_round(x, prec >= MAX_DIGITS ? MAX_DIGITS : prec + 1);
	put_exp(o, s, sign, x, prec);
}

/*
 * %g: P significant digits (6 if unspecified, 1 if 0); exponent notation
 * when the exponent X is < -4 or >= P, else fixed with P-1-X decimals.
 * Trailing zeros (and a bare point) go unless '#'.
 *
 * glibc quirk, reproduced: when rounding carries the exponent from P-1 to
 * P (999999.5 with %#g), glibc prints no fraction digits ("1.e+06", not
 * "1.00000e+06"). Without '#' both spellings are "1e+06".
 */
static void conv_g(fout_t *o, const fmt_spec_t *s, char sign, decimal_t *x,
		   int prec)
{
	int p = prec == 0 ? 1 : prec;
	int e_before = x->n == 0 ? 0 : x->exp - 1;

	dec_round(x, p > MAX_DIGITS ? MAX_DIGITS : p);
	int e = x->n == 0 ? 0 : x->exp - 1;
	bool alt = (s->flags & FMT_ALT) != 0;
	if (e < -4 || e >= p) {
		int digits = alt ? p - 1 : (x->n > 1 ? x->n - 1 : 0);
		if (e == p && e_before == p - 1)
			digits = 0;
		put_exp(o, s, sign, x, digits < p - 1 ? digits : p - 1);
		return;
	}
	int fixed = p - 1 - e;
	int used = x->n - x->exp > 0 ? x->n - x->exp : 0;
	put_fixed(o, s, sign, x, alt || used > fixed ? fixed : used);
}

/* ---------------------------------------------------------------- %a */

/* Binary layout of |v|: lead digit (0 or 1), 52-bit fraction, exponent. */
typedef struct hexfloat {
	unsigned lead;
	uint64_t frac;
	int exp;
} hexfloat_t;

static hexfloat_t hex_split(double v)
{
	uint64_t bits;
	hexfloat_t h;

	memcpy(&bits, &v, sizeof(bits));
	int be = (int)((bits >> 52) & 0x7ff);
	h.frac = bits & ((UINT64_C(1) << 52) - 1);
	h.lead = be != 0;
	h.exp = be == 0 ? (h.frac == 0 ? 0 : -1022) : be - 1023;
	return h;
}

/* Round the 13 fraction nibbles of h to prec of them, ties to even. */
static void hex_round(hexfloat_t *h, int prec)
{
	if (prec >= 13)
		return;
	int drop = 4 * (13 - prec);
	uint64_t rest = h->frac & ((UINT64_C(1) << drop) - 1);
	uint64_t half = UINT64_C(1) << (drop - 1);
	uint64_t kept = h->frac >> drop;
	uint64_t last = prec > 0 ? kept : h->lead;

	if (rest > half || (rest == half && (last & 1)))
		kept++;
	if (prec > 0 && kept >> (4 * prec)) {
		kept &= (UINT64_C(1) << (4 * prec)) - 1;
		h->lead++;
	} else if (prec == 0 && kept) {
		h->lead++;
		kept = 0;
	}
	h->frac = kept << drop;
}

static void conv_a(fout_t *o, const fmt_spec_t *s, char sign, double v)
{
	const char *set = is_upper(s->conv) ? "0123456789ABCDEF" :
		"0123456789abcdef";
	hexfloat_t h = hex_split(v);
	char digits[16], ebuf[12];
	int prec = s->prec;

	if (prec < 0) {
		prec = 13;
		while (prec > 0 && ((h.frac >> (4 * (13 - prec))) & 0xf) == 0)
			prec--;
	}
	hex_round(&h, prec);
	for (int i = 0; i < 13; i++)
		digits[i] = set[(h.frac >> (48 - 4 * i)) & 0xf];
	char lead = set[h.lead];
	bool point = prec > 0 || (s->flags & FMT_ALT);
	size_t elen = (size_t)fmt_snprintf(ebuf, sizeof(ebuf), "%c%+d",
					   is_upper(s->conv) ? 'P' : 'p', h.exp);
	size_t body = 1 + (point ? 1 + (size_t)prec : 0) + elen;
	size_t tail = put_head(o, s, sign, is_upper(s->conv) ? "0X" : "0x",
			       body, true);
	put(o, &lead, 1);
	if (point)
		put(o, ".", 1);
	put(o, digits, (size_t)(prec < 13 ? prec : 13));
	if (prec > 13)
		put_rep(o, '0', (size_t)(prec - 13));
	put(o, ebuf, elen);
	put_rep(o, ' ', tail);
}

/* ---------------------------------------------------------------- entry */

static double take_arg(const fmt_spec_t *s, va_list *ap)
{
	if (s->len == FMT_LEN_BIG_L)
		return (double)va_arg(*ap, long double);
	return va_arg(*ap, double);
}

static void convert(fout_t *o, const fmt_spec_t *s, double v)
{
	uint64_t bits;
	decimal_t x;

	memcpy(&bits, &v, sizeof(bits));
	bool neg = (bits >> 63) != 0;
	bool special = ((bits >> 52) & 0x7ff) == 0x7ff;
	if (special) {
		put_special(o, s, neg, (bits & ((UINT64_C(1) << 52) - 1)) != 0);
		return;
	}
	char sign = sign_char(s, neg);
	double mag = neg ? -v : v;
	if (s->conv == 'a' || s->conv == 'A') {
		conv_a(o, s, sign, mag);
		return;
	}
	dec_from_double(&x, mag);
	int prec = s->prec < 0 ? 6 : s->prec;
	if (s->conv == 'f' || s->conv == 'F')
		conv_f(o, s, sign, &x, prec);
	else if (s->conv == 'e' || s->conv == 'E')
		conv_e(o, s, sign, &x, prec);
	else
		conv_g(o, s, sign, &x, prec);
}

int fmt_float(fmt_sink_t sink, void *ctx, const fmt_spec_t *spec,
	      va_list *ap)
{
	fout_t o = { .sink = sink, .ctx = ctx, .count = 0 };

	convert(&o, spec, take_arg(spec, ap));
	return o.count > FLOAT_INT_MAX ? FLOAT_INT_MAX : (int)o.count;
}
