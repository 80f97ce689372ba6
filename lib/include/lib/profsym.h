/*
 * Symbol tables of profiled binaries for lib/prof/profreport.c: from an ELF
 * image's .symtab, or from nm-format text (`ADDR TYPE NAME` lines, also
 * `ADDR SIZE TYPE NAME`; only text symbols T t W w are kept). Both end as
 * an elfsym_table_t (lib/elf.h), searched by elfsym_lookup. Freestanding.
 */
#ifndef LIB_PROFSYM_H
#define LIB_PROFSYM_H

#include <abi/errno.h>
#include <lib/elf.h>
#include <stddef.h>

/* Memory callbacks (as in prof_env_t). */
typedef struct profsym_mem {
	void *ctx;
	void *(*alloc)(void *ctx, size_t size);
	void (*release)(void *ctx, void *p);
} profsym_mem_t;

/* A prepared table and the memory it points into (owned by the caller). */
typedef struct profsym {
	elfsym_table_t table;
	void *syms;             /* nm: the symbol array (NULL for ELF) */
	void *strtab;           /* nm: the string table (NULL for ELF) */
} profsym_t;

/*
 * Prepare the .symtab of the ELF image (writable, 8-byte aligned, size
 * bytes) in place: ps->table then points into image, which must outlive
 * it. EOK; EINVAL for a malformed image; ENOENT without .symtab.
 */
errno_t profsym_from_elf(profsym_t *ps, void *image, size_t size);

/*
 * Parse nm text (len bytes, need not be NUL-terminated) into a table whose
 * arrays come from mem and are left in ps->syms and ps->strtab for the
 * caller to release (profsym_release). Lines that do not parse or are not
 * text symbols are skipped. EOK; ENOENT when no symbol was found and
 * ENOMEM (nothing is kept on either).
 */
errno_t profsym_from_nm(profsym_t *ps, const char *text, size_t len,
			const profsym_mem_t *mem);

/* Release what profsym_from_nm allocated (nothing for ELF tables). */
void profsym_release(profsym_t *ps, const profsym_mem_t *mem);

#endif
