/*
 * Minimal TAP (Test Anything Protocol, version 12) producer for the host
 * unit tests. Header-only and self-contained: include it first, before
 * any <lib/...> header, in exactly one translation unit per test binary.
 *
 *   plan(n);                      optional: print "1..n" up front
 *   ok(cond, "what %d", i);       one test point; returns cond
 *   is_int(got, expected, ...);   integers (as long long), diag on mismatch
 *   is_uint(got, expected, ...);  unsigned integers (as unsigned long long)
 *   is_str(got, expected, ...);   C strings (NULL allowed)
 *   diag("fmt", ...);             "# ..." line on stderr
 *   note("fmt", ...);             "# ..." line on stdout
 *   note_text(title, text);       note the title, then text's lines indented
 *   return done_testing();        print "1..N" if no plan was given, check
 *                                 the plan, exit 1 on any failure, else 0
 *
 * Test points print "ok N - desc" or "not ok N - desc" on stdout; a
 * failure adds "#   Failed test at FILE line L" and, for is_*, a line
 * "# got: ... expected: ..." on stderr (where prove shows it).
 */
#ifndef TEST_UNIT_TAP_H
#define TEST_UNIT_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static inline __attribute__((format(printf, 2, 0)))
void tap_vline(FILE *f, const char *fmt, va_list ap)
{
	fputs("# ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	tap_vline(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static inline __attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(stdout, fmt, ap);
	va_end(ap);
}

/* note(title), then each line of text (NULL: none) as an indented note. */
static inline void note_text(const char *title, const char *text)
{
	note("%s", title);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		note("  %.*s", n, p);
		p += n + (nl != NULL);
	}
}

/* Declare the number of test points; call at most once, before any. */
static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Stop the whole run: "Bail out!" tells the harness to give up. */
static inline __attribute__((noreturn, format(printf, 1, 2)))
void bail_out(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	exit(255);
}

static inline __attribute__((format(printf, 4, 0)))
bool tap_vok(bool pass, const char *file, int line, const char *fmt,
	     va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		diag("  Failed test at %s line %d", file, line);
	return pass;
}

static inline __attribute__((format(printf, 4, 5)))
bool tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_int(long long got, long long expected, const char *file,
		int line, const char *fmt, ...)
{
	va_list ap;
	bool pass = got == expected;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got: %lld expected: %lld", got, expected);
	return pass;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_uint(unsigned long long got, unsigned long long expected,
		 const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	bool pass = got == expected;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got: %llu (%#llx) expected: %llu (%#llx)", got, got,
		     expected, expected);
	return pass;
}

static inline bool tap_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static inline __attribute__((format(printf, 5, 6)))
bool tap_is_str(const char *got, const char *expected, const char *file,
		int line, const char *fmt, ...)
{
	va_list ap;
	bool pass = tap_str_eq(got, expected);

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got: %s%s%s expected: %s%s%s", got ? "\"" : "",
		     got ? got : "NULL", got ? "\"" : "", expected ? "\"" : "",
		     expected ? expected : "NULL", expected ? "\"" : "");
	return pass;
}

/* Finish: print the plan if none was given, then exit 1 on any failure. */
static inline int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		diag("planned %d tests but ran %d", tap_planned, tap_run);
	if (tap_failed > 0)
		diag("failed %d of %d tests", tap_failed, tap_run);
	fflush(stdout);
	exit(tap_failed > 0 || (tap_planned >= 0 && tap_planned != tap_run));
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, expected, ...) \
	tap_is_int((long long)(got), (long long)(expected), __FILE__, \
		   __LINE__, __VA_ARGS__)
#define is_uint(got, expected, ...) \
	tap_is_uint((unsigned long long)(got), (unsigned long long)(expected), \
		    __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, expected, ...) \
	tap_is_str((got), (expected), __FILE__, __LINE__, __VA_ARGS__)

#endif
