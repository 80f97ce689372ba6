/*
 * Programs from the initrd, checked once and cached: the ELF load plan and
 * a sorted copy of the symbol table, so faults and (later) profiler samples
 * of a task symbolize even after it exited.
 */
#ifndef KERNEL_BINARY_H
#define KERNEL_BINARY_H

#include <kernel/types.h>
#include <lib/elf.h>
#include <lib/elfload.h>
#include <lib/list.h>

typedef struct binary {
	list_node_t node;
	char path[128];
	const void *image;
	size_t size;
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

/* Symbol of addr in b, or NULL; *off the offset into it. */
const char *binary_symbol(const binary_t *b, uint64_t addr, uint64_t *off);

#endif
