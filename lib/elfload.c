/* ELF64 executable checking and load planning: see lib/elfload.h. */
#include <abi/syscall.h>
#include <lib/elfload.h>
#include <lib/string.h>

#include <stdbool.h>

static bool elf_header_ok(const elf64_ehdr_t *h, size_t size)
{
	if (size < sizeof(*h) || h->e_ident[0] != ELF_MAG0 || memcmp(h->e_ident + 1, "ELF", 3))
		return false;
	if (h->e_ident[4] != ELFCLASS64 || h->e_ident[5] != ELFDATA2LSB)
		return false;
	if (h->e_type != ET_EXEC || h->e_machine != EM_X86_64)
		return false;
	if (h->e_phentsize != sizeof(elf64_phdr_t) || h->e_phnum == 0 || (h->e_phoff & 7))
		return false;
	return h->e_phoff <= size && (size - h->e_phoff) / sizeof(elf64_phdr_t) >= h->e_phnum;
}

static unsigned elf_prot(uint32_t flags)
{
	return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) |
	       ((flags & PF_X) ? PROT_EXEC : 0);
}

static bool elf_segment_ok(const elf64_phdr_t *p, size_t size, uint64_t lo, uint64_t hi)
{
	if (p->p_filesz > p->p_memsz || p->p_memsz == 0)
		return false;
	if (p->p_offset > size || p->p_filesz > size - p->p_offset)
		return false;
	if (p->p_vaddr < lo || p->p_vaddr >= hi || p->p_memsz > hi - p->p_vaddr)
		return false;
	return (p->p_flags & (PF_W | PF_X)) != (PF_W | PF_X);
}

/* Page-granular overlap of a new segment with the ones already planned. */
static bool elf_overlaps(const elf_plan_t *plan, const elf_segment_t *s)
{
	uint64_t a0 = s->vaddr & ~(ELF_PAGE - 1);
	uint64_t a1 = (s->vaddr + s->memsz + ELF_PAGE - 1) & ~(ELF_PAGE - 1);

	for (size_t i = 0; i < plan->nsegs; i++) {
		const elf_segment_t *o = &plan->segs[i];
		uint64_t b0 = o->vaddr & ~(ELF_PAGE - 1);
		uint64_t b1 = (o->vaddr + o->memsz + ELF_PAGE - 1) & ~(ELF_PAGE - 1);
		if (a0 < b1 && b0 < a1)
			return true;
	}
	return false;
}

static errno_t elf_add_segment(elf_plan_t *plan, const elf64_phdr_t *p)
{
	elf_segment_t s = {
		.vaddr = p->p_vaddr, .memsz = p->p_memsz,
		.offset = p->p_offset, .filesz = p->p_filesz,
		.prot = elf_prot(p->p_flags),
	};
	if (plan->nsegs == ELF_MAX_SEGMENTS || elf_overlaps(plan, &s))
		return ENOEXEC;
	plan->segs[plan->nsegs++] = s;
	if (s.prot & PROT_EXEC) {
		if (!plan->text_start || s.vaddr < plan->text_start)
			plan->text_start = s.vaddr;
		if (s.vaddr + s.memsz > plan->text_end)
			plan->text_end = s.vaddr + s.memsz;
	}
	return EOK;
}

static bool elf_entry_ok(const elf_plan_t *plan)
{
	for (size_t i = 0; i < plan->nsegs; i++) {
		const elf_segment_t *s = &plan->segs[i];
		if ((s->prot & PROT_EXEC) && plan->entry >= s->vaddr &&
		    plan->entry < s->vaddr + s->memsz)
			return true;
	}
	return false;
}

errno_t elf_load_plan(const void *image, size_t size, uint64_t lo, uint64_t hi,
		      elf_plan_t *plan)
{
	const elf64_ehdr_t *h = image;

	memset(plan, 0, sizeof(*plan));
	if (!image || ((uintptr_t)image & 7) || !elf_header_ok(h, size))
		return ENOEXEC;
	const elf64_phdr_t *ph = (const elf64_phdr_t *)((const char *)image + h->e_phoff);
	for (size_t i = 0; i < h->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (!elf_segment_ok(&ph[i], size, lo, hi) || elf_add_segment(plan, &ph[i]) != EOK)
			return ENOEXEC;
	}
	plan->entry = h->e_entry;
	return plan->nsegs && elf_entry_ok(plan) ? EOK : ENOEXEC;
}
