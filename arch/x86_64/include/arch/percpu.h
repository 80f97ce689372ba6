/*
 * x86-64 part of the per-CPU data, the first member of every cpu_t: the
 * words the assembly reaches GS-relative (the self pointer, the syscall
 * entry's stacks and parked registers), descriptor tables, TSS, APIC id.
 * The assembly takes its offsets from arch/x86_64/asm-offsets.c.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <stdint.h>

typedef struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __attribute__((packed)) tss_t;

#define GDT_ENTRIES 8

#define IOMAP_BYTES 8192     /* one bit per port; 0 = allowed */
#define TSS_NO_IOMAP 0xffff  /* I/O map offset past the limit: no port allowed */

struct cpu;

typedef struct arch_cpu {
	struct cpu *self;            /* GS:0, must stay first (arch_cpu_current) */
	uint64_t kernel_rsp;         /* the syscall entry's stack: the running thread's top */
	uint64_t user_rsp;           /* the syscall entry parks the user RSP here */
	uint64_t stamp_save[2];      /* the syscall entry's TSC stamp parks rax, rdx here */
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	tss_t tss __attribute__((aligned(16)));
	uint8_t iomap[IOMAP_BYTES + 1];   /* follows the TSS; last byte 0xff */
	uint32_t apic_id;
	uint32_t acpi_uid;
	uint64_t lapic_ticks_per_sec;
	uint64_t ist_tops[3];
	volatile uint32_t start_progress;  /* AP start-up steps done (smp.c) */
} arch_cpu_t;

/* This CPU's cpu_t: GS points at its arch_cpu_t, whose self is at GS:0. */
static inline struct cpu *arch_cpu_current(void)
{
	struct cpu *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

#endif
