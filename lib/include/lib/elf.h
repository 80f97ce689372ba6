/*
 * ELF64 structures (from the System V ABI) and symbol lookup over a
 * symbol table held in memory. Freestanding: no allocation; used by the
 * kernel for its own backtraces, by user-space profilers and by host tools.
 */
#ifndef LIB_ELF_H
#define LIB_ELF_H

#include <abi/errno.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAG0 0x7f
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62

#define SHT_NULL 0
#define SHT_PROGBITS 1
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8

#define PT_LOAD 1
#define PF_X 1
#define PF_W 2
#define PF_R 4

#define STT_NOTYPE 0
#define STT_OBJECT 1
#define STT_FUNC 2
#define STT_SECTION 3
#define STT_FILE 4
#define ELF64_ST_TYPE(info) ((info) & 0xf)
#define ELF64_ST_BIND(info) ((info) >> 4)
#define SHN_UNDEF 0
#define SHN_LORESERVE 0xff00
#define SHN_ABS 0xfff1

typedef struct {
	unsigned char e_ident[16];
	uint16_t e_type;
	uint16_t e_machine;
	uint32_t e_version;
	uint64_t e_entry;
	uint64_t e_phoff;
	uint64_t e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize;
	uint16_t e_phentsize;
	uint16_t e_phnum;
	uint16_t e_shentsize;
	uint16_t e_shnum;
	uint16_t e_shstrndx;
} elf64_ehdr_t;

typedef struct {
	uint32_t p_type;
	uint32_t p_flags;
	uint64_t p_offset;
	uint64_t p_vaddr;
	uint64_t p_paddr;
	uint64_t p_filesz;
	uint64_t p_memsz;
	uint64_t p_align;
} elf64_phdr_t;

typedef struct {
	uint32_t sh_name;
	uint32_t sh_type;
	uint64_t sh_flags;
	uint64_t sh_addr;
	uint64_t sh_offset;
	uint64_t sh_size;
	uint32_t sh_link;
	uint32_t sh_info;
	uint64_t sh_addralign;
	uint64_t sh_entsize;
} elf64_shdr_t;

typedef struct {
	uint32_t st_name;
	unsigned char st_info;
	unsigned char st_other;
	uint16_t st_shndx;
	uint64_t st_value;
	uint64_t st_size;
} elf64_sym_t;

/*
 * A symbol table prepared for lookups: syms[0..count) are the function,
 * object and untyped (assembly label) symbols defined in a section, with a
 * name and a nonzero address, sorted by address.
 */
typedef struct elfsym_table {
	elf64_sym_t *syms;
	size_t count;
	const char *strtab;
	size_t strtab_size;
} elfsym_table_t;

/*
 * Prepare a table in place: syms/nsyms is a writable copy of an SHT_SYMTAB
 * section and strtab its linked string table. Useful symbols are moved to
 * the front and heap-sorted by address (no allocation, no recursion).
 * Useful means STT_FUNC or STT_OBJECT, defined (st_shndx != SHN_UNDEF),
 * st_value != 0, and a non-empty name inside the string table. Aliases at
 * one address sort by st_size, so a sized symbol wins over a zero-size one.
 * Returns EOK, or EINVAL when the arguments are inconsistent (t or strtab
 * NULL, syms NULL with nsyms > 0, strtab_size 0, or a string table whose
 * last byte is not NUL). strtab must outlive the table.
 */
errno_t elfsym_prepare(elfsym_table_t *t, elf64_sym_t *syms, size_t nsyms,
		       const char *strtab, size_t strtab_size);

/*
 * Find the symbol containing addr: the last symbol at or below addr, and
 * within its st_size when that is nonzero (addresses past the end of a sized
 * symbol are not attributed to it). Returns the symbol name and sets *offset
 * (when offset is not NULL) to addr - st_value, or returns NULL when nothing
 * contains addr. O(log count).
 */
const char *elfsym_lookup(const elfsym_table_t *t, uint64_t addr,
			  uint64_t *offset);

/*
 * Address of the symbol named name, or 0 when absent. Linear scan: for
 * tests and tools, not hot paths.
 */
uint64_t elfsym_address(const elfsym_table_t *t, const char *name);

/*
 * Locate the symbol table of an ELF64 image held in memory (image/size):
 * returns EOK and sets *symtab_hdr and *strtab_hdr, or EINVAL for an image that
 * is not ELF64 little-endian or is truncated, or ENOENT without .symtab.
 * image must be 8-byte aligned. Never reads outside [image, image+size),
 * whatever the contents. On EOK both sections lie inside the image, the
 * symbol table has sh_entsize == sizeof(elf64_sym_t), a size that is a
 * multiple of it and an 8-byte aligned offset, and the string table is
 * non-empty and ends with a NUL, so both can go to elfsym_prepare (after
 * copying the symbols if the image is read-only).
 */
errno_t elf_find_symtab(const void *image, size_t size,
			const elf64_shdr_t **symtab_hdr,
			const elf64_shdr_t **strtab_hdr);

#endif
