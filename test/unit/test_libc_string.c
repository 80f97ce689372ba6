/*
 * Unit tests for libc's string.h additions, ctype, strtol and friends and
 * strerror, mostly against the host C library's versions of the same
 * functions on fixed and random inputs.
 */
#include "rng.h"
#include "tap.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#pragma GCC diagnostic ignored "-Wstringop-truncation"

#include "libc_host.h"

static uint64_t rng_state = 0x6a09e667f3bcc909ull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* ---------------------------------------------------------------- string */

static void test_copying(void)
{
	char a[32], b[32];

	ok(vl_strcpy(a, "copy") == a && strcmp(a, "copy") == 0, "strcpy");
	ok(vl_stpcpy(a, "end") == a + 3, "stpcpy returns the NUL");
	memset(a, 'X', sizeof(a));
	memset(b, 'X', sizeof(b));
	vl_strncpy(a, "ab", 6);
	strncpy(b, "ab", 6);
	ok(memcmp(a, b, sizeof(a)) == 0, "strncpy pads with NULs");
	vl_strncpy(a, "abcdefgh", 4);
	strncpy(b, "abcdefgh", 4);
	ok(memcmp(a, b, sizeof(a)) == 0, "strncpy truncates without NUL");
	strcpy(a, "foo");
	is_str(vl_strcat(a, "bar"), "foobar", "strcat");
	is_str(vl_strncat(a, "bazqux", 3), "foobarbaz", "strncat");
	strcpy(a, "12");
	is_int((int)vl_strlcat(a, "3456", 5), 6, "strlcat returns the full length");
	is_str(a, "1234", "strlcat truncates");
	is_int((int)vl_strlcat(a, "x", 3), 4, "strlcat with a full buffer");
	ok(vl_mempcpy(a, "xy", 2) == a + 2, "mempcpy");
	ok(vl_memccpy(b, "hello", 'l', 5) == b + 3 && memcmp(b, "hel", 3) == 0,
	   "memccpy stops after c");
	ok(vl_memccpy(b, "hello", 'z', 5) == NULL, "memccpy without c");
	char *d = vl_strdup("dup");
	is_str(d, "dup", "strdup");
	vl_free(d);
	d = vl_strndup("duplicate", 3);
	is_str(d, "dup", "strndup");
	vl_free(d);
}

static void test_searching(void)
{
	const char *s = "hello, world";

	ok(vl_strrchr(s, 'o') == s + 8, "strrchr");
	ok(vl_strrchr(s, '\0') == s + 12, "strrchr of NUL");
	ok(vl_strrchr(s, 'z') == NULL, "strrchr missing");
	ok(vl_memchr(s, 'w', 12) == s + 7, "memchr");
	ok(vl_memchr(s, 'w', 7) == NULL, "memchr bounded");
	ok(vl_memrchr(s, 'l', 12) == s + 10, "memrchr");
	ok(vl_memchr("a\xff", 0xff, 2) != NULL, "memchr compares as unsigned char");
	is_int((int)vl_strspn(s, "leh"), 4, "strspn");
	is_int((int)vl_strcspn(s, ",w"), 5, "strcspn");
	ok(vl_strpbrk(s, "wr") == s + 7, "strpbrk");
	ok(vl_strpbrk(s, "xyz") == NULL, "strpbrk missing");
	is_int(vl_ffs(0), 0, "ffs(0)");
	is_int(vl_ffs(0x50), 5, "ffs");
}

static void test_random_compare(void)
{
	int bad = 0;

	for (int i = 0; i < 5000; i++) {
		char a[16], b[16];
		for (int k = 0; k < 15; k++) {
			a[k] = (char)("aAbB\xe9z"[rng() % 6]);
			b[k] = (char)("aAbB\xe9z"[rng() % 6]);
		}
		a[rng() % 16 % 15 + 1] = '\0';
		b[rng() % 16 % 15 + 1] = '\0';
		a[15] = b[15] = '\0';
		size_t n = rng() % 10;
		bad += sign(vl_strcasecmp(a, b)) != sign(strcasecmp(a, b));
		bad += sign(vl_strncasecmp(a, b, n)) != sign(strncasecmp(a, b, n));
		bad += vl_strspn(a, "aA") != strspn(a, "aA");
		bad += vl_strcspn(a, "bz") != strcspn(a, "bz");
	}
	is_int(bad, 0, "strcasecmp, strncasecmp, strspn, strcspn match the host");
}

static void test_tokens(void)
{
	char s[] = "  alpha, beta,,gamma  ";
	char *save = NULL, *t;
	const char *want[] = { "alpha", "beta", "gamma" };
	int n = 0, good = 1;

	for (t = vl_strtok_r(s, " ,", &save); t; t = vl_strtok_r(NULL, " ,", &save))
		good &= n < 3 && strcmp(t, want[n++]) == 0;
	ok(good && n == 3, "strtok_r splits and skips empty fields");
	ok(vl_strtok_r(NULL, " ,", &save) == NULL, "and stays at the end");
	char s2[] = "x;y";
	ok(strcmp(vl_strtok(s2, ";"), "x") == 0 && strcmp(vl_strtok(NULL, ";"), "y") == 0
	   && vl_strtok(NULL, ";") == NULL, "strtok");
	char s3[] = "a,,b";
	char *p = s3;
	is_str(vl_strsep(&p, ","), "a", "strsep first");
	is_str(vl_strsep(&p, ","), "", "strsep keeps empty fields");
	is_str(vl_strsep(&p, ","), "b", "strsep last");
	ok(p == NULL && vl_strsep(&p, ",") == NULL, "strsep end");
	char s4[] = "   ";
	ok(vl_strtok_r(s4, " ", &save) == NULL, "only delimiters: no token");
}

/* ---------------------------------------------------------------- ctype */

static void test_ctype(void)
{
	int bad = 0;

	for (int c = -1; c < 256; c++) {
		bad += !vl_isalnum(c) != !isalnum(c);
		bad += !vl_isalpha(c) != !isalpha(c);
		bad += !vl_isblank(c) != !isblank(c);
		bad += !vl_iscntrl(c) != !iscntrl(c);
		bad += !vl_isdigit(c) != !isdigit(c);
		bad += !vl_isgraph(c) != !isgraph(c);
		bad += !vl_islower(c) != !islower(c);
		bad += !vl_isprint(c) != !isprint(c);
		bad += !vl_ispunct(c) != !ispunct(c);
		bad += !vl_isspace(c) != !isspace(c);
		bad += !vl_isupper(c) != !isupper(c);
		bad += !vl_isxdigit(c) != !isxdigit(c);
		bad += vl_tolower(c) != tolower(c);
		bad += vl_toupper(c) != toupper(c);
	}
	is_int(bad, 0, "ctype matches the host's C locale for EOF and 0..255");
	ok(!vl_isalpha(1000) && !vl_isspace(-5), "out-of-range values are in no class");
}

/* ---------------------------------------------------------------- strtol */

static const char *const numbers[] = {
	"0", "1", "-1", "+1", "  42", "\t\n -17xyz", "0x1f", "0X1F", "0x", "0xg",
	"-0x10", "010", "08", "0", "z", "", "  ", "-", "+", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "-18446744073709551615",
	"-18446744073709551616", "99999999999999999999999", "0b101", "1e5",
	"  +0x7fffffffffffffff", "0x8000000000000000", "-0x8000000000000000",
	"0xffffffffffffffff", "0x10000000000000000", "zz", "ZZ", "123abc",
	"000000000000000000000000000000001", "- 5", "0x-5", "12345678901234567890",
};

static const int bases[] = { 0, 2, 8, 10, 16, 36, 7 };

static void test_strtol(void)
{
	int bad = 0;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
			const char *s = numbers[i];
			char *e1, *e2;
			int base = bases[b];
			vl_errno = 0;
			long long v1 = vl_strtoll(s, &e1, base);
			int err1 = vl_errno;
			errno = 0;
			long long v2 = strtoll(s, &e2, base);
			int err2 = errno;
			unsigned long long u1, u2;
			vl_errno = 0;
			u1 = vl_strtoull(s, &e1, base);
			int err3 = vl_errno;
			char *e3 = e1;
			errno = 0;
			u2 = strtoull(s, &e2, base);
			int err4 = errno;
			if (v1 != v2 || err1 != err2 || u1 != u2 || err3 != err4 ||
			    e3 != e2) {
				bad++;
				diag("\"%s\" base %d: %lld/%d %llu/%d vs %lld/%d %llu/%d",
				     s, base, v1, err1, u1, err3, v2, err2, u2, err4);
			}
		}
	}
	is_int(bad, 0, "strtoll/strtoull: value, errno and end match the host");

	char *end;
	vl_errno = 0;
	ok(vl_strtol("12", &end, 1) == 0 && vl_errno == EINVAL, "base 1 is EINVAL");
	ok(vl_strtol("12", &end, 37) == 0 && vl_errno == EINVAL, "base 37 is EINVAL");
	const char *s = "  xyz";
	vl_strtol(s, &end, 10);
	ok(end == s, "no digits: end is the start");
	is_int(vl_strtol("-2147483649", NULL, 10), -2147483649L, "strtol is 64-bit");
	is_uint(vl_strtoul("-1", NULL, 10), ULONG_MAX, "strtoul(\"-1\")");
	is_int(vl_atoi(" -123x"), -123, "atoi");
	is_int(vl_atol("9000000000"), 9000000000L, "atol");
	is_int(vl_abs(-5), 5, "abs");
	is_int(vl_labs(-5000000000L), 5000000000L, "labs");
}

static void test_strtol_random(void)
{
	int bad = 0;

	for (int i = 0; i < 20000; i++) {
		char s[40], *e1, *e2;
		int base = (int)(rng() % 38);
		if (base == 1)
			base = 0;
		int len = (int)(rng() % 25);
		for (int k = 0; k < len; k++)
			s[k] = " +-0x1789afzAFZ"[rng() % 15];
		s[len] = '\0';
		vl_errno = 0;
		errno = 0;
		long v1 = vl_strtol(s, &e1, base);
		long v2 = strtol(s, &e2, base);
		/* glibc leaves end unset for a bad base; we set it to s. */
		bool same_end = base > 36 || e1 - s == e2 - s;
		if (v1 != v2 || !same_end || vl_errno != errno) {
			if (bad++ < 5)
				diag("\"%s\" base %d: %ld vs %ld", s, base, v1, v2);
		}
	}
	is_int(bad, 0, "20000 random strings through strtol match the host");
}

/* ---------------------------------------------------------------- strerror */

static void test_strerror(void)
{
	char buf[64];

	is_str(vl_strerror(ENOENT), "No such file or directory", "strerror(ENOENT)");
	is_str(vl_strerror(0), "Success", "strerror(0)");
	is_str(vl_strerror(ETIMEOUT), "Timed out", "strerror(ETIMEOUT)");
	is_str(vl_strerror(12345), "Unknown error 12345", "unknown codes");
	is_int(vl_strerror_r(EINVAL, buf, sizeof(buf)), 0, "strerror_r");
	is_str(buf, "Invalid argument", "strerror_r text");
	is_int(vl_strerror_r(EINVAL, buf, 4), ERANGE, "strerror_r too small");
	is_str(buf, "Inv", "strerror_r truncates");
	int missing = 0;
	static const int codes[] = { EPERM, ENOENT, ESRCH, EINTR, EIO, E2BIG,
		ENOEXEC, EAGAIN, ENOMEM, EFAULT, EBUSY, EEXIST, ENOTDIR, EISDIR,
		EINVAL, ENOSPC, EPIPE, ERANGE, ENOSYS, ENOTTY, ENAMETOOLONG, ENOTSUP,
		ETIMEOUT, ELIMIT,
		EHANGUP, EGENERIC, VL_EBADF, VL_EDOM, VL_EILSEQ };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		missing += strncmp(vl_strerror(codes[i]), "Unknown", 7) == 0;
	is_int(missing, 0, "every abi/errno.h code has a message");
	ok(vl_getenv("PATH") == NULL, "getenv: no environment");
	static char *env[] = { "PATH=/bin", "PWD=/tmp", "P=x", "EMPTY=", NULL };
	vl___libc_environ = env;
	ok(vl_getenv("PATH") && !strcmp(vl_getenv("PATH"), "/bin") &&
	   vl_getenv("P") && !strcmp(vl_getenv("P"), "x") &&
	   vl_getenv("EMPTY") && !strcmp(vl_getenv("EMPTY"), "") &&
	   !vl_getenv("PA") && !vl_getenv("PATH/"),
	   "getenv: finds exact names only");
	vl___libc_environ = NULL;
}

int main(void)
{
	test_copying();
	test_searching();
	test_random_compare();
	test_tokens();
	test_ctype();
	test_strtol();
	test_strtol_random();
	test_strerror();
	return done_testing();
}
