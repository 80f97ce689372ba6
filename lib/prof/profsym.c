/*
 * Symbol tables for the profiler report: an ELF image's .symtab prepared
 * in place, or nm-format text parsed into symbols (two passes: count the
 * lines, then fill one symbol array and one string table).
 */
#include <lib/profsym.h>
#include <lib/string.h>

#include <stdbool.h>
#include <stdint.h>

errno_t profsym_from_elf(profsym_t *ps, void *image, size_t size)
{
	const elf64_shdr_t *symtab, *strtab;
	errno_t err = elf_find_symtab(image, size, &symtab, &strtab);

	if (err != EOK)
		return err;
	unsigned char *img = image;
	ps->syms = NULL;
	ps->strtab = NULL;
	return elfsym_prepare(&ps->table, (elf64_sym_t *)(img + symtab->sh_offset),
			      symtab->sh_size / sizeof(elf64_sym_t),
			      (const char *)img + strtab->sh_offset, strtab->sh_size);
}

/* ---------------------------------------------------------------- nm text */

/* A cursor over one line of nm output. */
typedef struct nm_line {
	const char *p, *end;
} nm_line_t;

static bool nm_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Next whitespace-separated field of the line; false at its end. */
static bool nm_field(nm_line_t *l, const char **start, size_t *len)
{
	while (l->p < l->end && nm_space(*l->p))
		l->p++;
	if (l->p == l->end)
		return false;
	*start = l->p;
	while (l->p < l->end && !nm_space(*l->p))
		l->p++;
	*len = (size_t)(l->p - *start);
	return true;
}

/* Parse 1..16 hex digits. */
static bool nm_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 16)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static bool nm_text_type(const char *s, size_t len)
{
	return len == 1 && (*s == 'T' || *s == 't' || *s == 'W' || *s == 'w');
}

/*
 * Parse one line: `ADDR TYPE NAME` or `ADDR SIZE TYPE NAME` (nm -S). True
 * for a text symbol, with its address, size (0 if not given) and name (not
 * NUL-terminated).
 */
static bool nm_parse_line(const char *p, const char *end, uint64_t *addr,
			  uint64_t *size, const char **name, size_t *name_len)
{
	nm_line_t l = { p, end };
	const char *f;
	size_t n;

	*size = 0;
	if (!nm_field(&l, &f, &n) || !nm_hex(f, n, addr))
		return false;
	if (!nm_field(&l, &f, &n))
		return false;
	if (n > 1 && nm_hex(f, n, size) && !nm_field(&l, &f, &n))
		return false;
	if (!nm_text_type(f, n))
		return false;
	return nm_field(&l, name, name_len);
}

/* End of the line starting at p (the newline or end). */
static const char *nm_eol(const char *p, const char *end)
{
	while (p < end && *p != '\n')
		p++;
	return p;
}

/*
 * Walk the text; with syms NULL only count the symbols, else also store
 * them and their names (strtab[0] is the empty name).
 */
static size_t nm_walk(const char *text, size_t len, elf64_sym_t *syms,
		      char *strtab)
{
	const char *p = text, *end = text + len;
	size_t count = 0, str = 1;

	while (p < end) {
		const char *eol = nm_eol(p, end), *name;
		size_t name_len;
		uint64_t addr, size;
		if (nm_parse_line(p, eol, &addr, &size, &name, &name_len)) {
			if (syms) {
				elf64_sym_t *s = &syms[count];
				memset(s, 0, sizeof(*s));
				s->st_name = (uint32_t)str;
				s->st_info = (unsigned char)((1u << 4) | STT_FUNC);
				s->st_shndx = 1;
				s->st_value = addr;
				s->st_size = size;
				memcpy(strtab + str, name, name_len);
				strtab[str + name_len] = '\0';
			}
			str += name_len + 1;
			count++;
		}
		p = eol + 1;
	}
	return count;
}

errno_t profsym_from_nm(profsym_t *ps, const char *text, size_t len,
			const profsym_mem_t *mem)
{
	/* Names never take more room than the text plus a NUL per line. */
	size_t count = nm_walk(text, len, NULL, NULL);

	if (count == 0 || len > UINT32_MAX / 2)
		return ENOENT;
	elf64_sym_t *syms = mem->alloc(mem->ctx, count * sizeof(*syms));
	char *strtab = mem->alloc(mem->ctx, len + 2);
	if (!syms || !strtab) {
		if (syms)
			mem->release(mem->ctx, syms);
		if (strtab)
			mem->release(mem->ctx, strtab);
		return ENOMEM;
	}
	strtab[0] = '\0';
	strtab[len + 1] = '\0';
	nm_walk(text, len, syms, strtab);
	ps->syms = syms;
	ps->strtab = strtab;
	return elfsym_prepare(&ps->table, syms, count, strtab, len + 2);
}

void profsym_release(profsym_t *ps, const profsym_mem_t *mem)
{
	if (ps->syms)
		mem->release(mem->ctx, ps->syms);
	if (ps->strtab)
		mem->release(mem->ctx, ps->strtab);
	ps->syms = NULL;
	ps->strtab = NULL;
	ps->table.count = 0;
}
