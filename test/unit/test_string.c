/*
 * Unit tests for lib/string.c. Built with -DLIB_HOSTED, so after
 * <lib/string.h> the standard names below refer to our lib_* functions;
 * libc's versions are only reachable through the pointers taken first.
 */
#include "tap.h"

#include <stdint.h>
#include <string.h>

static void *(*const libc_memmove)(void *, const void *, size_t) = memmove;
static int (*const libc_memcmp)(const void *, const void *, size_t) = memcmp;
static void *(*const memset_ref)(void *, int, size_t) = memset;
static int (*const libc_strcmp)(const char *, const char *) = strcmp;
static int (*const libc_strncmp)(const char *, const char *, size_t) = strncmp;

#include <lib/string.h>

#if !defined(memcpy) || !defined(strlcpy)
#error "LIB_HOSTED must rename the lib/string.h functions"
#endif

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void fill_pattern(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 1);
}

static void test_memcpy(void)
{
	unsigned char src[64], dst[80];

	fill_pattern(src, sizeof(src));
	for (size_t i = 0; i < sizeof(dst); i++)
		dst[i] = 0xee;
	ok(memcpy(dst + 3, src, 64) == dst + 3, "memcpy returns dst");
	ok(libc_memcmp(dst + 3, src, 64) == 0, "memcpy copies 64 bytes");
	ok(dst[2] == 0xee && dst[67] == 0xee, "memcpy touches nothing else");
	ok(memcpy(dst, src, 0) == dst && dst[0] == 0xee, "memcpy of 0 bytes");
}

/* Check memmove of n bytes from offset s to offset d in a 64-byte buffer. */
static bool memmove_case(size_t d, size_t s, size_t n)
{
	unsigned char buf[64], ref[64], tmp[64];

	fill_pattern(buf, sizeof(buf));
	fill_pattern(ref, sizeof(ref));
	for (size_t i = 0; i < n; i++)
		tmp[i] = ref[s + i];
	for (size_t i = 0; i < n; i++)
		ref[d + i] = tmp[i];
	return memmove(buf + d, buf + s, n) == buf + d &&
		libc_memcmp(buf, ref, sizeof(buf)) == 0;
}

static void test_memmove(void)
{
	ok(memmove_case(10, 0, 30), "memmove overlapping, dst above src");
	ok(memmove_case(0, 10, 30), "memmove overlapping, dst below src");
	ok(memmove_case(1, 0, 63), "memmove by one byte up");
	ok(memmove_case(0, 1, 63), "memmove by one byte down");
	ok(memmove_case(5, 5, 20), "memmove onto itself");
	ok(memmove_case(40, 0, 20), "memmove disjoint");
	ok(memmove_case(7, 3, 0), "memmove of 0 bytes");

	bool all = true;
	for (size_t d = 0; d < 16; d++)
		for (size_t s = 0; s < 16; s++)
			for (size_t n = 0; n <= 48; n += 3)
				all &= memmove_case(d, s, n);
	ok(all, "memmove: every offset pair 0..15, lengths 0..48");
}

static void test_memset(void)
{
	unsigned char buf[32];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 1;
	ok(memset(buf + 4, 0x1ab, 20) == buf + 4, "memset returns dst");
	bool mid = true;
	for (size_t i = 4; i < 24; i++)
		mid &= buf[i] == 0xab;
	ok(mid, "memset stores (unsigned char)c");
	ok(buf[3] == 1 && buf[24] == 1, "memset stays in range");
	memset(buf, 0, 0);
	ok(buf[0] == 1, "memset of 0 bytes");
}

static void test_memcmp(void)
{
	is_int(memcmp("abc", "abc", 3), 0, "memcmp equal");
	is_int(memcmp("abc", "abd", 3), -1, "memcmp less");
	is_int(memcmp("abd", "abc", 3), 1, "memcmp greater");
	is_int(memcmp("abc", "abd", 2), 0, "memcmp limited to n");
	is_int(memcmp("\x80", "\x01", 1), 1, "memcmp compares unsigned bytes");
	is_int(memcmp("x", "y", 0), 0, "memcmp of 0 bytes");
	is_int(memcmp("a\0b", "a\0c", 3), -1, "memcmp goes past NUL");

	bool all = true;
	uint32_t seed = 12345;
	for (int i = 0; i < 2000; i++) {
		unsigned char a[8], b[8];
		for (int j = 0; j < 8; j++) {
			seed = seed * 1103515245 + 12345;
			a[j] = (unsigned char)(seed >> 16) & 3;
			b[j] = (unsigned char)(seed >> 24) & 3;
		}
		all &= sign(memcmp(a, b, 8)) == sign(libc_memcmp(a, b, 8));
	}
	ok(all, "memcmp sign matches libc on 2000 random pairs");
}

static void test_strlen(void)
{
	is_uint(strlen(""), 0, "strlen empty");
	is_uint(strlen("hello"), 5, "strlen hello");
	is_uint(strnlen("hello", 3), 3, "strnlen capped");
	is_uint(strnlen("hello", 10), 5, "strnlen short string");
	is_uint(strnlen("hello", 0), 0, "strnlen max 0");

	char nonul[4] = { 'a', 'b', 'c', 'd' };
	is_uint(strnlen(nonul, sizeof(nonul)), 4,
		"strnlen stops at max without a NUL (ASan checks)");
}

static void test_strcmp(void)
{
	is_int(strcmp("", ""), 0, "strcmp empty");
	is_int(strcmp("abc", "abc"), 0, "strcmp equal");
	ok(strcmp("abc", "abd") < 0, "strcmp less");
	ok(strcmp("abd", "abc") > 0, "strcmp greater");
	ok(strcmp("ab", "abc") < 0, "strcmp prefix sorts first");
	ok(strcmp("abc", "ab") > 0, "strcmp longer sorts after");
	ok(strcmp("\xff", "a") > 0, "strcmp compares unsigned chars");

	is_int(strncmp("abcx", "abcy", 3), 0, "strncmp limited to n");
	ok(strncmp("abcx", "abcy", 4) < 0, "strncmp sees difference at n-1");
	is_int(strncmp("ab", "ab", 100), 0, "strncmp stops at NUL");
	ok(strncmp("ab", "abc", 3) < 0, "strncmp prefix");
	is_int(strncmp("a", "b", 0), 0, "strncmp n = 0");
	ok(strncmp("\x80", "\x7f", 1) > 0, "strncmp unsigned");

	static const char *const words[] = {
		"", "a", "b", "ab", "abc", "abd", "b\x90", "ba", "\xc3\xa9",
	};
	size_t n = sizeof(words) / sizeof(words[0]);
	bool all = true;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			all &= sign(strcmp(words[i], words[j])) ==
				sign(libc_strcmp(words[i], words[j]));
			for (size_t k = 0; k < 4; k++)
				all &= sign(strncmp(words[i], words[j], k)) ==
					sign(libc_strncmp(words[i], words[j], k));
		}
	}
	ok(all, "strcmp/strncmp signs match libc on all word pairs");
}

static void test_strchr(void)
{
	const char *s = "hello";

	ok(strchr(s, 'h') == s, "strchr first char");
	ok(strchr(s, 'l') == s + 2, "strchr first of repeated");
	ok(strchr(s, 'o') == s + 4, "strchr last char");
	ok(strchr(s, 'z') == NULL, "strchr absent");
	ok(strchr(s, '\0') == s + 5, "strchr NUL finds terminator");
	ok(strchr(s, 'l' + 256) == s + 2, "strchr converts c to char");
	ok(strchr("", 'a') == NULL, "strchr in empty string");
}

static void test_strstr(void)
{
	const char *s = "abababc";

	ok(strstr(s, "") == s, "strstr empty needle");
	ok(strstr(s, "ab") == s, "strstr at start");
	ok(strstr(s, "abc") == s + 4, "strstr after partial matches");
	ok(strstr(s, "c") == s + 6, "strstr at end");
	ok(strstr(s, "abcd") == NULL, "strstr needle runs past end");
	ok(strstr(s, "x") == NULL, "strstr absent");
	ok(strstr("", "a") == NULL, "strstr in empty string");
	ok(strstr("", "") != NULL, "strstr empty in empty");
}

static void test_strlcpy(void)
{
	char buf[8];

	libc_memmove(buf, "XXXXXXXX", 8);
	is_uint(strlcpy(buf, "hi", sizeof(buf)), 2, "strlcpy returns strlen");
	is_str(buf, "hi", "strlcpy copies short string");
	ok(buf[3] == 'X', "strlcpy writes no more than needed");

	is_uint(strlcpy(buf, "truncated!", sizeof(buf)), 10,
		"strlcpy returns full length on truncation");
	is_str(buf, "truncat", "strlcpy truncates to size-1 and terminates");

	is_uint(strlcpy(buf, "1234567", sizeof(buf)), 7, "strlcpy exact fit");
	is_str(buf, "1234567", "strlcpy exact fit content");

	buf[0] = 'Q';
	is_uint(strlcpy(buf, "abc", 0), 3, "strlcpy size 0 returns strlen");
	ok(buf[0] == 'Q', "strlcpy size 0 writes nothing");

	is_uint(strlcpy(buf, "abc", 1), 3, "strlcpy size 1");
	ok(buf[0] == '\0', "strlcpy size 1 writes only the NUL");
	is_uint(strlcpy(buf, "", sizeof(buf)), 0, "strlcpy empty source");
	is_str(buf, "", "strlcpy empty source content");
}

/* memcpy and memset at every alignment and length up to 40 (word paths). */
static void test_mem_alignments(void)
{
	unsigned char src[64], dst[64], want[64];
	int bad_cpy = 0, bad_set = 0;

	fill_pattern(src, sizeof(src));
	for (size_t doff = 0; doff < 8; doff++)
		for (size_t soff = 0; soff < 8; soff++)
			for (size_t n = 0; n <= 40; n++) {
				memset_ref(dst, 0xee, sizeof(dst));
				memset_ref(want, 0xee, sizeof(want));
				libc_memmove(want + doff, src + soff, n);
				bad_cpy += memcpy(dst + doff, src + soff, n) != dst + doff ||
					   libc_memcmp(dst, want, sizeof(dst)) != 0;
				memset_ref(want + doff, soff * 31 + 1, n);
				bad_set += memset(dst + doff, (int)(soff * 31 + 1) | 0x300, n) != dst + doff ||
					   libc_memcmp(dst, want, sizeof(dst)) != 0;
			}
	is_int(bad_cpy, 0, "memcpy right at 8 x 8 alignments x 41 lengths, nothing else touched");
	is_int(bad_set, 0, "memset right at 8 alignments x 41 lengths, (unsigned char)c");
}

static void test_escape_ctrl(void)
{
	char buf[64];

	is_str(str_escape_ctrl(buf, sizeof(buf), "a\nsmp: FAKE"), "a\\x0asmp: FAKE",
	       "str_escape_ctrl: a newline becomes \\x0a");
	is_str(str_escape_ctrl(buf, sizeof(buf), "\r\x1b[2J\x7f\t"), "\\x0d\\x1b[2J\\x7f\\x09",
	       "str_escape_ctrl: CR, ESC, DEL and tab are escaped, the rest kept");
	is_str(str_escape_ctrl(buf, sizeof(buf), "fault_null \xc3\xa9"), "fault_null \xc3\xa9",
	       "str_escape_ctrl: printable text and UTF-8 bytes unchanged");
	is_str(str_escape_ctrl(buf, 6, "ab\ncd"), "ab",
	       "str_escape_ctrl: an escape that does not fit is left out whole");
	is_str(str_escape_ctrl(buf, 6, "abcdefgh"), "abcde", "str_escape_ctrl: cut to size - 1");
	is_str(str_escape_ctrl(buf, 1, "x"), "", "str_escape_ctrl: size 1 gives an empty string");
	ok(str_has_ctrl("a\nb") && str_has_ctrl("\x7f") && !str_has_ctrl("plain /bin/x \xc3\xa9"),
	   "str_has_ctrl: finds control characters, not printable or UTF-8 bytes");
}

static void test_to_u64(void)
{
	uint64_t v = 7;

	ok(str_to_u64("0", 10, &v) && v == 0, "str_to_u64: 0");
	ok(str_to_u64("10000", 10000, &v) && v == 10000, "str_to_u64: the maximum itself");
	v = 7;
	ok(!str_to_u64("10001", 10000, &v) && v == 7, "str_to_u64: one above: refused, *v kept");
	ok(!str_to_u64("", 10, &v) && !str_to_u64("4x", 10, &v) && !str_to_u64("-1", 10, &v) &&
	   !str_to_u64(" 4", 10, &v) && !str_to_u64("4 ", 10, &v), "str_to_u64: empty, a suffix, "
	   "a sign and spaces are refused");
	ok(!str_to_u64("7", 5, &v) && str_to_u64("5", 5, &v) && v == 5,
	   "str_to_u64: a digit above a one-digit maximum is refused");
	ok(str_to_u64("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX,
	   "str_to_u64: 2^64 - 1");
	ok(!str_to_u64("18446744073709551616", UINT64_MAX, &v) &&
	   !str_to_u64("99999999999999999999999", UINT64_MAX, &v),
	   "str_to_u64: past 2^64 - 1 refused, not wrapped");
	ok(str_to_u64("000256", 256, &v) && v == 256, "str_to_u64: leading zeros");
}

int main(void)
{
	test_memcpy();
	test_mem_alignments();
	test_memmove();
	test_memset();
	test_memcmp();
	test_strlen();
	test_strcmp();
	test_strchr();
	test_strstr();
	test_strlcpy();
	test_escape_ctrl();
	test_to_u64();
	return done_testing();
}
