/*
 * x86-64 processor primitives: control registers, MSRs, CPUID, TSC,
 * interrupt flag. Everything here is a single instruction or close to it.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <kernel/cpu.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSR_APIC_BASE 0x1b
#define MSR_EFER 0xc0000080
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_SFMASK 0xc0000084
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_TSC_DEADLINE 0x6e0

#define EFER_SCE (1u << 0)
#define EFER_LME (1u << 8)
#define EFER_NXE (1u << 11)

#define CR0_WP (1ul << 16)
#define CR4_PGE (1ul << 7)
#define RFLAGS_IF (1ul << 9)

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

#define CPUID1_HYPERVISOR (1u << 31)     /* CPUID 1 ECX: running under one */
#define CPUID_HV_LEAF 0x40000000u        /* the hypervisor's signature leaf */

typedef struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
} cpuid_regs_t;

static inline cpuid_regs_t cpuid(uint32_t leaf, uint32_t subleaf)
{
	cpuid_regs_t r;
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx),
			 "=d"(r.edx) : "a"(leaf), "c"(subleaf));
	return r;
}

/* Whether CPUID 0's 12-byte vendor string (EBX, EDX, ECX) is vendor. */
bool cpuid_vendor_is(const char *vendor);

/*
 * Whether a hypervisor is present (CPUID 1 ECX bit 31) and its 12-byte
 * signature at 4000_0000h (EBX, ECX, EDX) is sig; *max_leaf (may be NULL)
 * gets that leaf's EAX, the highest hypervisor leaf.
 */
bool cpuid_hypervisor_is(const char *sig, uint32_t *max_leaf);

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#define DEFINE_CR(n)                                                      \
	static inline uint64_t read_cr##n(void)                           \
	{                                                                 \
		uint64_t v;                                               \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));         \
		return v;                                                 \
	}                                                                 \
	static inline void write_cr##n(uint64_t v)                        \
	{                                                                 \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void cpu_halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

/*
 * Interrupts-off sections (arch/x86_64/irqlat.c): irqlat_off_begin() when
 * this CPU's IF just went from 1 to 0, irqlat_off_end() just before it
 * goes back to 1 (a no-op when no section is open). Interrupts off; the
 * per-CPU data must be set up. cpu_t.lat is reached GS-relative at its
 * offsetof: a few instructions, no call. Each section also leaves when and
 * where it opened, so that a sample it held back can be charged to it
 * (irqlat_late_site).
 */
#define CPU_OFF_IRQOFF_SINCE offsetof(cpu_t, lat.irqoff_since)
#define CPU_OFF_IRQOFF_SITE offsetof(cpu_t, lat.irqoff_site)
#define CPU_OFF_IRQOFF_MAX offsetof(cpu_t, lat.irqoff_max)
#define CPU_OFF_LAST_OPEN offsetof(cpu_t, lat.last_open)
#define CPU_OFF_LAST_CLOSE offsetof(cpu_t, lat.last_close)
#define CPU_OFF_LAST_SITE offsetof(cpu_t, lat.last_site)

/* The section's start (TSC) and its site: the PC of the code it is inlined in. */
static inline void irqlat_off_begin(void)
{
	__asm__ volatile("rdtsc; shl $32, %%rdx; or %%rdx, %%rax; mov %%rax, %%gs:%c0\n\t"
			 "lea 0(%%rip), %%rax; mov %%rax, %%gs:%c1"
			 : : "i"(CPU_OFF_IRQOFF_SINCE), "i"(CPU_OFF_IRQOFF_SITE)
			 : "rax", "rdx", "memory");
}

/*
 * The return to user mode from a system call opens its interrupts-off
 * section here, straight as the last section (its open and site; the
 * close left older): syscall_entry.asm's exit stamp closes it
 * (last_close), and the CPU's next entry from user mode takes its length
 * into the maximum (irqlat_ret_fold). Nothing may open or close a section
 * in between. Interrupts off, no section open.
 */
static inline void irqlat_ret_begin(void)
{
	__asm__ volatile("rdtsc; shl $32, %%rdx; or %%rdx, %%rax; mov %%rax, %%gs:%c0\n\t"
			 "lea 0(%%rip), %%rax; mov %%rax, %%gs:%c1"
			 : : "i"(CPU_OFF_LAST_OPEN), "i"(CPU_OFF_LAST_SITE)
			 : "rax", "rdx", "memory");
}

/* The return's section (irqlat_ret_begin) becomes an open one, to close as usual. */
static inline void irqlat_ret_reopen(void)
{
	__asm__ volatile("mov %%gs:%c0, %%rax; mov %%rax, %%gs:%c2\n\t"
			 "mov %%gs:%c1, %%rax; mov %%rax, %%gs:%c3"
			 : : "i"(CPU_OFF_LAST_OPEN), "i"(CPU_OFF_LAST_SITE),
			   "i"(CPU_OFF_IRQOFF_SINCE), "i"(CPU_OFF_IRQOFF_SITE)
			 : "rax", "memory");
}

/* When the open section opened (TSC; a gate's: its stub's entry), 0 if none is. */
static inline uint64_t irqlat_open_since(void)
{
	uint64_t since;

	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(since) : "i"(CPU_OFF_IRQOFF_SINCE));
	return since;
}

/*
 * The gate of an interrupt taken with IF set: isr.asm opened the section
 * at the stub (its start), so only the site is this code's; without that
 * start (a vector of the paranoid stub), the section opens here.
 */
static inline void irqlat_gate_begin(void)
{
	if (!irqlat_open_since()) {
		irqlat_off_begin();
		return;
	}
	__asm__ volatile("lea 0(%%rip), %%rax; mov %%rax, %%gs:%c0"
			 : : "i"(CPU_OFF_IRQOFF_SITE) : "rax", "memory");
}

/* The open section ends: the maximum, and the last section for late samples. */
static inline void irqlat_off_end(void)
{
	uint64_t since = irqlat_open_since(), max, site;

	if (!since)
		return;
	uint64_t now, d;

	__asm__ volatile("rdtsc; shl $32, %%rdx; or %%rdx, %%rax" : "=a"(now) : : "rdx");
	d = now - since;
	__asm__ volatile("mov %%gs:%c2, %1; movq $0, %%gs:%c3; mov %%gs:%c4, %0"
			 : "=r"(max), "=r"(site)
			 : "i"(CPU_OFF_IRQOFF_SITE), "i"(CPU_OFF_IRQOFF_SINCE),
			   "i"(CPU_OFF_IRQOFF_MAX) : "memory");
	__asm__ volatile("mov %0, %%gs:%c3; mov %1, %%gs:%c4; mov %2, %%gs:%c5"
			 : : "r"(since), "r"(now), "r"(site), "i"(CPU_OFF_LAST_OPEN),
			   "i"(CPU_OFF_LAST_CLOSE), "i"(CPU_OFF_LAST_SITE) : "memory");
	if (d > max)
		__asm__ volatile("mov %0, %%gs:%c1" : : "r"(d), "i"(CPU_OFF_IRQOFF_MAX) : "memory");
}

/*
 * The site of this CPU's last closed interrupts-off section if a tick due
 * at TSC due fell inside it (it was held back by that section), else 0.
 * Interrupts off (the CPU's own interrupt handler).
 */
uint64_t irqlat_late_site(uint64_t due);

/* An NMI handler that began at TSC start ends: update nmi_max. NMI-safe. */
void irqlat_nmi_end(uint64_t start);

/* cli/sti without the interrupts-off accounting (for the hooks themselves). */
static inline void irq_disable_raw(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void irq_enable_raw(void)
{
	__asm__ volatile("sti" ::: "memory");
}

/* Disable interrupts; opens an interrupts-off section if they were on. */
static inline void irq_disable(void)
{
	uint64_t f = read_rflags();

	irq_disable_raw();
	if (f & RFLAGS_IF)
		irqlat_off_begin();
}

/* Enable interrupts; closes the open interrupts-off section, if any. */
static inline void irq_enable(void)
{
	irqlat_off_end();
	irq_enable_raw();
}

static inline bool irq_enabled(void)
{
	return read_rflags() & RFLAGS_IF;
}

/* Disable interrupts; returns the previous state for irq_restore(). */
static inline uint64_t irq_save(void)
{
	uint64_t f = read_rflags();

	irq_disable_raw();
	if (f & RFLAGS_IF)
		irqlat_off_begin();
	return f & RFLAGS_IF;
}

/* Re-enable interrupts if irq_save() found them enabled. */
static inline void irq_restore(uint64_t saved)
{
	if (saved) {
		irqlat_off_end();
		irq_enable_raw();
	}
}

static inline uint64_t read_rbp(void)
{
	uint64_t v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

#endif
