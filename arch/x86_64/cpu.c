/*
 * Per-CPU set-up on x86-64: GS base → cpu_t, GDT/TSS with IST stacks, the
 * IDT, and CPU features (SMEP, SMAP, UMIP: arch/x86_64/harden.c). The boot CPU uses static structures; the
 * others get theirs from smp.c before they start.
 */
#include <arch/boot.h>
#include <arch/cpu.h>
#include <arch/cpuinit.h>
#include <arch/harden.h>
#include <arch/interrupt.h>
#include <arch/pc/uart.h>
#include <arch/thread.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/vm.h>
#include <lib/string.h>

static cpu_t bsp_cpu;
static uint8_t bsp_ist[IST_COUNT][PAGE_SIZE + IST_STACK_SIZE] __aligned(PAGE_SIZE);

/*
 * The one fixed offset: arch_cpu_current() reads the cpu_t pointer at GS:0,
 * so GS must point at a cpu_t whose self is its first word.
 */
_Static_assert(__builtin_offsetof(cpu_t, arch.self) == 0, "cpu_t.arch.self must be at GS:0");

void arch_cpu_set_gs(cpu_t *c)
{
	c->arch.self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

bool cpuid_vendor_is(const char *vendor)
{
	cpuid_regs_t r = cpuid(0, 0);
	char v[12];

	memcpy(v, &r.ebx, 4);
	memcpy(v + 4, &r.edx, 4);
	memcpy(v + 8, &r.ecx, 4);
	return memcmp(v, vendor, 12) == 0;
}

bool cpuid_hypervisor_is(const char *sig, uint32_t *max_leaf)
{
	if (!(cpuid(1, 0).ecx & CPUID1_HYPERVISOR))
		return false;
	cpuid_regs_t r = cpuid(CPUID_HV_LEAF, 0);
	char v[12];

	memcpy(v, &r.ebx, 4);
	memcpy(v + 4, &r.ecx, 4);
	memcpy(v + 8, &r.edx, 4);
	if (max_leaf)
		*max_leaf = r.eax;
	return memcmp(v, sig, 12) == 0;
}

static void cpu_enable_features(void)
{
	arch_harden_cpu();
	arch_fpu_init();
}

void arch_cpu_init(cpu_t *c, const uint64_t ist_tops[IST_COUNT])
{
	arch_cpu_set_gs(c);
	gdt_init_cpu(c, ist_tops);
	idt_load();
	cpu_enable_features();
}

void arch_early_init(void)
{
	uint64_t tops[IST_COUNT];

	for (int i = 0; i < IST_COUNT; i++)
		tops[i] = (uint64_t)&bsp_ist[i][PAGE_SIZE + IST_STACK_SIZE];
	bsp_cpu.stack_bottom = (uintptr_t)boot_stack_bottom;
	bsp_cpu.stack_top = (uintptr_t)boot_stack_top;
	cpus[0] = &bsp_cpu;
	cpu_count = 1;
	arch_cpu_init(&bsp_cpu, tops);
	uart_init();
	boot_parse(boot_mb_magic, boot_mb_info);
}

bool arch_is_image_guard(uintptr_t va)
{
	for (int i = 0; i < IST_COUNT; i++)
		if (va == (uintptr_t)bsp_ist[i])
			return true;
	return false;
}

errno_t arch_alloc_ist(uint64_t tops[IST_COUNT])
{
	for (int i = 0; i < IST_COUNT; i++) {
		errno_t rc = kstack_alloc(IST_STACK_SIZE / PAGE_SIZE, &tops[i]);
		if (rc != EOK)
			return rc;
	}
	return EOK;
}
