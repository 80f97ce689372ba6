/*
 * Freestanding string and memory functions shared by the kernel, user
 * space and host tools. The mem* functions use the standard names because
 * the compiler emits calls to them.
 *
 * Host builds (unit tests linked against libc) define LIB_HOSTED: every
 * function below is then renamed to lib_<name> so that it neither clashes
 * with nor replaces the C library's version, while kernel builds keep the
 * standard names. Include this header after any system header.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef LIB_HOSTED
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef strlen
#undef strnlen
#undef strcmp
#undef strncmp
#undef strchr
#undef strstr
#undef strlcpy
#define memcpy lib_memcpy
#define memmove lib_memmove
#define memset lib_memset
#define memcmp lib_memcmp
#define strlen lib_strlen
#define strnlen lib_strnlen
#define strcmp lib_strcmp
#define strncmp lib_strncmp
#define strchr lib_strchr
#define strstr lib_strstr
#define strlcpy lib_strlcpy
#endif

/* Copy n bytes from src to dst; the regions must not overlap. Returns dst. */
void *memcpy(void *dst, const void *src, size_t n);

/* Copy n bytes from src to dst; the regions may overlap. Returns dst. */
void *memmove(void *dst, const void *src, size_t n);

/* Fill n bytes at dst with (unsigned char)c. Returns dst. */
void *memset(void *dst, int c, size_t n);

/*
 * Compare n bytes as unsigned char: <0, 0 or >0 as a sorts before, equal
 * to or after b.
 */
int memcmp(const void *a, const void *b, size_t n);

/* Length of the NUL-terminated string s. */
size_t strlen(const char *s);

/* Length of s, reading at most max bytes (returns max if no NUL in them). */
size_t strnlen(const char *s, size_t max);

/* Compare NUL-terminated strings as unsigned char; sign like memcmp. */
int strcmp(const char *a, const char *b);

/* Like strcmp, comparing at most n characters. */
int strncmp(const char *a, const char *b, size_t n);

/*
 * First occurrence of (char)c in s, or NULL; c == '\0' finds the
 * terminator.
 */
char *strchr(const char *s, int c);

/* First occurrence of needle in hay, or NULL; an empty needle gives hay. */
char *strstr(const char *hay, const char *needle);

/* Copy at most size-1 bytes and NUL-terminate (size > 0); returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);

/*
 * s as a decimal number into *v: true if s is one or more digits and
 * nothing else, of value at most max (no overflow: a longer one is
 * refused); *v is left alone otherwise.
 */
bool str_to_u64(const char *s, uint64_t max, uint64_t *v);

/* Non-zero if s holds a control character (below 0x20, or DEL 0x7f). */
int str_has_ctrl(const char *s);

/*
 * Copy src into dst (size > 0) with each control character written as
 * \xHH (a newline: \x0a), cut at a character so that it fits, and
 * NUL-terminate: a user-supplied name or symbol printed this way stays in
 * its log line. The one escaping the kernel uses where it prints such
 * names. Returns dst.
 */
char *str_escape_ctrl(char *dst, size_t size, const char *src);

#endif
