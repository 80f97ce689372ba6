/*
 * String and memory functions: byte loops, except memcpy and memset, which
 * move 8-byte words once the destination is aligned (a kernel stack is
 * zeroed on every thread creation: 28 KiB byte by byte was most of the
 * cost). The mem* functions are marked so GCC never turns their loops
 * back into calls to themselves.
 */
#include <lib/string.h>

#include <stdint.h>

#define LIB_NO_PATTERNS \
	__attribute__((optimize("no-tree-loop-distribute-patterns")))

/* A 64-bit word that may alias anything and sit anywhere (x86 allows it). */
typedef uint64_t __attribute__((may_alias, aligned(1))) lib_word_t;

LIB_NO_PATTERNS
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (; n && ((uintptr_t)d & 7); n--)
		*d++ = *s++;
	for (; n >= 8; n -= 8, d += 8, s += 8)
		*(lib_word_t *)d = *(const lib_word_t *)s;
	while (n-- > 0)
		*d++ = *s++;
	return dst;
}

LIB_NO_PATTERNS
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d - (uintptr_t)s >= n) {
		/* dst is below src or past its end: copying forwards is safe. */
		while (n-- > 0)
			*d++ = *s++;
	} else {
		while (n-- > 0)
			d[n] = s[n];
	}
	return dst;
}

LIB_NO_PATTERNS
void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;

	for (; n && ((uintptr_t)d & 7); n--)
		*d++ = (unsigned char)c;
	for (; n >= 8; n -= 8, d += 8)
		*(lib_word_t *)d = w;
	while (n-- > 0)
		*d++ = (unsigned char)c;
	return dst;
}

LIB_NO_PATTERNS
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a;
	const unsigned char *y = b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	return 0;
}

LIB_NO_PATTERNS
size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

LIB_NO_PATTERNS
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	return *x == *y ? 0 : (*x < *y ? -1 : 1);
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
		if (x[i] == '\0')
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	char ch = (char)c;

	for (;; s++) {
		if (*s == ch)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return (char *)hay;
	for (; *hay != '\0'; hay++) {
		if (*hay == *needle && strncmp(hay, needle, n) == 0)
			return (char *)hay;
	}
	return NULL;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t k = len < size - 1 ? len : size - 1;
		memcpy(dst, src, k);
		dst[k] = '\0';
	}
	return len;
}

/* Is c a control character: below 0x20, or DEL? */
static int str_is_ctrl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool str_to_u64(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || n > max / 10 || d > max - n * 10)
			return false;
		n = n * 10 + d;
	}
	*v = n;
	return true;
}

int str_has_ctrl(const char *s)
{
	for (; *s; s++)
		if (str_is_ctrl((unsigned char)*s))
			return 1;
	return 0;
}

char *str_escape_ctrl(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;

	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		size_t need = str_is_ctrl(c) ? 4 : 1;
		if (at + need >= size)
			break;
		if (need == 1) {
			dst[at++] = (char)c;
			continue;
		}
		dst[at++] = '\\';
		dst[at++] = 'x';
		dst[at++] = hex[c >> 4];
		dst[at++] = hex[c & 15];
	}
	dst[at] = '\0';
	return dst;
}
