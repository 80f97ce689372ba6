/*
 * kmain(): the boot CPU's path from the boot loader to a running system.
 * Each line is one initialisation step, in dependency order.
 */
#include <arch/cpu.h>
#include <kernel/bootinfo.h>
#include <kernel/cmdline.h>
#include <kernel/ksym.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <kernel/version.h>
#include <kernel/vm.h>

static unsigned kmain_hz(void)
{
	char buf[16];
	unsigned hz = 0;

	if (cmdline_get("hz", buf, sizeof(buf)))
		for (const char *p = buf; *p >= '0' && *p <= '9'; p++)
			hz = hz * 10 + (unsigned)(*p - '0');
	return hz >= 10 && hz <= 10000 ? hz : 100;
}

static void kmain_report_boot(void)
{
	uint64_t ns = time_cycles_to_ns(time_cycles() - time_boot_cycles());
	printk("boot: %lu ms from kernel entry to smp online\n", ns / 1000000);
}

void kmain(void)
{
	time_mark_boot();
	arch_early_init();          /* per-CPU data, GDT/IDT, COM1, boot info */
	printk("vernier: %s, booted by %s (%s)\n", VERNIER_VERSION,
	       boot_info.loader, boot_info.uefi ? "UEFI" : "BIOS");
	printk("vernier: command line \"%s\"\n", boot_info.cmdline);
	frame_init();               /* physical frames from the memory map */
	vm_init();                  /* kernel page tables; identity map gone */
	heap_init();                /* kmalloc */
	ksym_init();                /* symbols for backtraces */
	platform_console_init();    /* VGA text or framebuffer */
	platform_init();            /* ACPI, PIC masked, IOAPIC */
	platform_cpu_irq_init();    /* boot CPU's local APIC */
	time_init();                /* TSC frequency, ns clock */
	timer_init(kmain_hz());     /* boot CPU tick */
	irq_enable();
	smp_init();                 /* start the other CPUs */
	kmain_report_boot();
	mm_report_footprint();
	if (cmdline_has("ktest"))
		ktest_run();            /* never returns */
	if (cmdline_has("ktest.panic"))
		ktest_panic();          /* never returns */
	cpu_idle_loop();
}
