/*
 * Unit tests for lib/elfsym.c: a synthetic symbol table (filtering, order,
 * lookups at the edges), a large randomized table against a naive search,
 * the test binary's own .symtab read from /proc/self/exe, and fuzzing of
 * elf_find_symtab with truncated and corrupted images. Out-of-bounds reads
 * are caught by ASan: truncated images are exact-size allocations or have
 * their tail poisoned.
 */
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/elf.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ---------------------------------------------------------------- helpers */

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static elf64_sym_t mksym(uint32_t name, unsigned type, uint16_t shndx,
			 uint64_t value, uint64_t size)
{
	elf64_sym_t s = {
		.st_name = name,
		.st_info = (unsigned char)((1u << 4) | type), /* STB_GLOBAL */
		.st_other = 0,
		.st_shndx = shndx,
		.st_value = value,
		.st_size = size,
	};
	return s;
}

static bool is_sorted(const elfsym_table_t *t)
{
	for (size_t i = 1; i < t->count; i++)
		if (t->syms[i - 1].st_value > t->syms[i].st_value)
			return false;
	return true;
}

/* ---------------------------------------------------------------- synthetic */

/* Offsets of each name in the string table below. */
enum {
	N_ALPHA = 1, N_BETA = 7, N_GAMMA = 12, N_DELTA = 18, N_FILE = 24,
	N_SECT = 31, N_UNDEF = 36, N_ZERO = 42, N_NOTYPE = 47, N_ALIAS = 54,
};
static const char strtab[] =
	"\0alpha\0beta\0gamma\0delta\0file.c\0sect\0undef\0zero\0notype\0alias";

static size_t build_synthetic(elf64_sym_t *syms)
{
	size_t n = 0;

	syms[n++] = mksym(0, STT_NOTYPE, SHN_UNDEF, 0, 0);
	syms[n++] = mksym(N_GAMMA, STT_FUNC, 1, 0x3000, 0x100);
	syms[n++] = mksym(N_FILE, STT_FILE, SHN_ABS, 0, 0);
	syms[n++] = mksym(N_ALPHA, STT_FUNC, 1, 0x1000, 0x10);
	syms[n++] = mksym(N_SECT, STT_SECTION, 1, 0x1000, 0);
	syms[n++] = mksym(N_UNDEF, STT_FUNC, SHN_UNDEF, 0x5000, 0x10);
	syms[n++] = mksym(N_ZERO, STT_FUNC, 1, 0, 0x10);
	syms[n++] = mksym(N_BETA, STT_OBJECT, 2, 0x2000, 0);
	syms[n++] = mksym(N_DELTA, STT_FUNC, 1, 0x4000, 0x2000);
	syms[n++] = mksym(9999, STT_FUNC, 1, 0x1100, 0x10);
	syms[n++] = mksym(0, STT_FUNC, 1, 0x1500, 0x10);
	syms[n++] = mksym(N_NOTYPE, STT_NOTYPE, 1, 0x1800, 0);
	syms[n++] = mksym(N_ALIAS, STT_FUNC, 1, 0x3000, 0);
	return n;
}

static void check_lookup(const elfsym_table_t *t, uint64_t addr,
			 const char *name, uint64_t off)
{
	uint64_t got_off = 0xdeadbeef;
	const char *got = elfsym_lookup(t, addr, &got_off);

	is_str(got, name, "lookup %#llx", (unsigned long long)addr);
	if (name)
		is_uint(got_off, off, "  offset of %#llx", (unsigned long long)addr);
}

static void test_synthetic(void)
{
	elf64_sym_t syms[16];
	elfsym_table_t t;
	size_t n = build_synthetic(syms);

	is_int(elfsym_prepare(&t, syms, n, strtab, sizeof(strtab)), EOK,
	       "prepare synthetic table");
	is_uint(t.count, 6, "only alpha, beta, gamma, delta, alias, notype are kept");
	ok(t.syms == syms && t.strtab == strtab &&
	   t.strtab_size == sizeof(strtab), "table fields point at the inputs");
	ok(is_sorted(&t), "kept symbols are sorted by address");
	is_uint(t.syms[0].st_value, 0x1000, "first is alpha");
	is_uint(t.syms[5].st_value, 0x4000, "last is delta");

	check_lookup(&t, 0, NULL, 0);
	check_lookup(&t, 0xfff, NULL, 0);
	check_lookup(&t, 0x1000, "alpha", 0);
	check_lookup(&t, 0x100f, "alpha", 0xf);
	check_lookup(&t, 0x1010, NULL, 0);          /* past alpha's size */
	check_lookup(&t, 0x1500, NULL, 0);          /* nameless symbol dropped */
	check_lookup(&t, 0x1800, "notype", 0);     /* assembly label kept */
	check_lookup(&t, 0x18ff, "notype", 0xff);
	check_lookup(&t, 0x2000, "beta", 0);
	check_lookup(&t, 0x2fff, "beta", 0xfff);    /* zero size: open-ended */
	check_lookup(&t, 0x3000, "gamma", 0);       /* sized alias wins */
	check_lookup(&t, 0x30ff, "gamma", 0xff);
	check_lookup(&t, 0x3100, NULL, 0);
	check_lookup(&t, 0x4000, "delta", 0);
	check_lookup(&t, 0x5000, "delta", 0x1000);  /* undefined one dropped */
	check_lookup(&t, 0x5fff, "delta", 0x1fff);
	check_lookup(&t, 0x6000, NULL, 0);          /* past the end */
	check_lookup(&t, UINT64_MAX, NULL, 0);
	is_str(elfsym_lookup(&t, 0x1004, NULL), "alpha", "lookup with NULL offset");

	is_uint(elfsym_address(&t, "gamma"), 0x3000, "address of gamma");
	is_uint(elfsym_address(&t, "beta"), 0x2000, "address of beta");
	is_uint(elfsym_address(&t, "alias"), 0x3000, "address of alias");
	is_uint(elfsym_address(&t, "file.c"), 0, "dropped STT_FILE has no address");
	is_uint(elfsym_address(&t, "undef"), 0, "dropped undefined has no address");
	is_uint(elfsym_address(&t, "nosuch"), 0, "unknown name");
	is_uint(elfsym_address(&t, ""), 0, "empty name");
}

static void test_prepare_errors(void)
{
	elf64_sym_t syms[16];
	elfsym_table_t t;
	size_t n = build_synthetic(syms);
	static const char unterminated[] = { 0, 'a', 'b' };

	is_int(elfsym_prepare(NULL, syms, n, strtab, sizeof(strtab)), EINVAL,
	       "prepare: NULL table");
	is_int(elfsym_prepare(&t, NULL, 3, strtab, sizeof(strtab)), EINVAL,
	       "prepare: NULL symbols");
	is_int(elfsym_prepare(&t, syms, n, NULL, 10), EINVAL,
	       "prepare: NULL string table");
	is_int(elfsym_prepare(&t, syms, n, strtab, 0), EINVAL,
	       "prepare: empty string table");
	is_int(elfsym_prepare(&t, syms, n, unterminated, sizeof(unterminated)),
	       EINVAL, "prepare: string table without final NUL");

	is_int(elfsym_prepare(&t, NULL, 0, strtab, sizeof(strtab)), EOK,
	       "prepare: no symbols");
	is_uint(t.count, 0, "  count 0");
	ok(elfsym_lookup(&t, 0x1000, NULL) == NULL, "  lookup in empty table");

	/* A string table cut short: names past its end are dropped. */
	n = build_synthetic(syms);
	is_int(elfsym_prepare(&t, syms, n, strtab, N_GAMMA), EOK,
	       "prepare with a shorter string table");
	is_uint(t.count, 2, "  only alpha and beta have names inside it");
}

/* ---------------------------------------------------------------- random */

/* Reference: the last symbol (in sort order) at or below addr. */
static const char *naive_lookup(const elfsym_table_t *t, uint64_t addr,
				uint64_t *off)
{
	const elf64_sym_t *best = NULL;

	for (size_t i = 0; i < t->count; i++)
		if (t->syms[i].st_value <= addr)
			best = &t->syms[i];
	if (!best || (best->st_size && addr - best->st_value >= best->st_size))
		return NULL;
	*off = addr - best->st_value;
	return t->strtab + best->st_name;
}

#define RAND_STRTAB 4096
#define RAND_SYMS 5000

static bool sym_useful(const elf64_sym_t *s, const char *str, size_t size)
{
	unsigned type = ELF64_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_OBJECT || type == STT_NOTYPE) &&
		s->st_shndx != SHN_UNDEF && s->st_shndx < SHN_LORESERVE &&
		s->st_value != 0 &&
		s->st_name != 0 && s->st_name < size && str[s->st_name] != '\0';
}

/* Random string table: short names separated by NULs, last byte NUL. */
static char *random_strtab(void)
{
	char *str = malloc(RAND_STRTAB);

	for (size_t i = 0; i < RAND_STRTAB; i++)
		str[i] = rng() % 5 == 0 ? '\0' : (char)('a' + rng() % 26);
	str[0] = '\0';
	str[RAND_STRTAB - 1] = '\0';
	return str;
}

static elf64_sym_t random_sym(unsigned mode)
{
	static const unsigned types[] = {
		STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION, STT_FILE,
	};
	uint64_t value;

	switch (mode) {
	case 0: value = rng() % 100000; break;          /* many duplicates */
	case 1: value = rng(); break;
	default: value = 0x1000; break;                 /* all equal */
	}
	return mksym((uint32_t)(rng() % (RAND_STRTAB + 100)), types[rng() % 5],
		     (uint16_t)(rng() % 4 == 0 ? SHN_UNDEF : 1 + rng() % 3),
		     value, rng() % 3 == 0 ? 0 : rng() % 5000);
}

static void test_random_tables(void)
{
	char *str = random_strtab();
	elf64_sym_t *syms = malloc(RAND_SYMS * sizeof(*syms));

	for (unsigned mode = 0; mode < 3; mode++) {
		elfsym_table_t t;
		size_t useful = 0, bad = 0;

		for (size_t i = 0; i < RAND_SYMS; i++) {
			syms[i] = random_sym(mode);
			useful += sym_useful(&syms[i], str, RAND_STRTAB);
		}
		is_int(elfsym_prepare(&t, syms, RAND_SYMS, str, RAND_STRTAB), EOK,
		       "random table %u: prepare", mode);
		is_uint(t.count, useful, "random table %u: kept every useful symbol", mode);
		bool all_useful = true;
		for (size_t i = 0; i < t.count; i++)
			all_useful &= sym_useful(&t.syms[i], str, RAND_STRTAB);
		ok(all_useful && is_sorted(&t), "random table %u: useful and sorted", mode);

		for (int k = 0; k < 3000; k++) {
			uint64_t addr = k % 2 ? rng() % 110000 : rng();
			if (k % 3 == 0 && t.count)
				addr = t.syms[rng() % t.count].st_value + rng() % 3 - 1;
			uint64_t o1 = 0, o2 = 0;
			const char *a = elfsym_lookup(&t, addr, &o1);
			const char *b = naive_lookup(&t, addr, &o2);
			bad += a != b || o1 != o2;
		}
		is_uint(bad, 0, "random table %u: 3000 lookups match a linear search", mode);
	}

	/* Already sorted and reverse sorted inputs. */
	for (int dir = 0; dir < 2; dir++) {
		elfsym_table_t t;
		for (size_t i = 0; i < RAND_SYMS; i++) {
			size_t v = dir ? RAND_SYMS - i : i + 1;
			syms[i] = mksym(1 + (uint32_t)(i % 100), STT_FUNC, 1,
					v * 16, 16);
			str[1 + i % 100] = 'n';
		}
		elfsym_prepare(&t, syms, RAND_SYMS, str, RAND_STRTAB);
		uint64_t off = 0;
		ok(t.count == RAND_SYMS && is_sorted(&t) &&
		   elfsym_lookup(&t, 16 * 1234 + 5, &off) && off == 5,
		   "%s input sorts", dir ? "reverse sorted" : "sorted");
	}
	free(syms);
	free(str);
}

/* ---------------------------------------------------------------- real ELF */

int elftest_marker_a(int x);
int elftest_marker_b(int x);

__attribute__((noinline)) int elftest_marker_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int elftest_marker_b(int x)
{
	return x * x - 7;
}

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		if (k == 0)
			break;
		len += k;
	}
	fclose(f);
	/* Shrink to the exact size so ASan flags any read past the end. */
	unsigned char *exact = malloc(len);
	memcpy(exact, buf, len);
	free(buf);
	*size = len;
	return exact;
}

static void test_self(const unsigned char *img, size_t size)
{
	const elf64_shdr_t *sh_sym = NULL, *sh_str = NULL;

	is_int(elf_find_symtab(img, size, &sh_sym, &sh_str), EOK,
	       "find .symtab in /proc/self/exe");
	if (!sh_sym)
		return;

	/* Prepare a copy of the symbols; the strings stay in the image. */
	elf64_sym_t *syms = malloc(sh_sym->sh_size);
	memcpy(syms, img + sh_sym->sh_offset, sh_sym->sh_size);
	elfsym_table_t t;
	is_int(elfsym_prepare(&t, syms, sh_sym->sh_size / sizeof(elf64_sym_t),
			      (const char *)img + sh_str->sh_offset,
			      sh_str->sh_size), EOK, "prepare own symbols");
	ok(t.count > 10 && is_sorted(&t), "own table: %zu sorted symbols", t.count);

	uint64_t link_a = elfsym_address(&t, "elftest_marker_a");
	uint64_t link_b = elfsym_address(&t, "elftest_marker_b");
	uint64_t run_a = (uintptr_t)&elftest_marker_a;
	uint64_t run_b = (uintptr_t)&elftest_marker_b;
	ok(link_a != 0 && link_b != 0, "marker functions are in the table");
	is_int((int64_t)(link_b - link_a), (int64_t)(run_b - run_a),
	       "link-time and run-time distances between markers agree");

	uint64_t bias = run_a - link_a;   /* PIE load bias (0 if not PIE) */
	is_uint(bias % 4096, 0, "load bias is page aligned");
	uint64_t off = 99;
	is_str(elfsym_lookup(&t, run_b - bias, &off), "elftest_marker_b",
	       "&elftest_marker_b resolves to its name");
	is_uint(off, 0, "  at offset 0");
	is_str(elfsym_lookup(&t, run_a - bias + 1, &off), "elftest_marker_a",
	       "&elftest_marker_a + 1 resolves to its name");
	is_uint(off, 1, "  at offset 1");
	is_str(elfsym_lookup(&t, (uintptr_t)&test_self - bias + 4, &off),
	       "test_self", "a static function resolves too");
	is_str(elfsym_lookup(&t, (uintptr_t)&rng_state - bias, &off),
	       "rng_state", "a data object resolves");
	free(syms);
	(void)elftest_marker_a(1);
	(void)elftest_marker_b(2);
}

/*
 * Check a find_symtab result on a len-byte image: only the documented codes,
 * and on success headers and sections inside the image. Returns the code.
 */
static errno_t find_checked(const unsigned char *img, size_t len, bool *sane)
{
	const elf64_shdr_t *a = NULL, *b = NULL;
	errno_t e = elf_find_symtab(img, len, &a, &b);

	*sane = e == EINVAL || e == ENOENT || e == EOK;
	if (e != EOK)
		return e;
	*sane = (const unsigned char *)a >= img && (const unsigned char *)b >= img &&
		(const unsigned char *)(a + 1) <= img + len &&
		(const unsigned char *)(b + 1) <= img + len &&
		a->sh_offset <= len && a->sh_size <= len - a->sh_offset &&
		b->sh_offset <= len && b->sh_size <= len - b->sh_offset &&
		b->sh_size > 0 && img[b->sh_offset + b->sh_size - 1] == '\0';
	return e;
}

/* Truncate img by poisoning its tail; every length in [from, to). */
static void truncations(unsigned char *img, size_t size, size_t from,
			size_t to, size_t need, const char *what)
{
	size_t bad = 0, unexpected_ok = 0;

	if (to > size)
		to = size;
	for (size_t len = from; len < to; len++) {
		bool sane;
		POISON(img + len, size - len);
		errno_t e = find_checked(img, len, &sane);
		UNPOISON(img + len, size - len);
		bad += !sane;
		unexpected_ok += e == EOK && len < need;
	}
	ok(bad == 0 && unexpected_ok == 0,
	   "truncated %s, lengths %zu..%zu: EINVAL/ENOENT, no bad reads",
	   what, from, to - 1);
}

/*
 * Flip 1-4 random bytes in the ELF header or in [table, table+table_len),
 * check find_symtab, restore. Returns the number of insane results.
 */
static size_t flips(unsigned char *img, size_t size, int rounds,
		    size_t table, size_t table_len, int *n_ok)
{
	size_t bad = 0;

	for (int r = 0; r < rounds; r++) {
		size_t pos[4];
		unsigned char old[4];
		int k = 1 + (int)(rng() % 4);
		for (int j = 0; j < k; j++) {
			pos[j] = rng() % 4 == 0 ? rng() % sizeof(elf64_ehdr_t) :
				table + rng() % table_len;
			old[j] = img[pos[j]];
			img[pos[j]] ^= (unsigned char)(1 + rng() % 255);
		}
		bool sane;
		*n_ok += find_checked(img, size, &sane) == EOK;
		bad += !sane;
		for (int j = k - 1; j >= 0; j--)
			img[pos[j]] = old[j];
	}
	return bad;
}

static void test_self_fuzz(unsigned char *img, size_t size)
{
	const elf64_ehdr_t *eh = (const elf64_ehdr_t *)img;
	const elf64_shdr_t *sh_sym, *sh_str;
	size_t table_end = eh->e_shoff + eh->e_shnum * sizeof(elf64_shdr_t);

	if (elf_find_symtab(img, size, &sh_sym, &sh_str) != EOK)
		return;
	size_t sym_end = sh_sym->sh_offset + sh_sym->sh_size;
	size_t str_end = sh_str->sh_offset + sh_str->sh_size;
	size_t need = table_end;
	if (sym_end > need)
		need = sym_end;
	if (str_end > need)
		need = str_end;
	note("self image: %zu bytes, shoff %#llx, %u sections", size,
	     (unsigned long long)eh->e_shoff, eh->e_shnum);

	truncations(img, size, 0, 4097, need, "self image (head)");
	truncations(img, size, eh->e_shoff - 64, table_end, need,
		    "self image (section headers)");
	truncations(img, size, sym_end - 64, sym_end, need, "self image (.symtab end)");
	truncations(img, size, str_end - 64, str_end, need, "self image (.strtab end)");

	int n_ok = 0;
	is_uint(flips(img, size, 20000, eh->e_shoff, table_end - eh->e_shoff,
		      &n_ok), 0,
		"20000 corrupted self images (headers): sane results");
	note("%d of them still had a usable .symtab", n_ok);
}

/* ---------------------------------------------------------------- tiny ELF */

enum { TINY_STR = 64, TINY_SYM = 96, TINY_SHDR = 168, TINY_SIZE = 424 };

/* Build a minimal ELF: header, .strtab, .symtab, 4 section headers. */
static void build_tiny(unsigned char *img)
{
	elf64_ehdr_t *eh = (elf64_ehdr_t *)img;
	elf64_shdr_t *sh = (elf64_shdr_t *)(img + TINY_SHDR);
	elf64_sym_t *sy = (elf64_sym_t *)(img + TINY_SYM);

	memset(img, 0, TINY_SIZE);
	memcpy(eh->e_ident, "\x7f" "ELF\x02\x01\x01", 7);
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = 1;
	eh->e_shoff = TINY_SHDR;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 4;
	memcpy(img + TINY_STR, "\0start\0data\0", 12);
	sy[1] = mksym(1, STT_FUNC, 3, 0x401000, 0x20);
	sy[2] = mksym(7, STT_OBJECT, 3, 0x402000, 8);
	sh[1] = (elf64_shdr_t){ .sh_type = SHT_STRTAB, .sh_offset = TINY_STR,
				.sh_size = 32 };
	sh[2] = (elf64_shdr_t){ .sh_type = SHT_SYMTAB, .sh_offset = TINY_SYM,
				.sh_size = 72, .sh_link = 1, .sh_info = 1,
				.sh_entsize = sizeof(elf64_sym_t) };
	sh[3] = (elf64_shdr_t){ .sh_type = SHT_PROGBITS, .sh_addr = 0x401000,
				.sh_offset = 0, .sh_size = 64 };
}

/* Run find_symtab on an exact-size heap copy of img. */
static errno_t find_copy(const unsigned char *img, size_t len)
{
	unsigned char *copy = malloc(len ? len : 1);
	const elf64_shdr_t *a, *b;

	memcpy(copy, img, len);
	errno_t e = elf_find_symtab(copy, len, &a, &b);
	free(copy);
	return e;
}

#define SHDR(img, i) ((elf64_shdr_t *)((img) + TINY_SHDR) + (i))
#define EHDR(img) ((elf64_ehdr_t *)(img))

static void test_tiny_valid(void)
{
	uint64_t storage[TINY_SIZE / 8 + 1];
	unsigned char *img = (unsigned char *)storage;
	const elf64_shdr_t *a = NULL, *b = NULL;

	build_tiny(img);
	is_int(elf_find_symtab(img, TINY_SIZE, &a, &b), EOK, "tiny ELF: found");
	ok(a == SHDR(img, 2) && b == SHDR(img, 1), "tiny ELF: right headers");

	elf64_sym_t syms[3];
	elfsym_table_t t;
	memcpy(syms, img + a->sh_offset, sizeof(syms));
	elfsym_prepare(&t, syms, 3, (const char *)img + b->sh_offset, b->sh_size);
	uint64_t off;
	is_str(elfsym_lookup(&t, 0x401010, &off), "start", "tiny ELF: lookup start");
	is_str(elfsym_lookup(&t, 0x402004, &off), "data", "tiny ELF: lookup data");

	is_int(elf_find_symtab(NULL, TINY_SIZE, &a, &b), EINVAL, "NULL image");
	memmove(img + 1, img, TINY_SIZE);
	is_int(elf_find_symtab(img + 1, TINY_SIZE, &a, &b), EINVAL,
	       "misaligned image");

	build_tiny(img);
	size_t bad = 0;
	for (size_t len = 0; len < TINY_SIZE; len++)
		bad += find_copy(img, len) != EINVAL;
	is_uint(bad, 0, "tiny ELF: every truncation 0..%d gives EINVAL",
		TINY_SIZE - 1);
	is_int(find_copy(img, TINY_SIZE), EOK, "tiny ELF: exact copy is fine");
}

/* One corruption of the tiny image and the code it must produce. */
typedef struct tiny_case {
	const char *what;
	void (*mutate)(unsigned char *img);
	errno_t expect;
} tiny_case_t;

static void m_magic(unsigned char *i) { i[1] = 'e'; }
static void m_magic0(unsigned char *i) { i[0] = 0; }
static void m_class32(unsigned char *i) { i[4] = 1; }
static void m_bigendian(unsigned char *i) { i[5] = 2; }
static void m_shentsize(unsigned char *i) { EHDR(i)->e_shentsize = 40; }
static void m_no_shdrs(unsigned char *i) { EHDR(i)->e_shoff = 0; }
static void m_shnum_huge(unsigned char *i) { EHDR(i)->e_shnum = 0xffff; }
static void m_shnum_5(unsigned char *i) { EHDR(i)->e_shnum = 5; }
static void m_shoff_wrap(unsigned char *i) { EHDR(i)->e_shoff = UINT64_MAX - 7; }
static void m_shoff_odd(unsigned char *i) { EHDR(i)->e_shoff = TINY_SHDR + 4; }
static void m_shoff_end(unsigned char *i) { EHDR(i)->e_shoff = TINY_SIZE; }
static void m_no_symtab(unsigned char *i) { SHDR(i, 2)->sh_type = SHT_PROGBITS; }
static void m_link0(unsigned char *i) { SHDR(i, 2)->sh_link = 0; }
static void m_link_big(unsigned char *i) { SHDR(i, 2)->sh_link = 4; }
static void m_link_huge(unsigned char *i) { SHDR(i, 2)->sh_link = UINT32_MAX; }
static void m_link_prog(unsigned char *i) { SHDR(i, 2)->sh_link = 3; }
static void m_link_self(unsigned char *i) { SHDR(i, 2)->sh_link = 2; }
static void m_entsize(unsigned char *i) { SHDR(i, 2)->sh_entsize = 16; }
static void m_symsize(unsigned char *i) { SHDR(i, 2)->sh_size = 73; }
static void m_symsize_big(unsigned char *i) { SHDR(i, 2)->sh_size = 72 * 10; }
/* 2^64 - 16 is a multiple of 24: only the range check can reject it. */
static void m_symsize_wrap(unsigned char *i) { SHDR(i, 2)->sh_size = UINT64_MAX - 15; }
static void m_symoff_wrap(unsigned char *i) { SHDR(i, 2)->sh_offset = UINT64_MAX - 7; }
static void m_symoff_odd(unsigned char *i) { SHDR(i, 2)->sh_offset = TINY_SYM + 4; }
static void m_stroff_big(unsigned char *i) { SHDR(i, 1)->sh_offset = TINY_SIZE; }
static void m_stroff_wrap(unsigned char *i) { SHDR(i, 1)->sh_offset = UINT64_MAX; }
static void m_strsize_big(unsigned char *i) { SHDR(i, 1)->sh_size = TINY_SIZE; }
static void m_strsize_0(unsigned char *i) { SHDR(i, 1)->sh_size = 0; }
static void m_str_nonul(unsigned char *i) { i[TINY_STR + 31] = 'x'; }
static void m_ext_count(unsigned char *i)
{
	EHDR(i)->e_shnum = 0;
	SHDR(i, 0)->sh_size = 4;
}
static void m_ext_count_big(unsigned char *i)
{
	EHDR(i)->e_shnum = 0;
	SHDR(i, 0)->sh_size = UINT64_MAX;
}
static void m_ext_count_0(unsigned char *i) { EHDR(i)->e_shnum = 0; }
static void m_second_symtab(unsigned char *i) { SHDR(i, 3)->sh_type = SHT_SYMTAB; }
static void m_only_first(unsigned char *i) { EHDR(i)->e_shnum = 2; }

static const tiny_case_t tiny_cases[] = {
	{ "bad magic", m_magic, EINVAL },
	{ "bad magic byte 0", m_magic0, EINVAL },
	{ "ELFCLASS32", m_class32, EINVAL },
	{ "big endian", m_bigendian, EINVAL },
	{ "wrong e_shentsize", m_shentsize, EINVAL },
	{ "no section headers (e_shoff 0)", m_no_shdrs, ENOENT },
	{ "e_shnum 0xffff", m_shnum_huge, EINVAL },
	{ "e_shnum one past the end", m_shnum_5, EINVAL },
	{ "e_shoff wraps around", m_shoff_wrap, EINVAL },
	{ "e_shoff misaligned", m_shoff_odd, EINVAL },
	{ "e_shoff at the end", m_shoff_end, EINVAL },
	{ "no SHT_SYMTAB", m_no_symtab, ENOENT },
	{ "sh_link 0", m_link0, EINVAL },
	{ "sh_link == shnum", m_link_big, EINVAL },
	{ "sh_link UINT32_MAX", m_link_huge, EINVAL },
	{ "sh_link to PROGBITS", m_link_prog, EINVAL },
	{ "sh_link to itself", m_link_self, EINVAL },
	{ "sh_entsize 16", m_entsize, EINVAL },
	{ "symtab size not a multiple", m_symsize, EINVAL },
	{ "symtab past the end", m_symsize_big, EINVAL },
	{ "symtab size wraps", m_symsize_wrap, EINVAL },
	{ "symtab offset wraps", m_symoff_wrap, EINVAL },
	{ "symtab offset misaligned", m_symoff_odd, EINVAL },
	{ "strtab offset at the end", m_stroff_big, EINVAL },
	{ "strtab offset UINT64_MAX", m_stroff_wrap, EINVAL },
	{ "strtab past the end", m_strsize_big, EINVAL },
	{ "strtab empty", m_strsize_0, EINVAL },
	{ "strtab without final NUL", m_str_nonul, EINVAL },
	{ "extended section count", m_ext_count, EOK },
	{ "extended section count huge", m_ext_count_big, EINVAL },
	{ "extended section count 0", m_ext_count_0, ENOENT },
	{ "second bad SYMTAB after a good one", m_second_symtab, EOK },
	{ "symtab header cut off by e_shnum", m_only_first, ENOENT },
};

static void test_tiny_corrupt(void)
{
	uint64_t storage[TINY_SIZE / 8];
	unsigned char *img = (unsigned char *)storage;

	for (size_t k = 0; k < sizeof(tiny_cases) / sizeof(tiny_cases[0]); k++) {
		build_tiny(img);
		tiny_cases[k].mutate(img);
		is_int(find_copy(img, TINY_SIZE), tiny_cases[k].expect,
		       "tiny ELF: %s", tiny_cases[k].what);
	}
}

static void test_tiny_fuzz(void)
{
	uint64_t storage[TINY_SIZE / 8];
	unsigned char *img = (unsigned char *)storage;
	size_t bad = 0;
	int n_ok = 0;

	for (int r = 0; r < 100000; r++) {
		build_tiny(img);
		int k = 1 + (int)(rng() % 4);
		for (int j = 0; j < k; j++) {
			size_t pos = rng() % 4 ? TINY_SHDR + rng() % 256 : rng() % 64;
			img[pos] ^= (unsigned char)(1 + rng() % 255);
		}
		size_t len = rng() % 8 ? TINY_SIZE : rng() % TINY_SIZE;
		unsigned char *copy = malloc(len ? len : 1);
		memcpy(copy, img, len);
		bool sane;
		if (find_checked(copy, len, &sane) == EOK) {
			n_ok++;
			/* Prepare and query whatever it found (ASan watches). */
			const elf64_shdr_t *a, *b;
			elf_find_symtab(copy, len, &a, &b);
			elf64_sym_t *syms = malloc(a->sh_size ? a->sh_size : 1);
			memcpy(syms, copy + a->sh_offset, a->sh_size);
			elfsym_table_t t;
			elfsym_prepare(&t, syms, a->sh_size / sizeof(elf64_sym_t),
				       (const char *)copy + b->sh_offset, b->sh_size);
			uint64_t off;
			elfsym_lookup(&t, 0x401004, &off);
			elfsym_address(&t, "start");
			free(syms);
		}
		bad += !sane;
		free(copy);
	}
	is_uint(bad, 0, "100000 corrupted/truncated tiny ELFs: sane results");
	note("%d of them still had a usable .symtab", n_ok);
}

int main(void)
{
	test_synthetic();
	test_prepare_errors();
	test_random_tables();
	test_tiny_valid();
	test_tiny_corrupt();
	test_tiny_fuzz();

	size_t size = 0;
	unsigned char *img = read_file("/proc/self/exe", &size);
	if (!ok(img != NULL && size > sizeof(elf64_ehdr_t), "read /proc/self/exe"))
		return done_testing();
	test_self(img, size);
	test_self_fuzz(img, size);
	free(img);
	return done_testing();
}
