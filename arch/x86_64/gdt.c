/*
 * Per-CPU GDT and TSS. The layout serves SYSCALL/SYSRET (STAR wants user
 * data just below user code); the TSS carries the IST stacks for NMI,
 * double fault and machine check.
 */
#include <arch/interrupt.h>
#include <kernel/cpu.h>
#include <lib/string.h>

#define GDT_KCODE 0x00af9a000000ffffull
#define GDT_KDATA 0x00cf92000000ffffull
#define GDT_UCODE32 0x00cffa000000ffffull
#define GDT_UDATA 0x00cff2000000ffffull
#define GDT_UCODE 0x00affa000000ffffull

typedef struct {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed)) desc_ptr_t;

static void gdt_set_tss(uint64_t *gdt, const tss_t *tss)
{
	uint64_t base = (uint64_t)tss;
	uint64_t limit = sizeof(*tss) + IOMAP_BYTES;   /* through the 0xff byte */

	gdt[6] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		 (0x89ull << 40) | (((limit >> 16) & 0xf) << 48) |
		 (((base >> 24) & 0xff) << 56);
	gdt[7] = base >> 32;
}

static void gdt_load(const uint64_t *gdt)
{
	desc_ptr_t p = { GDT_ENTRIES * 8 - 1, (uint64_t)gdt };

	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "mov %2, %%ds\n\t"
			 "mov %2, %%es\n\t"
			 "mov %2, %%ss\n\t"
			 : : "m"(p), "i"(SEL_KCODE), "r"(SEL_KDATA)
			 : "rax", "memory");
	__asm__ volatile("ltr %w0" : : "r"(SEL_TSS));
}

void gdt_init_cpu(cpu_t *c, const uint64_t ist_tops[IST_COUNT])
{
	uint64_t *gdt = c->arch.gdt;

	memset(gdt, 0, sizeof(c->arch.gdt));
	gdt[1] = GDT_KCODE;
	gdt[2] = GDT_KDATA;
	gdt[3] = GDT_UCODE32;
	gdt[4] = GDT_UDATA;
	gdt[5] = GDT_UCODE;
	memset(&c->arch.tss, 0, sizeof(c->arch.tss));
	for (int i = 0; i < IST_COUNT; i++)
		c->arch.tss.ist[i] = ist_tops[i];
	_Static_assert(__builtin_offsetof(arch_cpu_t, iomap) ==
		       __builtin_offsetof(arch_cpu_t, tss) + sizeof(tss_t),
		       "the I/O map must follow the TSS");
	memset(c->arch.iomap, 0xff, IOMAP_BYTES + 1);   /* no port until a task's are loaded */
	c->arch.tss.iopb = TSS_NO_IOMAP;
	gdt_set_tss(gdt, &c->arch.tss);
	gdt_load(gdt);
}
