/* The kernel command line: space-separated words and key=value pairs. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <kernel/types.h>

/* True if word appears as a whole word (or as "word=..."). */
bool cmdline_has(const char *word);

/*
 * Copy the value of key=value into buf (NUL-terminated, truncated to size).
 * Returns true if the key is present.
 */
bool cmdline_get(const char *key, char *buf, size_t size);

/*
 * The decimal value of key=N if it is a number in min..max; def if key is
 * absent or, with a warning on the console, if its value is not such a
 * number (a suffix, a sign, out of range).
 */
uint64_t cmdline_uint(const char *key, uint64_t min, uint64_t max, uint64_t def);

#endif
