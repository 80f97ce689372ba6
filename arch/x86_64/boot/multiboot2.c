/*
 * Multiboot2 boot information → boot_info_t. Runs first thing in kmain(),
 * while the boot page tables still identity-map the low 4 GiB, so the
 * information structure is read through its physical address.
 */
#include <arch/boot.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <lib/elf.h>
#include <lib/string.h>

#define MB2_BOOT_MAGIC 0x36d76289

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_ELF_SECTIONS = 9,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

typedef struct {
	uint32_t type, size;
} __packed mb2_tag_t;

typedef struct {
	uint32_t type, size, entry_size, entry_version;
	struct {
		uint64_t base, len;
		uint32_t type, reserved;
	} __packed entries[];
} __packed mb2_mmap_t;

typedef struct {
	uint32_t type, size, mod_start, mod_end;
	char name[];
} __packed mb2_module_t;

typedef struct {
	uint32_t type, size;
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, fb_type;
	uint16_t reserved;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
} __packed mb2_fb_t;

typedef struct {
	uint32_t type, size, num, entsize, shndx;
	unsigned char sections[];
} __packed mb2_elf_sections_t;

boot_info_t boot_info;

void boot_reserve(paddr_t start, paddr_t end)
{
	if (boot_info.nreserved == BOOT_MAX_RESERVED)
		panic("boot: too many reserved ranges");
	boot_info.reserved[boot_info.nreserved++] = (boot_range_t){ start, end };
}

static void mb2_copy_string(char *dst, size_t size, const mb2_tag_t *tag)
{
	size_t len = tag->size - sizeof(*tag);
	strlcpy(dst, (const char *)(tag + 1), MIN(size, len + 1));
}

static void mb2_mmap(const mb2_mmap_t *m)
{
	const uint8_t *p = (const uint8_t *)m->entries;
	const uint8_t *end = (const uint8_t *)m + m->size;

	for (; p + m->entry_size <= end; p += m->entry_size) {
		const __typeof__(m->entries[0]) *e = (const void *)p;
		if (boot_info.nmem == BOOT_MAX_MEM_REGIONS)
			break;
		mem_type_t t = e->type >= 1 && e->type <= 5 ? e->type : MEM_RESERVED;
		boot_info.mem[boot_info.nmem++] = (mem_region_t){ e->base, e->len, t };
	}
}

static void mb2_module(const mb2_module_t *m)
{
	if (boot_info.nmodules == BOOT_MAX_MODULES)
		return;
	boot_module_t *bm = &boot_info.modules[boot_info.nmodules++];
	bm->start = m->mod_start;
	bm->end = m->mod_end;
	mb2_copy_string(bm->name, sizeof(bm->name), (const mb2_tag_t *)m);
	boot_reserve(ALIGN_DOWN(bm->start, PAGE_SIZE), ALIGN_UP(bm->end, PAGE_SIZE));
}

static void mb2_framebuffer(const mb2_fb_t *f)
{
	boot_fb_t *fb = &boot_info.fb;
	fb->addr = f->addr;
	fb->pitch = f->pitch;
	fb->width = f->width;
	fb->height = f->height;
	fb->bpp = f->bpp;
	fb->type = f->fb_type == 1 ? BOOT_FB_RGB :
		   f->fb_type == 2 ? BOOT_FB_EGA_TEXT : BOOT_FB_NONE;
	fb->red_pos = f->red_pos;
	fb->red_size = f->red_size;
	fb->green_pos = f->green_pos;
	fb->green_size = f->green_size;
	fb->blue_pos = f->blue_pos;
	fb->blue_size = f->blue_size;
}

/* GRUB loads the non-allocated sections (.symtab, .strtab) and reports them. */
static void mb2_elf_sections(const mb2_elf_sections_t *t)
{
	const elf64_shdr_t *sh = (const elf64_shdr_t *)t->sections;

	if (t->entsize != sizeof(elf64_shdr_t))
		return;
	for (uint32_t i = 0; i < t->num; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= t->num)
			continue;
		const elf64_shdr_t *str = &sh[sh[i].sh_link];
		if (sh[i].sh_addr >= KERNEL_VMA || str->sh_addr >= KERNEL_VMA)
			continue;
		boot_info.symtab = sh[i].sh_addr;
		boot_info.symtab_size = sh[i].sh_size;
		boot_info.strtab = str->sh_addr;
		boot_info.strtab_size = str->sh_size;
		boot_reserve(ALIGN_DOWN(sh[i].sh_addr, PAGE_SIZE),
			     ALIGN_UP(sh[i].sh_addr + sh[i].sh_size, PAGE_SIZE));
		boot_reserve(ALIGN_DOWN(str->sh_addr, PAGE_SIZE),
			     ALIGN_UP(str->sh_addr + str->sh_size, PAGE_SIZE));
	}
}

static void mb2_rsdp(const mb2_tag_t *tag)
{
	size_t len = MIN(tag->size - sizeof(*tag), sizeof(boot_info.rsdp));
	if (tag->type == MB2_TAG_ACPI_OLD && boot_info.rsdp_len)
		return;     /* prefer the new (ACPI 2.0+) copy */
	memcpy(boot_info.rsdp, tag + 1, len);
	boot_info.rsdp_len = len;
}

static void mb2_tag(const mb2_tag_t *tag)
{
	switch (tag->type) {
	case MB2_TAG_CMDLINE:
		mb2_copy_string(boot_info.cmdline, sizeof(boot_info.cmdline), tag);
		boot_info.cmdline_given = strnlen((const char *)(tag + 1), tag->size - sizeof(*tag));
		break;
	case MB2_TAG_LOADER:
		mb2_copy_string(boot_info.loader, sizeof(boot_info.loader), tag);
		break;
	case MB2_TAG_MODULE: mb2_module((const void *)tag); break;
	case MB2_TAG_MMAP: mb2_mmap((const void *)tag); break;
	case MB2_TAG_FRAMEBUFFER: mb2_framebuffer((const void *)tag); break;
	case MB2_TAG_ELF_SECTIONS: mb2_elf_sections((const void *)tag); break;
	case MB2_TAG_EFI64: boot_info.uefi = true; break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW: mb2_rsdp(tag); break;
	}
}

void boot_parse(uint32_t magic, paddr_t info)
{
	if (magic != MB2_BOOT_MAGIC)
		panic("boot: not started by a multiboot2 loader (magic %#x)", magic);
	uint32_t total = *(const uint32_t *)info;
	const uint8_t *p = (const uint8_t *)info + 8;
	const uint8_t *end = (const uint8_t *)info + total;

	boot_reserve(ALIGN_DOWN(info, PAGE_SIZE), ALIGN_UP(info + total, PAGE_SIZE));
	while (p + sizeof(mb2_tag_t) <= end) {
		const mb2_tag_t *tag = (const mb2_tag_t *)p;
		if (tag->type == MB2_TAG_END || tag->size < sizeof(*tag))
			break;
		mb2_tag(tag);
		p += ALIGN_UP(tag->size, 8);
	}
}
