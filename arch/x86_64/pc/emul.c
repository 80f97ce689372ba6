/*
 * Which emulator runs us, for the profiler's exactness note: QEMU TCG
 * (CPUID hypervisor signature "TCGTCGTCGTCG" at 4000_0000h) and whether
 * it counts instructions (-icount). Under -icount the TSC follows the
 * instruction count, so a fixed loop always takes the same number of TSC
 * cycles; without it the TSC follows the host clock and the same loop
 * takes a different count nearly every time.
 */
#include <abi/platform.h>
#include <arch/cpu.h>
#include <arch/time.h>
#include <kernel/platform.h>
#include <kernel/printk.h>

#define LOG_PREFIX "platform"
#define EMUL_RUNS 9
#define EMUL_LOOP 2000
#define EMUL_SAME_MIN 5        /* runs with one identical count: -icount */

static unsigned emul_kind = PLATFORM_NATIVE;

static bool emul_is_tcg(void)
{
	if (!(cpuid(1, 0).ecx & (1u << 31)))
		return false;
	cpuid_regs_t r = cpuid(0x40000000, 0);
	return r.ebx == 0x54474354 && r.ecx == 0x43544743 && r.edx == 0x47435447;
}

/* TSC cycles of a fixed loop of EMUL_LOOP iterations. Interrupts off. */
static uint64_t emul_loop_cycles(void)
{
	uint64_t t0 = arch_cycles();
	unsigned n = EMUL_LOOP;

	__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
	return arch_cycles() - t0;
}

/* The most runs that took one and the same count. */
static unsigned emul_most_same(const uint64_t *c, unsigned n)
{
	unsigned best = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned same = 0;
		for (unsigned j = 0; j < n; j++)
			same += c[j] == c[i];
		if (same > best)
			best = same;
	}
	return best;
}

static bool emul_counts_instructions(void)
{
	uint64_t c[EMUL_RUNS];
	uint64_t f = irq_save();

	for (unsigned i = 0; i < EMUL_RUNS; i++)
		c[i] = emul_loop_cycles();
	irq_restore(f);
	return emul_most_same(c, EMUL_RUNS) >= EMUL_SAME_MIN;
}

/* Boot CPU, after time_init, before the APs: sets and logs emul_kind. */
void platform_sampling_init(void)
{
	if (!emul_is_tcg())
		return;
	if (emul_counts_instructions()) {
		emul_kind = PLATFORM_TCG_ICOUNT;
		pr_info("QEMU TCG with -icount: samples land on exact instructions");
	} else {
		emul_kind = PLATFORM_TCG;
		pr_info("QEMU TCG without -icount: profile samples are biased to "
			"translation-block starts");
	}
}

/* PLATFORM_* of <abi/platform.h>. Any context. */
unsigned platform_sampling(void)
{
	return emul_kind;
}
