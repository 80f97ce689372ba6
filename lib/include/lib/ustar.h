/*
 * Reading USTAR archives held in memory (the initrd). Every header and
 * size is checked against the archive's bounds.
 */
#ifndef LIB_USTAR_H
#define LIB_USTAR_H

#include <abi/errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USTAR_NAME_MAX 256

typedef struct ustar_entry {
	char name[USTAR_NAME_MAX];   /* "bin/init" (no leading "./" or "/") */
	char type;                   /* '0' file, '5' directory, ... */
	const void *data;
	size_t size;
	uint32_t mode;
} ustar_entry_t;

/*
 * Iterate: *offset starts at 0; each call fills *e with the next entry and
 * advances *offset. Returns EOK, ENOENT at the end, or EINVAL for a
 * malformed header (bad magic, checksum or size past the end).
 */
errno_t ustar_next(const void *archive, size_t size, size_t *offset,
		   ustar_entry_t *e);

/*
 * Find path ("/bin/init" or "bin/init") among the regular files. Returns
 * EOK and *e, ENOENT, or EINVAL for a malformed archive.
 */
errno_t ustar_find(const void *archive, size_t size, const char *path,
		   ustar_entry_t *e);

#endif
