/*
 * Programs from the initrd or passed by tasks, checked once and cached: the ELF load plan and
 * a sorted copy of the symbol table, so faults and (later) profiler samples
 * of a task symbolize even after it exited.
 */
#ifndef KERNEL_BINARY_H
#define KERNEL_BINARY_H

#include <kernel/types.h>
#include <lib/elf.h>
#include <lib/elfload.h>
#include <lib/list.h>

#define BINARY_CACHE_MAX 512

typedef struct binary {
	list_node_t node;
	char path[128];
	const void *image;           /* in the initrd; NULL for a passed image */
	size_t size;
	uint64_t hash;               /* of a passed image; 0: from the initrd */
	char *strtab;                /* a passed image's string table copy */
	elf_plan_t plan;
	elfsym_table_t syms;
	bool have_syms;
} binary_t;

/* Find the initrd module; logs what it holds. */
void initrd_init(void);

/* Raw file from the initrd: EOK with its data and size, or ENOENT. */
errno_t initrd_find(const char *path, const void **data, size_t *size);

/*
 * The binary at path, loaded from the initrd and checked (cached).
 * Returns EOK and *out, ENOENT, ENOEXEC or ENOMEM.
 */
errno_t binary_get(const char *path, binary_t **out);

/*
 * The binary of an ELF image passed by a task (kernel copy at image, size
 * bytes), found by path and content hash or checked and cached. The cache
 * keeps the load plan and symbols, not the image: the caller loads from
 * its own copy. At most BINARY_CACHE_MAX binaries are cached (ELIMIT
 * beyond). Returns EOK and *out, ENOEXEC, ENOMEM or ELIMIT.
 */
errno_t binary_get_image(const char *path, const void *image, size_t size,
			 binary_t **out);

/* Symbol of addr in b, or NULL; *off the offset into it. */
const char *binary_symbol(const binary_t *b, uint64_t addr, uint64_t *off);

#endif
