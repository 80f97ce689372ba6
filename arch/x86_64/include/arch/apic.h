/*
 * The local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode; the mode is chosen
 * once on the boot CPU and used by every CPU.
 */
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include <kernel/types.h>

#define APIC_DM_FIXED 0x000
#define APIC_DM_NMI 0x400
#define APIC_DM_INIT 0x500
#define APIC_DM_STARTUP 0x600
#define APIC_LVT_MASKED (1u << 16)

/* Choose the mode (x2APIC unless absent or "nox2apic"), map the registers. */
void lapic_global_init(paddr_t mmio_base);
/* Enable this CPU's local APIC: spurious vector, LVTs, error vector. */
void lapic_cpu_init(void);
/* True in x2APIC mode. */
bool lapic_x2apic(void);
/* This CPU's APIC id. */
uint32_t lapic_id(void);
/* End of interrupt for the vector being served. */
void lapic_eoi(void);
/* Send an IPI (delivery mode | vector) to one APIC id. */
void lapic_send_ipi(uint32_t apic_id, uint32_t mode_vector);
/* Send an IPI to every CPU but this one. */
void lapic_send_ipi_others(uint32_t mode_vector);
/*
 * NMI to every CPU but this one, safe from NMI context: only ICR low is
 * written (the all-excluding-self shorthand ignores ICR high, which an
 * interrupted sender may be half-way through); in xAPIC mode it first
 * waits for the previous IPI's delivery status to clear.
 */
void lapic_nmi_others_from_nmi(void);
/* Write this CPU's LVT performance-counter entry (mode | vector | mask). Any context. */
void lapic_set_lvt_perf(uint32_t v);
/* Program LINT0/LINT1 from the ACPI NMI entries for this CPU. */
void lapic_set_lint_nmi(unsigned lint, bool active_low, bool level);

/* Program LINT0/1 as NMI where the MADT says so for this processor UID. */
void lapic_apply_nmi_entries(uint32_t acpi_uid);

/*
 * Measure this CPU's timer against the TSC: by its current count, or
 * under QEMU -icount by timing its one-shot expiry (the count is not
 * read there; see apic.c). After platform_sampling_init. Interrupts are
 * taken only for the expiry windows' own; preemption off. Leaves the
 * timer stopped. Returns ticks per second (at divide-by-16).
 */
uint64_t lapic_timer_calibrate(void);
/* Periodic timer interrupts at hz on VEC_TIMER. */
void lapic_timer_start(uint64_t ticks_per_sec, unsigned hz);
/* The same on another vector (the profiler's cost probe). This CPU's timer. */
void lapic_timer_start_vector(uint64_t ticks_per_sec, unsigned hz, uint8_t vector);
/* This CPU's timer in one-shot mode on vector (divide by 16, as
 * calibrated), stopped until lapic_timer_oneshot arms it. */
void lapic_timer_oneshot_mode(uint8_t vector);
/* Arm this CPU's one-shot timer: one interrupt after count ticks (>= 1). */
void lapic_timer_oneshot(uint32_t count);
/* Stop this CPU's timer (no interrupts until the next start). */
void lapic_timer_stop(void);

#endif
