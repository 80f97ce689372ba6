/*
 * x86-64 processor primitives: control registers, MSRs, CPUID, TSC,
 * interrupt flag. Everything here is a single instruction or close to it.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdbool.h>
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

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline bool irq_enabled(void)
{
	return read_rflags() & RFLAGS_IF;
}

/* Disable interrupts; returns the previous state for irq_restore(). */
static inline uint64_t irq_save(void)
{
	uint64_t f = read_rflags();
	irq_disable();
	return f & RFLAGS_IF;
}

/* Re-enable interrupts if irq_save() found them enabled. */
static inline void irq_restore(uint64_t saved)
{
	if (saved)
		irq_enable();
}

static inline uint64_t read_rbp(void)
{
	uint64_t v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

#endif
