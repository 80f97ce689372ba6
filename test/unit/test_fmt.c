/*
 * Unit tests for lib/fmt.c: fmt_snprintf is compared with the host C
 * library's snprintf, case by case (output, return value, and that bytes
 * past the output are untouched), then over random format strings.
 */
#include "rng.h"
#include "tap.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <lib/fmt.h>

/* Empty formats and deliberate truncation are what these tests are about. */
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define BUFSZ 512
#define FILL 'X'

static bool same_buffers(const char *got, int rg, const char *exp, int re,
			 size_t size, const char *what)
{
	bool pass = rg == re && memcmp(got, exp, BUFSZ) == 0;

	ok(pass, "%s (size %zu)", what, size);
	if (!pass)
		diag("got: %d \"%s\" expected: %d \"%s\"", rg,
		     size ? got : "", re, size ? exp : "");
	return pass;
}

/*
 * Format the same arguments with both implementations into buffers of
 * BUFSZ bytes filled with FILL, passing size as the limit.
 */
#define CHECK_SIZE(size, ...) do {					\
	char got_[BUFSZ], exp_[BUFSZ];					\
	memset(got_, FILL, BUFSZ);					\
	memset(exp_, FILL, BUFSZ);					\
	int rg_ = fmt_snprintf(got_, (size), __VA_ARGS__);		\
	int re_ = snprintf(exp_, (size), __VA_ARGS__);			\
	same_buffers(got_, rg_, exp_, re_, (size), #__VA_ARGS__);	\
} while (0)

#define T(...) CHECK_SIZE(BUFSZ, __VA_ARGS__)

static int some_object;

static void test_plain(void)
{
	T("");
	T("hello, world");
	T("100%% sure");
	T("%%");
	T("a%%b%%c");
	T("%c", 'x');
	T("%c%c%c", 'a', 'b', 'c');
	T("[%5c]", 'x');
	T("[%-5c]", 'x');
	T("%s", "string");
	T("%s", "");
	T("[%10s]", "right");
	T("[%-10s]", "left");
	T("[%.3s]", "truncate");
	T("[%10.3s]", "truncate");
	T("[%-10.3s]", "truncate");
	T("[%.0s]", "gone");
	T("[%.10s]", "short");
	T("[%3s]", "longer than width");
	T("[%*s]", 8, "star");
	T("[%-*s]", 8, "star");
	T("[%*s]", -8, "negative star");
	T("[%.*s]", 2, "precision star");
	T("[%.*s]", -1, "negative precision star");
	T("%s and %s", "this", "that");
}

static void test_signed(void)
{
	T("%d", 0);
	T("%d", 1);
	T("%d", -1);
	T("%d", 42);
	T("%i", -42);
	T("%d", INT_MAX);
	T("%d", INT_MIN);
	T("%i", INT_MIN);
	T("[%5d]", 42);
	T("[%-5d]", 42);
	T("[%05d]", 42);
	T("[%05d]", -42);
	T("[%+d]", 42);
	T("[%+d]", 0);
	T("[%+d]", -42);
	T("[% d]", 42);
	T("[% d]", -42);
	T("[% 5d]", 42);
	T("[%+05d]", 42);
	T("[% 05d]", 42);
	T("[%.5d]", 42);
	T("[%.5d]", -42);
	T("[%8.5d]", -42);
	T("[%-8.5d]", -42);
	T("[%.0d]", 0);
	T("[%5.0d]", 0);
	T("[%+.0d]", 0);
	T("[% .0d]", 0);
	T("[%.1d]", 0);
	T("[%.0d]", 7);
	T("[%*d]", 6, 123);
	T("[%*d]", -6, 123);
	T("[%-*d]", -6, 123);
	T("[%.*d]", 4, 5);
	T("[%.*d]", -4, 5);
	T("[%0*d]", 6, -5);
	T("[%*.*d]", 8, 4, -5);
	T("[%3d]", 123456);
	T("[%.3d]", 123456);
	T("%ld", LONG_MIN);
	T("%ld", LONG_MAX);
	T("%lld", LLONG_MIN);
	T("%lld", LLONG_MAX);
	T("%lli", -1234567890123LL);
	T("%hd", (short)-32768);
	T("%hd", 70000);
	T("%hhd", 200);
	T("%hhd", -129);
	T("%hhi", 127);
	T("%zd", (ssize_t)-5);
	T("%td", (ptrdiff_t)-123456789012);
	T("%jd", (intmax_t)INT64_MIN);
	T("[%20lld]", LLONG_MIN);
	T("[%-25lld]", LLONG_MIN);
	T("[%025lld]", LLONG_MIN);
	T("[%.25lld]", LLONG_MIN);
	T("[%+lld]", LLONG_MAX);
}

static void test_unsigned(void)
{
	T("%u", 0u);
	T("%u", 42u);
	T("%u", UINT_MAX);
	T("%lu", ULONG_MAX);
	T("%llu", ULLONG_MAX);
	T("%hu", 65537);
	T("%hhu", 257);
	T("%zu", SIZE_MAX);
	T("%tu", (size_t)PTRDIFF_MAX);
	T("%ju", UINTMAX_MAX);
	T("[%8u]", 123u);
	T("[%-8u]", 123u);
	T("[%08u]", 123u);
	T("[%.6u]", 123u);
	T("[%.0u]", 0u);
	T("%x", 0u);
	T("%x", 255u);
	T("%X", 255u);
	T("%x", 0xdeadbeefu);
	T("%X", 0xdeadbeefu);
	T("%llx", ULLONG_MAX);
	T("%llX", ULLONG_MAX);
	T("%lx", 0x123456789abcdefUL);
	T("%hx", 0x12345);
	T("%hhx", 0x1ff);
	T("%zx", (size_t)0xabc);
	T("%jx", (uintmax_t)1 << 63);
	T("[%#x]", 0u);
	T("[%#x]", 255u);
	T("[%#X]", 255u);
	T("[%#10x]", 255u);
	T("[%#-10x]", 255u);
	T("[%#010x]", 255u);
	T("[%#.5x]", 255u);
	T("[%#10.5x]", 255u);
	T("[%#.0x]", 0u);
	T("[%.0x]", 0u);
	T("[%08X]", 0xabcu);
	T("[%-8x]", 0xabcu);
	T("[%*x]", -8, 0xabcu);
	T("%o", 0u);
	T("%o", 8u);
	T("%o", 0777u);
	T("%llo", ULLONG_MAX);
	T("%lo", (unsigned long)LONG_MIN);
	T("%ho", 0x1ffff);
	T("%hho", 0x1ff);
	T("[%#o]", 0u);
	T("[%#o]", 8u);
	T("[%#.0o]", 0u);
	T("[%#.3o]", 8u);
	T("[%#.4o]", 8u);
	T("[%#5o]", 8u);
	T("[%#05o]", 8u);
	T("[%#-5o]", 8u);
	T("[%.0o]", 0u);
	T("[%#llo]", ULLONG_MAX);
	T("[%#llx]", ULLONG_MAX);
	T("[%#30llo]", ULLONG_MAX);
}

static void test_pointer(void)
{
	T("%p", (void *)0x1234);
	T("%p", (void *)&some_object);
	T("%p", (void *)UINTPTR_MAX);
	T("%p", (void *)0xffffffff80000000ull);
	T("[%20p]", (void *)0xabc);
	T("[%-20p]", (void *)0xabc);
	T("%p %p", (void *)1, (void *)2);
}

/*
 * Flags that C defines as ignored in combination; GCC warns about them.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
static void test_ignored_flags(void)
{
	T("[%-05d]", -42);
	T("[%+ d]", 42);
	T("[% +d]", 42);
	T("[%08.5d]", -42);
	T("[%010.3x]", 0xabu);
	T("[%-010x]", 0xabu);
	T("[%0-10u]", 7u);
	T("[%0*.*d]", 8, 3, -5);
	T("[%+ 10lld]", LLONG_MIN);
}
#pragma GCC diagnostic pop

/*
 * Cases outside ISO C that glibc handles in a documented way and that we
 * match on purpose: "(nil)", "(null)", flags on %p, unknown conversions.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat-overflow"
static void test_glibc_extensions(void)
{
	char *null_str = NULL;

	T("%p", (void *)0);
	T("[%10p]", (void *)0);
	T("[%-10p]", (void *)0);
	T("[%.2p]", (void *)0);
	T("[%010p]", (void *)0);
	T("[%020p]", (void *)0x1234);
	T("[%.10p]", (void *)0x1234);
	T("[%+p]", (void *)0x1234);
	T("[% p]", (void *)0x1234);
	T("%s", null_str);
	T("[%10s]", null_str);
	T("[%-10s]", null_str);
	T("[%.3s]", null_str);
	T("[%.5s]", null_str);
	T("[%.6s]", null_str);
	T("[%-8.5s]", null_str);
	T("[%+u]", 5u);
	T("[% x]", 5u);
	T("[%+o]", 5u);
	T("[%#d]", 5);
	T("[%c]", 0);
	T("[%lc]", 'w');
}

/*
 * glibc returns -1 for a lone trailing '%' and ASan's printf interceptor
 * objects to "%5%" and "%y", so these are checked against fixed strings.
 */
static void test_odd_percent(void)
{
	char buf[32];

	is_int(fmt_snprintf(buf, sizeof(buf), "trailing %"), 10,
	       "lone trailing %% length");
	is_str(buf, "trailing %", "lone trailing %% is copied");
	is_int(fmt_snprintf(buf, sizeof(buf), "[%5%]"), 3, "%%5%% length");
	is_str(buf, "[%]", "%%5%% ignores the width like glibc");
	is_int(fmt_snprintf(buf, sizeof(buf), "[%-5%]"), 3, "%%-5%% length");
	is_str(buf, "[%]", "%%-5%% ignores the width like glibc");
	is_int(fmt_snprintf(buf, sizeof(buf), "%l"), 2, "%%l at end length");
	is_str(buf, "%l", "incomplete %%l is copied");
	is_int(fmt_snprintf(buf, sizeof(buf), "[%y|%-5.2ly]"), 12,
	       "unknown conversion length");
	is_str(buf, "[%y|%-5.2ly]", "unknown conversions are copied like glibc");
}
#pragma GCC diagnostic pop

static void test_truncation(void)
{
	CHECK_SIZE(0, "%d", 12345);
	CHECK_SIZE(1, "%d", 12345);
	CHECK_SIZE(2, "%d", 12345);
	CHECK_SIZE(5, "%d", 12345);
	CHECK_SIZE(6, "%d", 12345);
	CHECK_SIZE(7, "%d", 12345);
	CHECK_SIZE(4, "%s", "abcdef");
	CHECK_SIZE(4, "[%10s]", "ab");
	CHECK_SIZE(4, "[%-10s]", "ab");
	CHECK_SIZE(10, "%lld", LLONG_MIN);
	CHECK_SIZE(3, "%#x", 0xfffu);
	CHECK_SIZE(3, "%%%%%%");
	CHECK_SIZE(1, "");
	CHECK_SIZE(8, "%s%s%s", "abc", "def", "ghi");
	CHECK_SIZE(16, "%0100d", 1);

	char small[4] = { 'a', 'b', 'c', 'd' };
	is_int(fmt_snprintf(NULL, 0, "%s=%d", "answer", 42), 9,
	       "size 0 with NULL buffer returns the full length");
	is_int(fmt_snprintf(small, 0, "xyz"), 3, "size 0 returns length");
	ok(small[0] == 'a', "size 0 writes nothing");
	is_int(fmt_snprintf(small, 1, "xyz"), 3, "size 1 returns length");
	ok(small[0] == '\0' && small[1] == 'b', "size 1 writes only the NUL");

	/* A long field goes through the padding loop many times. */
	char big[BUFSZ];
	is_int(fmt_snprintf(big, sizeof(big), "%300d|", 1), 301,
	       "width 300 return value");
	is_int((int)strlen(big), 301, "width 300 output length");
	is_int(fmt_snprintf(NULL, 0, "%*d", 100000, 1), 100000,
	       "width 100000 counted without output");
	is_int(fmt_snprintf(NULL, 0, "%.*d", 5000, -1), 5001,
	       "precision 5000 counted");
}

/* ---------------------------------------------------------------- vformat */

typedef struct sink_log {
	char text[64];
	size_t len;
	int calls;
} sink_log_t;

static void log_sink(void *ctx, const char *s, size_t len)
{
	sink_log_t *log = ctx;

	memcpy(log->text + log->len, s, len);
	log->len += len;
	log->calls++;
}

static int vformat_wrap(sink_log_t *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int vformat_wrap(sink_log_t *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vformat(log_sink, log, fmt, ap);
	va_end(ap);
	return n;
}

static int count_only(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int count_only(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vformat(NULL, NULL, fmt, ap);
	va_end(ap);
	return n;
}

static void test_vformat(void)
{
	sink_log_t log = { .len = 0, .calls = 0 };

	int n = vformat_wrap(&log, "x=%d, s=%-4s|", -7, "ab");
	is_int(n, 13, "fmt_vformat returns the character count");
	is_int((int)log.len, 13, "the sink received every character");
	log.text[log.len] = '\0';
	is_str(log.text, "x=-7, s=ab  |", "fmt_vformat output via the sink");
	ok(log.calls >= 2, "output arrives in several pieces");

	log.len = 0;
	log.calls = 0;
	is_int(vformat_wrap(&log, "%s", ""), 0, "empty output");
	is_int(log.calls, 0, "no sink call for empty output");
	is_int(count_only("%s-%05d-%x", "abc", 42, 255u), 12,
	       "NULL sink only counts");
}

/* fmt_format and fmt_outf reach the sink they are given, with its context. */
static void test_format_out(void)
{
	sink_log_t a = { .len = 0, .calls = 0 }, b = { .len = 0, .calls = 0 };
	fmt_out_t o = { log_sink, &b };

	is_int(fmt_format(log_sink, &a, "%s=%03u", "n", 7u), 5, "fmt_format counts");
	a.text[a.len] = '\0';
	is_str(a.text, "n=007", "fmt_format writes through its sink and context");
	is_int(fmt_outf(&o, "[%-3c]%ld", 'q', -12L), 8, "fmt_outf counts");
	b.text[b.len] = '\0';
	is_str(b.text, "[q  ]-12", "fmt_outf writes through o's sink and context");
	is_int((int)a.len, 5, "and not through another's");
}

/* ---------------------------------------------------------------- random */

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static int both(char *got, char *exp, size_t size, int *re, const char *fmt,
		...)
{
	va_list ap, ap2;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	int rg = fmt_vsnprintf(got, size, fmt, ap);
	*re = vsnprintf(exp, size, fmt, ap2);
	va_end(ap2);
	va_end(ap);
	return rg;
}

/* Build a random integer conversion into spec; returns its length class. */
static int random_spec(char *spec)
{
	static const char *const lens[] = { "", "hh", "h", "l", "ll", "z", "j", "t" };
	static const char convs[] = "diuxXo";
	char *p = spec;

	*p++ = '%';
	for (const char *f = "-+ #0"; *f; f++)
		if (rng() % 4 == 0)
			*p++ = *f;
	if (rng() % 2)
		p += sprintf(p, "%d", (int)(rng() % 30));
	if (rng() % 2)
		p += sprintf(p, ".%d", (int)(rng() % 25));
	int len = (int)(rng() % 8);
	p += sprintf(p, "%s%c", lens[len], convs[rng() % 6]);
	*p = '\0';
	return len;
}

static uint64_t random_value(void)
{
	static const uint64_t special[] = {
		0, 1, 7, 8, 9, 10, 15, 16, 127, 128, 255, 256, 32767, 32768,
		65535, 65536, INT32_MAX, (uint64_t)INT32_MAX + 1, UINT32_MAX,
		INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
	};
	uint64_t v = rng();

	switch (rng() % 4) {
	case 0: return special[rng() % (sizeof(special) / sizeof(special[0]))];
	case 1: return v >> (rng() % 64);
	case 2: return -(v >> (rng() % 64));
	default: return v;
	}
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
static void test_random(void)
{
	int bad = 0;

	for (int i = 0; i < 20000 && bad < 5; i++) {
		char spec[64], got[BUFSZ], exp[BUFSZ];
		int re, rg, len = random_spec(spec);
		uint64_t v = random_value();
		size_t size = rng() % 3 == 0 ? rng() % 40 : BUFSZ;

		memset(got, FILL, BUFSZ);
		memset(exp, FILL, BUFSZ);
		/* Length classes 0-2 take int arguments, the rest 64 bits. */
		if (len <= 2)
			rg = both(got, exp, size, &re, spec, (int)v);
		else
			rg = both(got, exp, size, &re, spec, (long long)v);
		if (rg != re || memcmp(got, exp, BUFSZ) != 0) {
			bad++;
			diag("mismatch: \"%s\" size %zu value %#llx: got %d \"%.40s\" "
			     "expected %d \"%.40s\"", spec, size,
			     (unsigned long long)v, rg, got, re, exp);
		}
	}
	ok(bad == 0, "20000 random integer conversions match snprintf");
}
#pragma GCC diagnostic pop

int main(void)
{
	test_plain();
	test_signed();
	test_unsigned();
	test_pointer();
	test_ignored_flags();
	test_glibc_extensions();
	test_odd_percent();
	test_truncation();
	test_vformat();
	test_format_out();
	test_random();
	return done_testing();
}
