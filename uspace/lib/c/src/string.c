/*
 * The string.h functions beyond the shared core in lib/string.c. Plain
 * byte loops.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	}
	return NULL;
}

void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	while (n-- > 0) {
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	}
	return NULL;
}

void *memccpy(void *dst, const void *src, int c, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n; i++) {
		d[i] = s[i];
		if (s[i] == (unsigned char)c)
			return d + i + 1;
	}
	return NULL;
}

void *mempcpy(void *dst, const void *src, size_t n)
{
	return (char *)memcpy(dst, src, n) + n;
}

char *stpcpy(char *dst, const char *src)
{
	size_t n = strlen(src);

	memcpy(dst, src, n + 1);
	return dst + n;
}

char *strcpy(char *dst, const char *src)
{
	stpcpy(dst, src);
	return dst;
}

char *strncpy(char *dst, const char *src, size_t n)
{
	size_t k = strnlen(src, n);

	memcpy(dst, src, k);
	memset(dst + k, 0, n - k);
	return dst;
}

char *strcat(char *dst, const char *src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

char *strncat(char *dst, const char *src, size_t n)
{
	char *end = dst + strlen(dst);
	size_t k = strnlen(src, n);

	memcpy(end, src, k);
	end[k] = '\0';
	return dst;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t have = strnlen(dst, size);

	if (have == size)
		return size + strlen(src);
	return have + strlcpy(dst + have, src, size - have);
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

/* Whether byte c occurs in the NUL-terminated set. */
static int in_set(char c, const char *set)
{
	for (; *set != '\0'; set++) {
		if (*set == c)
			return 1;
	}
	return 0;
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] != '\0' && in_set(s[n], accept))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] != '\0' && !in_set(s[n], reject))
		n++;
	return n;
}

char *strpbrk(const char *s, const char *accept)
{
	s += strcspn(s, accept);
	return *s != '\0' ? (char *)s : NULL;
}

int strcoll(const char *a, const char *b)
{
	return strcmp(a, b);
}

char *strndup(const char *s, size_t n)
{
	size_t k = strnlen(s, n);
	char *d = malloc(k + 1);

	if (d) {
		memcpy(d, s, k);
		d[k] = '\0';
	}
	return d;
}

char *strdup(const char *s)
{
	return strndup(s, SIZE_MAX);
}

char *strtok_r(char *s, const char *delim, char **save)
{
	if (!s)
		s = *save;
	if (!s)
		return NULL;
	s += strspn(s, delim);
	if (*s == '\0') {
		*save = NULL;
		return NULL;
	}
	char *end = s + strcspn(s, delim);
	*save = *end != '\0' ? end + 1 : NULL;
	*end = '\0';
	return s;
}

char *strtok(char *s, const char *delim)
{
	static char *save;

	return strtok_r(s, delim, &save);
}

char *strsep(char **sp, const char *delim)
{
	char *s = *sp;

	if (!s)
		return NULL;
	char *end = s + strcspn(s, delim);
	if (*end != '\0') {
		*end = '\0';
		*sp = end + 1;
	} else {
		*sp = NULL;
	}
	return s;
}

int strcasecmp(const char *a, const char *b)
{
	return strncasecmp(a, b, SIZE_MAX);
}

int strncasecmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int x = tolower((unsigned char)a[i]);
		int y = tolower((unsigned char)b[i]);
		if (x != y)
			return x < y ? -1 : 1;
		if (x == '\0')
			break;
	}
	return 0;
}

int ffs(int v)
{
	return __builtin_ffs(v);
}
