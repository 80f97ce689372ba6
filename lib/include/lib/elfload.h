/*
 * Checking a static ELF64 executable and planning how to load it: which
 * segments go where with which protection. Pure (the kernel's loader maps
 * and copies; tools reuse it). Every offset and size is validated.
 */
#ifndef LIB_ELFLOAD_H
#define LIB_ELFLOAD_H

#include <abi/errno.h>
#include <lib/elf.h>

#define ELF_MAX_SEGMENTS 8
#define ELF_PAGE 4096ull

typedef struct elf_segment {
	uint64_t vaddr, memsz;      /* where, how much (memsz >= filesz) */
	uint64_t offset, filesz;    /* bytes copied from the file */
	unsigned prot;              /* PROT_READ/WRITE/EXEC (abi/syscall.h) */
} elf_segment_t;

typedef struct elf_plan {
	uint64_t entry;
	elf_segment_t segs[ELF_MAX_SEGMENTS];
	size_t nsegs;
	uint64_t text_start, text_end;   /* the executable segment(s) */
} elf_plan_t;

/*
 * Validate image (size bytes) as an x86-64 static executable whose
 * segments lie within [lo, hi), are page-disjoint and never both writable
 * and executable, with the entry in an executable segment. Returns EOK
 * and *plan, or ENOEXEC (not such an executable / a rule is broken).
 */
errno_t elf_load_plan(const void *image, size_t size, uint64_t lo, uint64_t hi,
		      elf_plan_t *plan);

#endif
