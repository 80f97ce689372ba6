/* Host tests for lib/elfload.c: which executables load, and how. */
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <abi/syscall.h>
#include <lib/elfload.h>

#define LO 0x400000ull
#define HI 0x100000000000ull

typedef struct {
	elf64_ehdr_t eh;
	elf64_phdr_t ph[4];
	unsigned char body[8192];
} image_t;

static void make(image_t *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, "\x7f" "ELF", 4);
	im->eh.e_ident[4] = ELFCLASS64;
	im->eh.e_ident[5] = ELFDATA2LSB;
	im->eh.e_type = ET_EXEC;
	im->eh.e_machine = EM_X86_64;
	im->eh.e_phoff = offsetof(image_t, ph);
	im->eh.e_phentsize = sizeof(elf64_phdr_t);
	im->eh.e_phnum = 2;
	im->eh.e_entry = 0x401000;
	im->ph[0] = (elf64_phdr_t){ PT_LOAD, PF_R | PF_X, 0, 0x400000, 0, 0x1800, 0x1800, 4096 };
	im->ph[1] = (elf64_phdr_t){ PT_LOAD, PF_R | PF_W, 0x1000, 0x402000, 0, 0x100, 0x3000, 4096 };
}

static errno_t do_plan(image_t *im, elf_plan_t *p)
{
	return elf_load_plan(im, sizeof(*im), LO, HI, p);
}

static void test_good(void)
{
	image_t im;
	elf_plan_t p;
	make(&im);
	is_int(do_plan(&im, &p), EOK, "a two-segment executable loads");
	is_uint(p.nsegs, 2, "two segments");
	is_uint(p.entry, 0x401000, "entry");
	ok(p.segs[0].prot == (PROT_READ | PROT_EXEC) && p.segs[1].prot == (PROT_READ | PROT_WRITE),
	   "protections from p_flags");
	ok(p.text_start == 0x400000 && p.text_end == 0x401800, "text range");
	is_uint(p.segs[1].memsz, 0x3000, "bss size kept");
}

typedef void (*mutator_t)(image_t *);

static void m_magic(image_t *im) { im->eh.e_ident[1] = 'X'; }
static void m_class(image_t *im) { im->eh.e_ident[4] = 1; }
static void m_type(image_t *im) { im->eh.e_type = ET_DYN; }
static void m_machine(image_t *im) { im->eh.e_machine = 3; }
static void m_phentsize(image_t *im) { im->eh.e_phentsize = 40; }
static void m_phoff(image_t *im) { im->eh.e_phoff = sizeof(image_t) - 10; }
static void m_phnum(image_t *im) { im->eh.e_phnum = 0x7fff; }
static void m_phalign(image_t *im) { im->eh.e_phoff += 4; }
static void m_wx(image_t *im) { im->ph[0].p_flags = PF_R | PF_W | PF_X; }
static void m_filesz(image_t *im) { im->ph[1].p_filesz = 0x4000; }
static void m_offset(image_t *im) { im->ph[1].p_offset = sizeof(image_t); }
static void m_low(image_t *im) { im->ph[0].p_vaddr = 0x1000; }
static void m_high(image_t *im) { im->ph[1].p_vaddr = HI - 0x1000; }
static void m_wrap(image_t *im) { im->ph[1].p_memsz = ~0ull - 0x1000; }
static void m_overlap(image_t *im) { im->ph[1].p_vaddr = 0x401000; }
static void m_entry(image_t *im) { im->eh.e_entry = 0x402000; }
static void m_noload(image_t *im) { im->ph[0].p_type = im->ph[1].p_type = 4; }
static void m_zero(image_t *im) { im->ph[0].p_memsz = 0; im->ph[0].p_filesz = 0; }

static void test_bad(void)
{
	static const struct { mutator_t m; const char *what; } cases[] = {
		{ m_magic, "bad magic" }, { m_class, "32-bit class" },
		{ m_type, "not ET_EXEC" }, { m_machine, "not x86-64" },
		{ m_phentsize, "wrong phentsize" }, { m_phoff, "phdrs past the end" },
		{ m_phnum, "too many phdrs" }, { m_phalign, "misaligned phdrs" }, { m_wx, "writable and executable" },
		{ m_filesz, "filesz > memsz" }, { m_offset, "data past the end" },
		{ m_low, "below the user base" }, { m_high, "past the user top" },
		{ m_wrap, "size wraps around" }, { m_overlap, "overlapping segments" },
		{ m_entry, "entry outside text" }, { m_noload, "no PT_LOAD" },
		{ m_zero, "empty segment" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		image_t im;
		elf_plan_t p;
		make(&im);
		cases[i].m(&im);
		is_int(do_plan(&im, &p), ENOEXEC, "rejects: %s", cases[i].what);
	}
	image_t im;
	elf_plan_t p;
	make(&im);
	is_int(elf_load_plan(&im, sizeof(elf64_ehdr_t) - 1, LO, HI, &p), ENOEXEC, "truncated header");
	is_int(elf_load_plan(NULL, 100, LO, HI, &p), ENOEXEC, "NULL image");
	is_int(elf_load_plan((char *)&im + 1, sizeof(im) - 1, LO, HI, &p), ENOEXEC, "misaligned image");
}

static void test_fuzz(void)
{
	srand(11);
	int odd = 0;
	for (int r = 0; r < 50000; r++) {
		image_t im;
		elf_plan_t p;
		make(&im);
		for (int k = 0; k < 3; k++)
			((unsigned char *)&im)[rand() % (sizeof(im.eh) + sizeof(im.ph))] = (unsigned char)rand();
		if (do_plan(&im, &p) != EOK)
			continue;
		for (size_t i = 0; i < p.nsegs; i++) {
			const elf_segment_t *s = &p.segs[i];
			odd += s->vaddr < LO || s->vaddr + s->memsz > HI || s->filesz > s->memsz ||
			       s->offset + s->filesz > sizeof(im) ||
			       (s->prot & (PROT_WRITE | PROT_EXEC)) == (PROT_WRITE | PROT_EXEC);
		}
	}
	is_int(odd, 0, "50000 mutated images: every accepted plan obeys the rules");
}

int main(void)
{
	test_good();
	test_bad();
	test_fuzz();
	return done_testing();
}
