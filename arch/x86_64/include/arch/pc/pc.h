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

/*
 * Route ISA IRQ irq like ioapic_route_isa() with a delivery mode:
 * mode_vector = APIC_DM_* | vector. NMI delivery is made edge-triggered
 * (the IOAPIC requires it); the ACPI polarity is kept. EOK or ENOENT.
 */
errno_t ioapic_route_isa_mode(unsigned irq, uint32_t mode_vector, uint32_t apic_id);

/* Read / write ISA IRQ irq's whole redirection entry (to save and restore it). */
errno_t ioapic_get_isa(unsigned irq, uint64_t *rte);
errno_t ioapic_set_isa(unsigned irq, uint64_t rte);

/*
 * CMOS registers (index port 0x70, data 0x71, NMI-disable bit kept set as
 * at boot). Two port accesses: callers must make sure nothing else on any
 * CPU, NMI handlers included, uses the CMOS at the same time. At present
 * the users are rtc_init() and rtc_read_seconds() (boot and tests, never
 * during a profiling session) and the profiler's rtc sources (pc/prof_rtc.c).
 */
uint8_t cmos_read(uint8_t reg);
void cmos_write(uint8_t reg, uint8_t v);

/* The CMOS clock now, in seconds since 1970 (UTC). See cmos_read(). */
int64_t rtc_read_seconds(void);

/* Read the CMOS clock and set the kernel's wall clock from it. */
void rtc_init(void);

/* Mask or unmask the IOAPIC input of ISA IRQ irq (keeping its routing). */
void ioapic_set_masked(unsigned irq, bool masked);

#endif
