/* General utilities: memory, conversions, sorting, process exit. */
#ifndef _STDLIB_H
#define _STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
/* Exit status abort() reports (128 + SIGABRT, like a shell would show). */
#define EXIT_ABORT 134
#define RAND_MAX 0x7fffffff
#define MB_CUR_MAX 1

typedef struct { int quot, rem; } div_t;
typedef struct { long quot, rem; } ldiv_t;
typedef struct { long long quot, rem; } lldiv_t;

/*
 * Memory (src/malloc.c): a boundary-tag allocator over SYS_MAP pages with
 * segregated free lists and coalescing; blocks of 128 KiB and more get a
 * mapping of their own, unmapped by free. Thread-safe (one spinlock).
 * Results are 16-byte aligned; malloc(0) returns a unique pointer. On
 * failure: NULL and errno = ENOMEM. free() of a pointer malloc did not
 * return, or a second free, may abort with a message on stderr.
 */
void *malloc(size_t size);
void free(void *ptr);
/* n * size zeroed bytes; NULL (ENOMEM) if the product overflows. */
void *calloc(size_t n, size_t size);
/*
 * Resize ptr to size, keeping the first min(old, new) bytes; may move it.
 * realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL.
 * On failure returns NULL and leaves ptr untouched.
 */
void *realloc(void *ptr, size_t size);
/* realloc(ptr, n * size) with an overflow check. */
void *reallocarray(void *ptr, size_t n, size_t size);
/* size bytes aligned to align (a power of two); NULL + EINVAL otherwise. */
void *aligned_alloc(size_t align, size_t size);
/* Like aligned_alloc, POSIX style: returns 0, EINVAL or ENOMEM. */
int posix_memalign(void **out, size_t align, size_t size);
/* Bytes usable at ptr (at least what was asked for); 0 for NULL. */
size_t malloc_usable_size(void *ptr);

/*
 * Conversions: skip leading white space, take an optional sign, then an
 * optional "0x"/"0X" (base 16 or 0) or "0" (base 0: octal) prefix, then
 * digits of base (2..36, or 0 to pick 8, 10 or 16 from the prefix). *end
 * (when end is not NULL) is set past the last digit used, or to s when
 * there were none. Out of range: the type's extreme value and errno =
 * ERANGE; an invalid base: 0 and errno = EINVAL. The unsigned variants
 * accept a '-' and negate in the unsigned type, as C specifies.
 */
long strtol(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);

/*
 * Floating-point conversions (src/strtod.c): decimal or hex ("0x1.8p3")
 * text, inf/infinity, nan/nan(chars), after white space and a sign;
 * correctly rounded to nearest-even (strtold: for up to 800 significant
 * digits). *end past the number (s if none: 0 returned). errno = ERANGE on
 * overflow (+-HUGE_VAL) and on an inexact result below the smallest
 * normal (as glibc). atof(s) is strtod(s, NULL).
 */
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
long double strtold(const char *s, char **end);
double atof(const char *s);

/*
 * Run cmd with the shell (/bin/sh -c cmd) and wait for it: its exit code
 * as a shell shows it (0..255; 130 killed, 139 a fault), or -1 with errno
 * if it could not start. system(NULL) is 1 if /bin/sh exists.
 */
int system(const char *cmd);

/* strtol(s, NULL, 10) truncated to the type (no error reporting). */
int atoi(const char *s);
long atol(const char *s);
long long atoll(const char *s);

/* |v| (undefined for the most negative value, as in C). */
int abs(int v);
long labs(long v);
long long llabs(long long v);
/* Quotient and remainder of num / den (truncating); den != 0. */
div_t div(int num, int den);
ldiv_t ldiv(long num, long den);
lldiv_t lldiv(long long num, long long den);

/*
 * Sort n elements of size bytes at base in ascending cmp order: an
 * introsort (quicksort with median-of-three or ninther pivots, insertion
 * sort for short runs and heapsort past a depth limit), so O(n log n) at
 * worst and O(log n) stack. Not stable.
 */
void qsort(void *base, size_t n, size_t size,
	   int (*cmp)(const void *, const void *));
/* qsort with a context pointer passed to cmp as its third argument. */
void qsort_r(void *base, size_t n, size_t size,
	     int (*cmp)(const void *, const void *, void *), void *ctx);
/* An element of the sorted array base equal to key, or NULL. */
void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

/* Pseudo-random numbers in [0, RAND_MAX] (process-wide state). */
int rand(void);
void srand(unsigned seed);

/*
 * Register fn to run at exit(); at most 32 handlers. Returns 0, or -1 when
 * the table is full.
 */
int atexit(void (*fn)(void));
/*
 * Run the atexit handlers (last registered first), flush every stdio
 * stream, then end the task with status (0..255 as the parent sees it).
 */
__attribute__((noreturn)) void exit(int status);
/* End the task at once: no handlers, no flushing. */
__attribute__((noreturn)) void _Exit(int status);
/*
 * Abnormal end: exits with EXIT_ABORT without running handlers or
 * flushing buffers.
 */
__attribute__((noreturn)) void abort(void);

/* The value of environment variable name ("NAME=value"), or NULL. */
char *getenv(const char *name);

#endif
