/*
 * The PC platform: ACPI discovery, interrupt controllers, screen console
 * and the ways to stop (QEMU's isa-debug-exit for tests).
 */
#include <arch/boot.h>
#include <arch/cpu.h>
#include <arch/apic.h>
#include <arch/io.h>
#include <arch/pc/pc.h>
#include <arch/pc/vga.h>
#include <kernel/bootinfo.h>
#include <kernel/cpu.h>
#include <kernel/cmdline.h>
#include <kernel/console.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/vm.h>

#define LOG_PREFIX "acpi"
#define ISA_DEBUG_EXIT 0xf4

acpi_info_t acpi;

static const void *acpi_map(void *ctx, paddr_t addr, size_t len)
{
	if (addr + len < addr)
		return NULL;
	return vm_map_mmio(addr, len);
}

static void acpi_log(void)
{
	size_t enabled = 0;
	for (size_t i = 0; i < acpi.nlapics; i++)
		enabled += acpi.lapics[i].enabled;
	pr_info("ACPI %s, %s at %#lx: %zu CPUs (%zu listed), %zu IOAPICs, %zu overrides%s",
		acpi.revision >= 2 ? "2.0+" : "1.0", acpi.xsdt ? "XSDT" : "RSDT",
		acpi.root_addr, enabled, acpi.nlapics, acpi.nioapics, acpi.nisos,
		acpi.have_hpet ? ", HPET" : "");
	if (acpi.have_fadt)
		pr_info("FADT rev %u: PM1a control %#x, century register %u",
			acpi.fadt_revision, acpi.pm1a_cnt_blk, acpi.century);
}

static void acpi_init(void)
{
	if (!boot_info.rsdp_len)
		panic("acpi: the boot loader passed no RSDP");
	errno_t rc = acpi_parse(&acpi, boot_info.rsdp, boot_info.rsdp_len, acpi_map, NULL);
	if (rc != EOK)
		panic("acpi: cannot parse the ACPI tables (error %d)", rc);
	acpi_log();
}

void platform_init(void)
{
	acpi_init();
	pic_disable();
	ioapic_init();
}

void platform_wall_clock_init(void)
{
	rtc_init();
}

/* Start VGA text or the framebuffer console, whichever the loader set up. */
void platform_console_init(void)
{
	boot_fb_t *fb = &boot_info.fb;
	size_t size = (size_t)fb->pitch * fb->height;

	if (fb->type == BOOT_FB_EGA_TEXT) {
		void *va = vm_map_mmio(fb->addr, size);
		if (va)
			vga_text_init(va, fb->width, fb->height);
		printk("console: VGA text %ux%u\n", fb->width, fb->height);
	} else if (fb->type == BOOT_FB_RGB) {
		void *va = vm_map_mmio(fb->addr, size);
		bool ok = va && fbcon_init(fb, va) == EOK;
		printk("console: %s %ux%ux%u framebuffer at %#lx\n",
		       ok ? "text on the" : "cannot use the", fb->width, fb->height,
		       fb->bpp, fb->addr);
	}
}

void platform_test_exit(bool pass)
{
	outl(ISA_DEBUG_EXIT, pass ? 0 : 1);
	/* No test device (real hardware, Bochs): just stop. */
	irq_disable();
	for (;;)
		cpu_halt();
}

void platform_halt(void)
{
	console_reclaim();
	printk("vernier: halted\n");
	smp_stop_others();
	irq_disable();
	for (;;)
		cpu_halt();
}

void platform_fail_stop(void)
{
	if (cmdline_has("ktest") || cmdline_has("ktest.panic"))
		platform_test_exit(false);
	irq_disable();
	for (;;)
		cpu_halt();
}

void platform_cpu_irq_init(void)
{
	lapic_global_init(acpi.lapic_addr ? acpi.lapic_addr : 0xfee00000);
	lapic_cpu_init();
	lapic_apply_nmi_entries(0);
}

errno_t platform_irq_route(unsigned irq, unsigned vector)
{
	return ioapic_route_isa(irq, vector, cpus[0]->arch.apic_id);
}

void platform_irq_mask(unsigned irq)
{
	ioapic_set_masked(irq, true);
}

void platform_irq_unmask(unsigned irq)
{
	ioapic_set_masked(irq, false);
}
