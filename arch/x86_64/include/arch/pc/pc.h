/* PC platform pieces: PIC, IOAPIC, ACPI glue, the test-exit port. */
#ifndef ARCH_PC_PC_H
#define ARCH_PC_PC_H

#include <arch/pc/acpi.h>
#include <kernel/types.h>

/* ACPI tables as parsed at boot (valid after platform_init()). */
extern acpi_info_t acpi;

/* Remap the 8259 PICs to 0x20-0x2f and mask all their inputs. */
void pic_disable(void);

/* Mask every IOAPIC input. */
void ioapic_init(void);

/*
 * Route ISA IRQ irq (after interrupt source overrides) to vector on the
 * CPU with apic_id. Returns EOK or ENOENT when no IOAPIC serves it.
 */
errno_t ioapic_route_isa(unsigned irq, unsigned vector, uint32_t apic_id);

/* Read the CMOS clock and set the kernel's wall clock from it. */
void rtc_init(void);

/* Mask or unmask the IOAPIC input of ISA IRQ irq (keeping its routing). */
void ioapic_set_masked(unsigned irq, bool masked);

#endif
