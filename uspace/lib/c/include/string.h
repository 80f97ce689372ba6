/*
 * Strings and memory. The core (memcpy, memmove, memset, memcmp, strlen,
 * strnlen, strcmp, strncmp, strchr, strstr, strlcpy) is the code shared
 * with the kernel, declared in <lib/string.h>; the rest is src/string.c.
 */
#ifndef _STRING_H
#define _STRING_H

#include <stddef.h>
#include <lib/string.h>

/* First byte equal to (unsigned char)c among the n at s, or NULL. */
void *memchr(const void *s, int c, size_t n);
/* Last byte equal to (unsigned char)c among the n at s, or NULL. */
void *memrchr(const void *s, int c, size_t n);
/* Copy up to and including the first byte equal to c; returns the byte
 * after it in dst, or NULL if c was not among the n bytes. */
void *memccpy(void *dst, const void *src, int c, size_t n);
/* memcpy returning dst + n. */
void *mempcpy(void *dst, const void *src, size_t n);

/* Copy src with its NUL to dst; returns dst. */
char *strcpy(char *dst, const char *src);
/* Like strcpy but returns the address of the NUL written in dst. */
char *stpcpy(char *dst, const char *src);
/* Copy at most n bytes; pad with NULs up to n (no NUL if src is longer). */
char *strncpy(char *dst, const char *src, size_t n);
/* Append src to dst; returns dst. */
char *strcat(char *dst, const char *src);
/* Append at most n bytes of src and a NUL; returns dst. */
char *strncat(char *dst, const char *src, size_t n);
/*
 * Append src to the string in dst of capacity size, keeping a NUL;
 * returns the length the result would have had (truncation if >= size).
 */
size_t strlcat(char *dst, const char *src, size_t size);

/* Last occurrence of (char)c in s (c == 0 finds the NUL), or NULL. */
char *strrchr(const char *s, int c);
/* Length of the prefix of s made of bytes in accept. */
size_t strspn(const char *s, const char *accept);
/* Length of the prefix of s made of bytes not in reject. */
size_t strcspn(const char *s, const char *reject);
/* First byte of s that is in accept, or NULL. */
char *strpbrk(const char *s, const char *accept);
/* strcmp: there is only the C locale. */
int strcoll(const char *a, const char *b);

/* Copy of s in malloc'd memory, or NULL (ENOMEM). */
char *strdup(const char *s);
/* Copy of at most n bytes of s plus a NUL, malloc'd; or NULL. */
char *strndup(const char *s, size_t n);

/*
 * Split a string into tokens separated by bytes of delim. strtok_r keeps
 * its position in *save: pass the string first, then NULL; NULL once no
 * token is left. strtok keeps it in a static (not thread-safe).
 */
char *strtok_r(char *s, const char *delim, char **save);
char *strtok(char *s, const char *delim);
/*
 * Take the token of *sp up to the first byte of delim, overwrite that
 * byte with a NUL and advance *sp past it (NULL at the end); returns the
 * token, or NULL when *sp is NULL. Empty tokens are returned.
 */
char *strsep(char **sp, const char *delim);

/* Message for an error code ("Unknown error N" for others; static). */
char *strerror(int err);
/* Write strerror(err) to buf of size bytes; returns 0 or ERANGE if cut. */
int strerror_r(int err, char *buf, size_t size);

/* Case-insensitive comparisons (ASCII), also in <strings.h>. */
int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);

#endif
