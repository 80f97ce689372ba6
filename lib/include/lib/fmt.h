/*
 * Freestanding printf-style formatting, shared by the kernel, user space
 * and host tools.
 */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Receives formatted output, len bytes at a time (not NUL-terminated). */
typedef void (*fmt_sink_t)(void *ctx, const char *s, size_t len);

/* Flags of a conversion specification. */
enum {
	FMT_LEFT = 1 << 0,  /* '-' */
	FMT_PLUS = 1 << 1,  /* '+' */
	FMT_SPACE = 1 << 2, /* ' ' */
	FMT_ALT = 1 << 3,   /* '#' */
	FMT_ZERO = 1 << 4,  /* '0' */
};

/* Length modifiers. */
typedef enum {
	FMT_LEN_NONE,
	FMT_LEN_HH,
	FMT_LEN_H,
	FMT_LEN_L,
	FMT_LEN_LL,
	FMT_LEN_Z,
	FMT_LEN_T,
	FMT_LEN_J,
	FMT_LEN_BIG_L,      /* 'L': long double; like ll for integers (glibc) */
} fmt_len_t;

/* A parsed conversion specification ('*' arguments already consumed). */
typedef struct fmt_spec {
	unsigned flags;     /* FMT_* bits */
	int width;          /* >= 0 */
	int prec;           /* < 0: none given */
	fmt_len_t len;
	char conv;          /* the conversion character */
} fmt_spec_t;

/*
 * Format fmt with ap into sink. Conversions: %d %i %u %x %X %o %p %s %c %%,
 * and %f %F %e %E %g %G %a %A through fmt_float; flags - + space # 0;
 * width and precision (also as *); length modifiers hh h l ll z t j L.
 * Returns the number of characters produced (clamped to INT_MAX); sink
 * may be NULL to only count them.
 *
 * Output matches glibc, including where ISO C leaves it open: %p is
 * "0x" + lowercase hex (like %#lx, honouring flags, width and precision)
 * and "(nil)" for NULL; %s of NULL is "(null)", or nothing when the
 * precision is below 6; a negative '*' width means '-' plus its absolute
 * value, a negative '*' precision means none; an unknown conversion (or a
 * '%' at the end) is copied through as written; "%5%" prints "%".
 * Widths and precisions above INT_MAX / 2 are clamped to it. No %n.
 */
int fmt_vformat(fmt_sink_t sink, void *ctx, const char *fmt, va_list ap);

/* Where formatted text goes: a sink and its context. */
typedef struct fmt_out {
	fmt_sink_t put;
	void *ctx;
} fmt_out_t;

/* printf-style text through sink (see fmt_vformat); the characters produced. */
int fmt_format(fmt_sink_t sink, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same through o's sink. */
int fmt_outf(const fmt_out_t *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The floating-point conversions (spec->conv one of f F e E g G a A):
 * fmt_vformat calls this with its sink (possibly NULL: count only) and the
 * argument list, from which it takes the double (a long double for 'L',
 * rounded to double before formatting). Returns the number of characters
 * produced. Two implementations, chosen
 * at link time: lib/fmt_float.c (user space and host: exact, output
 * identical to glibc's) and kernel/fmt_nofloat.c (the kernel has no
 * floating point: it consumes nothing and prints the specification as
 * text, e.g. "%.3f").
 */
int fmt_float(fmt_sink_t sink, void *ctx, const fmt_spec_t *spec,
	      va_list *ap);

/*
 * Like vsnprintf: writes at most size-1 characters plus a NUL (when size > 0)
 * and returns the length the full output would have had.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* Like snprintf; see fmt_vsnprintf. */
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
