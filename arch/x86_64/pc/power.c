/*
 * Power off (ACPI S5: the \_S5 sleep type written to PM1 control) and
 * reboot (the FADT reset register, then the keyboard controller, then a
 * triple fault).
 */
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/pc/pc.h>
#include <kernel/console.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <kernel/vm.h>

#define LOG_PREFIX "power"
#define PM1_SCI_EN (1u << 0)
#define PM1_SLP_EN (1u << 13)
#define PM1_SLP_TYP_SHIFT 10

/* The \_S5 values from the DSDT; 0, 0 when absent (QEMU and most boards). */
static void power_s5_types(uint32_t *a, uint32_t *b)
{
	*a = *b = 0;
	if (!acpi.dsdt)
		return;
	const uint8_t *hdr = vm_map_mmio(acpi.dsdt, 36);
	uint32_t len = hdr ? *(const uint32_t *)(hdr + 4) : 0;
	const void *dsdt = len >= 36 && len < MiB(4) ? vm_map_mmio(acpi.dsdt, len) : NULL;
	if (!dsdt || acpi_find_s5(dsdt, len, a, b) != EOK)
		pr_warn("no \\_S5 in the DSDT; trying sleep type 0");
}

/* Switch the chipset to ACPI mode if the firmware left it in legacy mode. */
static void power_acpi_enable(void)
{
	if ((inw((uint16_t)acpi.pm1a_cnt_blk) & PM1_SCI_EN) || !acpi.smi_cmd || !acpi.acpi_enable)
		return;
	outb((uint16_t)acpi.smi_cmd, acpi.acpi_enable);
	for (int i = 0; i < 300 && !(inw((uint16_t)acpi.pm1a_cnt_blk) & PM1_SCI_EN); i++)
		time_delay_us(1000);
}

void platform_poweroff(void)
{
	uint32_t a, b;

	console_reclaim();
	power_s5_types(&a, &b);
	printk("power: off (ACPI S5)\n");
	smp_stop_others();
	irq_disable();
	if (acpi.have_fadt && acpi.pm1a_cnt_blk) {
		power_acpi_enable();
		outw((uint16_t)acpi.pm1a_cnt_blk, (uint16_t)((a << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
		if (acpi.pm1b_cnt_blk)
			outw((uint16_t)acpi.pm1b_cnt_blk, (uint16_t)((b << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
		time_delay_us(100000);
	}
	printk_unlocked("power: ACPI S5 did not turn the machine off; halted\n");
	for (;;)
		cpu_halt();
}

static void power_reset_register(void)
{
	const acpi_gas_t *r = &acpi.reset_reg;

	if (!(acpi.fadt_flags & ACPI_FADT_RESET_REG_SUP) || !r->address)
		return;
	if (r->space_id == ACPI_GAS_IO)
		outb((uint16_t)r->address, acpi.reset_value);
	time_delay_us(50000);
}

void platform_reboot(void)
{
	console_reclaim();
	printk("power: reboot\n");
	smp_stop_others();
	irq_disable();
	power_reset_register();
	outb(0x64, 0xfe);                 /* keyboard controller: pulse reset */
	time_delay_us(50000);
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) none = { 0, 0 };
	__asm__ volatile("lidt %0; int3" : : "m"(none));   /* triple fault */
	for (;;)
		cpu_halt();
}
