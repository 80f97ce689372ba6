/*
 * CPU hardening on x86-64: SMEP, SMAP and UMIP, each turned on on every
 * CPU once all CPUs are up, if every CPU's CPUID reports it (CPUs may
 * differ: stac/clac are #UD on one without SMAP, and the stubs and the
 * copy routine decide from one global flag); RDSEED/RDRAND (or a TSC
 * mix) for random values; the ktest hooks of <arch/harden.h>.
 *
 * SMAP: with CR4.SMAP the kernel faults on any access to a user page
 * unless RFLAGS.AC is set. Only arch_copy_user (uaccess.asm) sets it, for
 * the copy itself; every entry stub clears it (an interrupt does not), and
 * SYSCALL clears it through SFMASK. Everything else that reads user memory
 * goes through the page tables and the direct map (arch_user_peek,
 * vm_space_read/write).
 */
#include <abi/harden.h>
#include <arch/cpu.h>
#include <arch/harden.h>
#include <kernel/cpu.h>
#include <lib/canary.h>

#define CR4_UMIP (1ul << 11)
#define CR4_SMEP (1ul << 20)
#define CR4_SMAP (1ul << 21)
#define RFLAGS_AC (1ul << 18)

#define CPUID7_EBX_SMEP (1u << 7)
#define CPUID7_EBX_RDSEED (1u << 18)
#define CPUID7_EBX_SMAP (1u << 20)
#define CPUID7_ECX_UMIP (1u << 2)
#define CPUID1_ECX_RDRAND (1u << 30)

#define RANDOM_TRIES 10
#define TSC_MIX_ROUNDS 32

/* Read by the entry stubs and the copy routine (smap.inc): may they stac/clac? */
uint8_t arch_smap_on;

/* HARDEN_* bits each CPU's CPUID reported at its bring-up, by CPU id. */
static unsigned harden_cpu_features[MAX_CPUS];

/* HARDEN_* features CPUID reports on this CPU (no CR4 bits). */
unsigned arch_harden_cpuid(void)
{
	unsigned f = 0;

	if (cpuid(1, 0).ecx & CPUID1_ECX_RDRAND)
		f |= HARDEN_RDRAND;
	if (cpuid(0, 0).eax < 7)
		return f;
	cpuid_regs_t r = cpuid(7, 0);
	f |= (r.ebx & CPUID7_EBX_SMEP) ? HARDEN_SMEP : 0;
	f |= (r.ebx & CPUID7_EBX_SMAP) ? HARDEN_SMAP : 0;
	f |= (r.ebx & CPUID7_EBX_RDSEED) ? HARDEN_RDSEED : 0;
	f |= (r.ecx & CPUID7_ECX_UMIP) ? HARDEN_UMIP : 0;
	return f;
}

void arch_harden_cpu(void)
{
	harden_cpu_features[cpu_current()->id] = arch_harden_cpuid();
}

unsigned arch_harden_cpu_features(unsigned id)
{
	return id < MAX_CPUS ? harden_cpu_features[id] : 0;
}

void arch_harden_enable(unsigned features)
{
	uint64_t cr4 = read_cr4();

	if (features & HARDEN_SMAP)
		arch_smap_on = 1;      /* before CR4.SMAP: the stubs may clac from now on */
	cr4 |= (features & HARDEN_SMEP) ? CR4_SMEP : 0;
	cr4 |= (features & HARDEN_SMAP) ? CR4_SMAP : 0;
	cr4 |= (features & HARDEN_UMIP) ? CR4_UMIP : 0;
	write_cr4(cr4);
}

unsigned arch_harden_flags(void)
{
	uint64_t cr4 = read_cr4();
	unsigned f = arch_harden_cpuid() & (HARDEN_RDRAND | HARDEN_RDSEED);

	f |= (cr4 & CR4_SMEP) ? HARDEN_SMEP : 0;
	f |= (cr4 & CR4_SMAP) ? HARDEN_SMAP : 0;
	f |= (cr4 & CR4_UMIP) ? HARDEN_UMIP : 0;
	return f;
}

static bool harden_rdseed(uint64_t *v)
{
	for (int i = 0; i < RANDOM_TRIES; i++) {
		bool ok;
		__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
		cpu_relax();
	}
	return false;
}

static bool harden_rdrand(uint64_t *v)
{
	for (int i = 0; i < RANDOM_TRIES; i++) {
		bool ok;
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

uint64_t arch_random64_tsc(void)
{
	uint64_t h = canary_mix(0, rdtsc());

	/* CPUID is serializing and slow to a varying degree: the low TSC bits jitter. */
	for (int i = 0; i < TSC_MIX_ROUNDS; i++) {
		h = canary_mix(h, cpuid(0, 0).eax);
		h = canary_mix(h, rdtsc());
	}
	return canary_mix(h, (uint64_t)(uintptr_t)&h);
}

uint64_t arch_random64(unsigned *how)
{
	unsigned f = arch_harden_cpuid();
	uint64_t v;

	*how = 0;
	if ((f & HARDEN_RDSEED) && harden_rdseed(&v))
		*how = HARDEN_RDSEED;
	else if ((f & HARDEN_RDRAND) && harden_rdrand(&v))
		*how = HARDEN_RDRAND;
	else
		v = arch_random64_tsc();
	return v;
}

paddr_t arch_user_window_enter(paddr_t root)
{
	paddr_t prev = read_cr3();
	write_cr3(root);
	return prev;
}

void arch_user_window_leave(paddr_t prev)
{
	write_cr3(prev);
}

bool arch_uaccess_allowed(void)
{
	return read_rflags() & RFLAGS_AC;
}

void arch_test_uaccess_open(void)
{
	if (arch_smap_on)
		__asm__ volatile("stac" ::: "memory", "cc");
}

void arch_test_uaccess_close(void)
{
	if (arch_smap_on)
		__asm__ volatile("clac" ::: "memory", "cc");
}
