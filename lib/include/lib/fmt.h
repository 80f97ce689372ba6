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

/*
 * Format fmt with ap into sink. Conversions: %d %i %u %x %X %o %p %s %c %%;
 * flags - + space # 0; width and precision (also as *); length modifiers
 * hh h l ll z t j. Returns the number of characters produced (clamped to
 * INT_MAX); sink may be NULL to only count them.
 *
 * Output matches glibc, including where ISO C leaves it open: %p is
 * "0x" + lowercase hex (like %#lx, honouring flags, width and precision)
 * and "(nil)" for NULL; %s of NULL is "(null)", or nothing when the
 * precision is below 6; a negative '*' width means '-' plus its absolute
 * value, a negative '*' precision means none; an unknown conversion (or a
 * '%' at the end) is copied through as written; "%5%" prints "%".
 * Widths and precisions above INT_MAX / 2 are clamped to it. No floating
 * point, no %n.
 */
int fmt_vformat(fmt_sink_t sink, void *ctx, const char *fmt, va_list ap);

/*
 * Like vsnprintf: writes at most size-1 characters plus a NUL (when size > 0)
 * and returns the length the full output would have had.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* Like snprintf; see fmt_vsnprintf. */
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
