/* BSD string functions: case-insensitive comparisons (ASCII). */
#ifndef _STRINGS_H
#define _STRINGS_H

#include <stddef.h>

/* Compare ignoring ASCII case; sign like strcmp. */
int strcasecmp(const char *a, const char *b);
/* strcasecmp over at most n bytes. */
int strncasecmp(const char *a, const char *b, size_t n);
/* Index (1-based) of the lowest set bit of v, or 0 if v is 0. */
int ffs(int v);

#endif
