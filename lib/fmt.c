/*
 * printf-style formatting. The core is a small state machine: literal text
 * is copied until a '%', then a conversion specification is parsed phase by
 * phase (flags, width, precision, length, conversion) into an fmt_spec and
 * handed to one emitter per conversion class. Output goes to a sink; the
 * character count is kept in a size_t and clamped to INT_MAX on return.
 * Floating-point conversions go to fmt_float, which this file never
 * implements: the kernel (no FPU use allowed) links kernel/fmt_nofloat.c,
 * user space and the host lib/fmt_float.c.
 */
#include <lib/fmt.h>
#include <lib/string.h>

#include <stdbool.h>
#include <stdint.h>

/*
 * <limits.h> is unusable under -nostdinc (GCC's copy include_next's the C
 * library's), so take INT_MAX from the compiler's predefined macro.
 */
#define FMT_INT_MAX __INT_MAX__

typedef struct fmt_state {
	fmt_sink_t sink;
	void *ctx;
	size_t count;
} fmt_state_t;

/* Largest width or precision honoured; bigger requests are clamped. */
#define FMT_MAX_FIELD (FMT_INT_MAX / 2)

static void fmt_emit(fmt_state_t *o, const char *s, size_t len)
{
	if (len == 0)
		return;
	if (o->sink)
		o->sink(o->ctx, s, len);
	o->count += len;
}

static void fmt_pad(fmt_state_t *o, char c, size_t n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const char *src = c == '0' ? zeros : spaces;
	size_t chunk = sizeof(spaces) - 1;

	while (n > 0) {
		size_t k = n < chunk ? n : chunk;
		fmt_emit(o, src, k);
		n -= k;
	}
}

/* ---------------------------------------------------------------- parsing */

static unsigned fmt_flag_bit(char c)
{
	switch (c) {
	case '-': return FMT_LEFT;
	case '+': return FMT_PLUS;
	case ' ': return FMT_SPACE;
	case '#': return FMT_ALT;
	case '0': return FMT_ZERO;
	default: return 0;
	}
}

static int fmt_parse_number(const char **p)
{
	int v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < FMT_MAX_FIELD)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v < FMT_MAX_FIELD ? v : FMT_MAX_FIELD;
}

static void fmt_parse_width(const char **p, fmt_spec_t *s, va_list *ap)
{
	if (**p != '*') {
		s->width = fmt_parse_number(p);
		return;
	}
	(*p)++;
	int w = va_arg(*ap, int);
	if (w < 0) {
		s->flags |= FMT_LEFT;
		w = w < -FMT_MAX_FIELD ? FMT_MAX_FIELD : -w;
	}
	s->width = w < FMT_MAX_FIELD ? w : FMT_MAX_FIELD;
}

static void fmt_parse_prec(const char **p, fmt_spec_t *s, va_list *ap)
{
	s->prec = -1;
	if (**p != '.')
		return;
	(*p)++;
	if (**p != '*') {
		s->prec = fmt_parse_number(p);
		return;
	}
	(*p)++;
	int v = va_arg(*ap, int);
	s->prec = v < 0 ? -1 : (v < FMT_MAX_FIELD ? v : FMT_MAX_FIELD);
}

static fmt_len_t fmt_parse_len(const char **p)
{
	char c = **p;
	fmt_len_t len = FMT_LEN_NONE;

	switch (c) {
	case 'h': len = FMT_LEN_H; break;
	case 'l': len = FMT_LEN_L; break;
	case 'z': len = FMT_LEN_Z; break;
	case 't': len = FMT_LEN_T; break;
	case 'j': len = FMT_LEN_J; break;
	case 'L': len = FMT_LEN_BIG_L; break;
	default: return FMT_LEN_NONE;
	}
	(*p)++;
	if ((c == 'h' || c == 'l') && **p == c) {
		(*p)++;
		len = c == 'h' ? FMT_LEN_HH : FMT_LEN_LL;
	}
	return len;
}

/*
 * Parse the specification after a '%' at *p, consuming '*' arguments.
 * Leaves *p past the conversion character (or at the NUL if missing).
 */
static void fmt_parse_spec(const char **p, fmt_spec_t *s, va_list *ap)
{
	unsigned bit;

	s->flags = 0;
	while ((bit = fmt_flag_bit(**p)) != 0) {
		s->flags |= bit;
		(*p)++;
	}
	fmt_parse_width(p, s, ap);
	fmt_parse_prec(p, s, ap);
	s->len = fmt_parse_len(p);
	s->conv = **p;
	if (s->conv != '\0')
		(*p)++;
}

/* ---------------------------------------------------------------- arguments */

static intmax_t fmt_arg_signed(const fmt_spec_t *s, va_list *ap)
{
	switch (s->len) {
	case FMT_LEN_HH: return (signed char)va_arg(*ap, int);
	case FMT_LEN_H: return (short)va_arg(*ap, int);
	case FMT_LEN_L: return va_arg(*ap, long);
	case FMT_LEN_LL:
	case FMT_LEN_BIG_L: return va_arg(*ap, long long);
	case FMT_LEN_Z: return va_arg(*ap, ptrdiff_t);
	case FMT_LEN_T: return va_arg(*ap, ptrdiff_t);
	case FMT_LEN_J: return va_arg(*ap, intmax_t);
	default: return va_arg(*ap, int);
	}
}

static uintmax_t fmt_arg_unsigned(const fmt_spec_t *s, va_list *ap)
{
	switch (s->len) {
	case FMT_LEN_HH: return (unsigned char)va_arg(*ap, unsigned);
	case FMT_LEN_H: return (unsigned short)va_arg(*ap, unsigned);
	case FMT_LEN_L: return va_arg(*ap, unsigned long);
	case FMT_LEN_LL:
	case FMT_LEN_BIG_L: return va_arg(*ap, unsigned long long);
	case FMT_LEN_Z: return va_arg(*ap, size_t);
	case FMT_LEN_T: return va_arg(*ap, size_t);
	case FMT_LEN_J: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, unsigned);
	}
}

/* ---------------------------------------------------------------- integers */

/* A laid-out integer: prefix (sign, 0x), precision zeros, digits. */
typedef struct fmt_int {
	char prefix[3];
	size_t prefix_len;
	size_t zeros;
	char digits[24];   /* 22 octal digits suffice for 64 bits */
	const char *digit_start;
	size_t ndigits;
} fmt_int_t;

/* Write v in base (8, 10 or 16) at the end of n->digits. */
static void fmt_int_digits(fmt_int_t *n, uintmax_t v, unsigned base,
			   bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *end = n->digits + sizeof(n->digits);
	char *q = end;

	do {
		*--q = set[v % base];
		v /= base;
	} while (v != 0);
	n->digit_start = q;
	n->ndigits = (size_t)(end - q);
}

static void fmt_int_prefix(fmt_int_t *n, const fmt_spec_t *s, bool neg,
			   bool is_zero)
{
	bool is_signed = s->conv == 'd' || s->conv == 'i' || s->conv == 'p';

	n->prefix_len = 0;
	if (neg)
		n->prefix[n->prefix_len++] = '-';
	else if (is_signed && (s->flags & FMT_PLUS))
		n->prefix[n->prefix_len++] = '+';
	else if (is_signed && (s->flags & FMT_SPACE))
		n->prefix[n->prefix_len++] = ' ';
	if ((s->flags & FMT_ALT) && !is_zero &&
	    (s->conv == 'x' || s->conv == 'X' || s->conv == 'p')) {
		n->prefix[n->prefix_len++] = '0';
		n->prefix[n->prefix_len++] = s->conv == 'X' ? 'X' : 'x';
	}
}

static void fmt_int_layout(fmt_int_t *n, const fmt_spec_t *s, uintmax_t mag,
			   bool neg)
{
	unsigned base = 10;

	if (s->conv == 'o')
		base = 8;
	else if (s->conv == 'x' || s->conv == 'X' || s->conv == 'p')
		base = 16;
	fmt_int_digits(n, mag, base, s->conv == 'X');
	if (s->prec == 0 && mag == 0)
		n->ndigits = 0;
	n->zeros = s->prec > 0 && (size_t)s->prec > n->ndigits ?
		(size_t)s->prec - n->ndigits : 0;
	/* '#' with 'o': force a leading zero digit. */
	if (base == 8 && (s->flags & FMT_ALT) && n->zeros == 0 &&
	    (n->ndigits == 0 || n->digit_start[0] != '0'))
		n->zeros = 1;
	fmt_int_prefix(n, s, neg, mag == 0);
}

static void fmt_emit_int(fmt_state_t *o, const fmt_spec_t *s, uintmax_t mag,
			 bool neg)
{
	fmt_int_t n;

	fmt_int_layout(&n, s, mag, neg);
	size_t body = n.prefix_len + n.zeros + n.ndigits;
	size_t fill = (size_t)s->width > body ? (size_t)s->width - body : 0;
	bool zero_fill = (s->flags & FMT_ZERO) && !(s->flags & FMT_LEFT) &&
		s->prec < 0;

	if (!(s->flags & FMT_LEFT) && !zero_fill)
		fmt_pad(o, ' ', fill);
	fmt_emit(o, n.prefix, n.prefix_len);
	fmt_pad(o, '0', n.zeros + (zero_fill ? fill : 0));
	fmt_emit(o, n.digit_start, n.ndigits);
	if (s->flags & FMT_LEFT)
		fmt_pad(o, ' ', fill);
}

static void fmt_conv_signed(fmt_state_t *o, const fmt_spec_t *s, va_list *ap)
{
	intmax_t v = fmt_arg_signed(s, ap);
	/* Negate in unsigned arithmetic so INTMAX_MIN is well defined. */
	uintmax_t mag = v < 0 ? 0 - (uintmax_t)v : (uintmax_t)v;

	fmt_emit_int(o, s, mag, v < 0);
}

static void fmt_conv_unsigned(fmt_state_t *o, const fmt_spec_t *s, va_list *ap)
{
	fmt_emit_int(o, s, fmt_arg_unsigned(s, ap), false);
}

/* ---------------------------------------------------------------- text */

/* Emit len bytes of s padded with spaces to the field width. */
static void fmt_emit_field(fmt_state_t *o, const fmt_spec_t *s, const char *str,
			   size_t len)
{
	size_t fill = (size_t)s->width > len ? (size_t)s->width - len : 0;

	if (!(s->flags & FMT_LEFT))
		fmt_pad(o, ' ', fill);
	fmt_emit(o, str, len);
	if (s->flags & FMT_LEFT)
		fmt_pad(o, ' ', fill);
}

static void fmt_conv_string(fmt_state_t *o, const fmt_spec_t *s, va_list *ap)
{
	const char *str = va_arg(*ap, const char *);
	size_t max = s->prec < 0 ? SIZE_MAX : (size_t)s->prec;

	if (!str) {
		/* Like glibc: "(null)", or nothing if it would be cut. */
		str = "(null)";
		if (max < 6)
			max = 0;
	}
	fmt_emit_field(o, s, str, strnlen(str, max));
}

static void fmt_conv_char(fmt_state_t *o, const fmt_spec_t *s, va_list *ap)
{
	char c = (char)va_arg(*ap, int);

	fmt_emit_field(o, s, &c, 1);
}

static void fmt_conv_pointer(fmt_state_t *o, const fmt_spec_t *s, va_list *ap)
{
	const void *ptr = va_arg(*ap, const void *);
	fmt_spec_t ps = *s;

	if (!ptr) {
		fmt_emit_field(o, s, "(nil)", 5);
		return;
	}
	ps.flags |= FMT_ALT;
	fmt_emit_int(o, &ps, (uintptr_t)ptr, false);
}

/* ---------------------------------------------------------------- driver */

/* Dispatch one parsed specification; start points at its '%'. */
static void fmt_convert(fmt_state_t *o, const fmt_spec_t *s, va_list *ap,
			const char *start, const char *end)
{
	switch (s->conv) {
	case 'd':
	case 'i': fmt_conv_signed(o, s, ap); break;
	case 'u':
	case 'x':
	case 'X':
	case 'o': fmt_conv_unsigned(o, s, ap); break;
	case 's': fmt_conv_string(o, s, ap); break;
	case 'c': fmt_conv_char(o, s, ap); break;
	case 'p': fmt_conv_pointer(o, s, ap); break;
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
	case 'a':
	case 'A': o->count += (size_t)fmt_float(o->sink, o->ctx, s, ap); break;
	case '%': fmt_emit(o, "%", 1); break;
	default:
		/* Unknown or missing conversion: copy the text as is. */
		fmt_emit(o, start, (size_t)(end - start));
		break;
	}
}

int fmt_vformat(fmt_sink_t sink, void *ctx, const char *fmt, va_list ap)
{
	fmt_state_t o = { .sink = sink, .ctx = ctx, .count = 0 };
	const char *p = fmt;
	va_list args;

	va_copy(args, ap);
	while (*p != '\0') {
		const char *lit = p;
		while (*p != '\0' && *p != '%')
			p++;
		fmt_emit(&o, lit, (size_t)(p - lit));
		if (*p == '\0')
			break;

		const char *start = p++;
		fmt_spec_t spec;
		fmt_parse_spec(&p, &spec, &args);
		fmt_convert(&o, &spec, &args, start, p);
	}
	va_end(args);
	return o.count > FMT_INT_MAX ? FMT_INT_MAX : (int)o.count;
}

int fmt_format(fmt_sink_t sink, void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vformat(sink, ctx, fmt, ap);
	va_end(ap);
	return n;
}

int fmt_outf(const fmt_out_t *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vformat(o->put, o->ctx, fmt, ap);
	va_end(ap);
	return n;
}

/* ---------------------------------------------------------------- snprintf */

typedef struct fmt_buf {
	char *buf;
	size_t size;   /* capacity including the NUL */
	size_t pos;
} fmt_buf_t;

static void fmt_buf_sink(void *ctx, const char *s, size_t len)
{
	fmt_buf_t *b = ctx;

	if (b->size == 0 || b->pos >= b->size - 1)
		return;
	size_t room = b->size - 1 - b->pos;
	size_t k = len < room ? len : room;
	memcpy(b->buf + b->pos, s, k);
	b->pos += k;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	fmt_buf_t b = { .buf = buf, .size = size, .pos = 0 };
	int n = fmt_vformat(fmt_buf_sink, &b, fmt, ap);

	if (size > 0)
		buf[b.pos] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
