/*
 * The printf family over lib/fmt (fmt_vformat), with stream output
 * through the unlocked FILE primitives.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <lib/fmt.h>

#include "stdio_impl.h"

typedef struct file_out {
	FILE *f;
	bool failed;
} file_out_t;

static void file_sink(void *ctx, const char *s, size_t len)
{
	file_out_t *o = ctx;

	if (!o->failed && __libc_file_write(o->f, s, len) != len)
		o->failed = true;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	file_out_t o = { .f = f, .failed = false };
	char tmp[512];
	file_batch_t batch;

	__libc_lock(&f->lock);
	__libc_file_batch_begin(f, &batch, tmp, sizeof(tmp));
	int n = fmt_vformat(file_sink, &o, fmt, ap);
	if (__libc_file_batch_end(f, &batch) != 0)
		o.failed = true;
	__libc_unlock(&f->lock);
	return o.failed ? -1 : n;
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return fmt_vsnprintf(buf, size, fmt, ap);
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int vsprintf(char *buf, const char *fmt, va_list ap)
{
	return fmt_vsnprintf(buf, (size_t)INT_MAX + 1, fmt, ap);
}

int sprintf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsprintf(buf, fmt, ap);
	va_end(ap);
	return n;
}

int vasprintf(char **out, const char *fmt, va_list ap)
{
	va_list ap2;

	va_copy(ap2, ap);
	int n = fmt_vformat(NULL, NULL, fmt, ap2);
	va_end(ap2);
	char *buf = n < INT_MAX ? malloc((size_t)n + 1) : NULL;
	if (!buf) {
		*out = NULL;
		errno = ENOMEM;
		return -1;
	}
	fmt_vsnprintf(buf, (size_t)n + 1, fmt, ap);
	*out = buf;
	return n;
}

int asprintf(char **out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vasprintf(out, fmt, ap);
	va_end(ap);
	return n;
}
