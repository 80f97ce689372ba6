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

#endif
