/*
 * ELF symbol tables: locating .symtab in an in-memory image with every
 * offset checked against the image bounds, and address-to-name lookup over
 * a table sorted in place by heapsort (no allocation, no recursion).
 */
#include <lib/elf.h>
#include <lib/string.h>

#include <stdbool.h>

/* ---------------------------------------------------------------- prepare */

static bool elfsym_useful(const elf64_sym_t *s, size_t strtab_size,
			  const char *strtab)
{
	unsigned type = ELF64_ST_TYPE(s->st_info);

	/* STT_NOTYPE in a section: an assembly label (entry stubs, crt0). */
	if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
		return false;
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || s->st_value == 0)
		return false;
	return s->st_name != 0 && s->st_name < strtab_size &&
		strtab[s->st_name] != '\0';
}

/*
 * Sort order: address, then size (so the sized symbol of a group of
 * aliases sorts last and wins lookups), then name offset for determinism.
 */
static bool elfsym_less(const elf64_sym_t *a, const elf64_sym_t *b)
{
	if (a->st_value != b->st_value)
		return a->st_value < b->st_value;
	if (a->st_size != b->st_size)
		return a->st_size < b->st_size;
	return a->st_name < b->st_name;
}

static void elfsym_swap(elf64_sym_t *a, elf64_sym_t *b)
{
	elf64_sym_t tmp = *a;

	*a = *b;
	*b = tmp;
}

/* Restore the max-heap property below root in syms[0..n). */
static void elfsym_sift_down(elf64_sym_t *syms, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && elfsym_less(&syms[child], &syms[child + 1]))
			child++;
		if (!elfsym_less(&syms[root], &syms[child]))
			return;
		elfsym_swap(&syms[root], &syms[child]);
		root = child;
	}
}

static void elfsym_heapsort(elf64_sym_t *syms, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		elfsym_sift_down(syms, i, n);
	for (size_t end = n; end > 1; end--) {
		elfsym_swap(&syms[0], &syms[end - 1]);
		elfsym_sift_down(syms, 0, end - 1);
	}
}

/* Move the useful symbols to the front, keeping nothing else; returns them. */
static size_t elfsym_partition(elf64_sym_t *syms, size_t nsyms,
			       const char *strtab, size_t strtab_size)
{
	size_t kept = 0;

	for (size_t i = 0; i < nsyms; i++) {
		if (!elfsym_useful(&syms[i], strtab_size, strtab))
			continue;
		if (i != kept)
			elfsym_swap(&syms[i], &syms[kept]);
		kept++;
	}
	return kept;
}

errno_t elfsym_prepare(elfsym_table_t *t, elf64_sym_t *syms, size_t nsyms,
		       const char *strtab, size_t strtab_size)
{
	if (!t || (!syms && nsyms > 0) || !strtab || strtab_size == 0)
		return EINVAL;
	/* A NUL at the end bounds every name that starts inside the table. */
	if (strtab[strtab_size - 1] != '\0')
		return EINVAL;

	size_t kept = elfsym_partition(syms, nsyms, strtab, strtab_size);
	elfsym_heapsort(syms, kept);
	t->syms = syms;
	t->count = kept;
	t->strtab = strtab;
	t->strtab_size = strtab_size;
	return EOK;
}

/* ---------------------------------------------------------------- lookup */

const char *elfsym_lookup(const elfsym_table_t *t, uint64_t addr,
			  uint64_t *offset)
{
	/* Find the first symbol above addr; the one before it is the candidate. */
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].st_value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;

	const elf64_sym_t *s = &t->syms[lo - 1];
	uint64_t off = addr - s->st_value;
	if (s->st_size != 0 && off >= s->st_size)
		return NULL;
	if (offset)
		*offset = off;
	return t->strtab + s->st_name;
}

uint64_t elfsym_address(const elfsym_table_t *t, const char *name)
{
	for (size_t i = 0; i < t->count; i++) {
		if (strcmp(t->strtab + t->syms[i].st_name, name) == 0)
			return t->syms[i].st_value;
	}
	return 0;
}

/* ---------------------------------------------------------------- image */

/* Whether [off, off+len) lies within an image of size bytes. */
static bool elf_range_ok(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static bool elf_header_ok(const elf64_ehdr_t *eh)
{
	const unsigned char *id = eh->e_ident;

	return id[0] == ELF_MAG0 && id[1] == 'E' && id[2] == 'L' &&
		id[3] == 'F' && id[4] == ELFCLASS64 && id[5] == ELFDATA2LSB &&
		eh->e_shentsize == sizeof(elf64_shdr_t);
}

/*
 * Validate the section header table and return its entry count in
 * *shnum (handling the extended count kept in section 0). EOK or EINVAL.
 */
static errno_t elf_section_table(const unsigned char *img, size_t size,
				 const elf64_ehdr_t *eh, size_t *shnum)
{
	uint64_t n = eh->e_shnum;

	if (eh->e_shoff == 0) {
		*shnum = 0;
		return EOK;
	}
	if (eh->e_shoff % 8 != 0 ||
	    !elf_range_ok(size, eh->e_shoff, sizeof(elf64_shdr_t)))
		return EINVAL;
	if (n == 0)
		n = ((const elf64_shdr_t *)(img + eh->e_shoff))->sh_size;
	if (n > (size - eh->e_shoff) / sizeof(elf64_shdr_t))
		return EINVAL;
	*shnum = (size_t)n;
	return EOK;
}

/* Whether sh describes a well-formed symbol table inside the image. */
static bool elf_symtab_ok(const elf64_shdr_t *sh, size_t size, size_t shnum)
{
	return sh->sh_entsize == sizeof(elf64_sym_t) &&
		sh->sh_size % sizeof(elf64_sym_t) == 0 &&
		sh->sh_offset % 8 == 0 &&
		elf_range_ok(size, sh->sh_offset, sh->sh_size) &&
		sh->sh_link != 0 && sh->sh_link < shnum;
}

/* Whether sh is a non-empty, NUL-terminated string table in the image. */
static bool elf_strtab_ok(const unsigned char *img, size_t size,
			  const elf64_shdr_t *sh)
{
	return sh->sh_type == SHT_STRTAB && sh->sh_size > 0 &&
		elf_range_ok(size, sh->sh_offset, sh->sh_size) &&
		img[sh->sh_offset + sh->sh_size - 1] == '\0';
}

errno_t elf_find_symtab(const void *image, size_t size,
			const elf64_shdr_t **symtab_hdr,
			const elf64_shdr_t **strtab_hdr)
{
	const unsigned char *img = image;
	size_t shnum;

	if (!img || (uintptr_t)img % 8 != 0 || size < sizeof(elf64_ehdr_t))
		return EINVAL;
	const elf64_ehdr_t *eh = image;
	if (!elf_header_ok(eh))
		return EINVAL;
	errno_t err = elf_section_table(img, size, eh, &shnum);
	if (err != EOK)
		return err;

	const elf64_shdr_t *sh = (const elf64_shdr_t *)(img + eh->e_shoff);
	for (size_t i = 0; i < shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		if (!elf_symtab_ok(&sh[i], size, shnum) ||
		    !elf_strtab_ok(img, size, &sh[sh[i].sh_link]))
			return EINVAL;
		*symtab_hdr = &sh[i];
		*strtab_hdr = &sh[sh[i].sh_link];
		return EOK;
	}
	return ENOENT;
}
