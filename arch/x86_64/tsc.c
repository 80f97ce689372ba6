/*
 * TSC frequency: CPUID leaf 15h (crystal ratio) or 16h (base MHz) when the
 * CPU reports them and a short PIT window agrees, else measured against PIT
 * channel 2. (Bochs reports its model's 15h rate while its TSC follows the
 * emulated instruction count, about 70 times slower.)
 */
#include <arch/cpu.h>
#include <arch/pc/pit.h>
#include <arch/time.h>
#include <kernel/printk.h>

#define LOG_PREFIX "time"
#define TSC_CHECK_MS 10

static uint64_t tsc_from_cpuid(void)
{
	uint32_t max = cpuid(0, 0).eax;

	if (max >= 0x15) {
		cpuid_regs_t r = cpuid(0x15, 0);
		if (r.eax && r.ebx && r.ecx)
			return (uint64_t)r.ecx * r.ebx / r.eax;
	}
	if (max >= 0x16) {
		cpuid_regs_t r = cpuid(0x16, 0);
		if (r.eax & 0xffff)
			return (uint64_t)(r.eax & 0xffff) * 1000000;
	}
	return 0;
}

static bool tsc_invariant(void)
{
	if (cpuid(0x80000000, 0).eax < 0x80000007)
		return false;
	return cpuid(0x80000007, 0).edx & (1u << 8);
}

/* Best (shortest-disturbed) of several PIT windows. */
static uint64_t tsc_from_pit(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t c = pit_measure_cycles(PIT_CALIBRATE_MS);
		if (c && c < best)
			best = c;
	}
	uint64_t ticks = (uint64_t)PIT_HZ * PIT_CALIBRATE_MS / 1000;
	return best == UINT64_MAX ? 0 : best * PIT_HZ / ticks;
}

/* Whether a CPUID rate of hz is within 25% of one quick PIT window. */
static bool tsc_cpuid_plausible(uint64_t hz)
{
	uint64_t c = pit_measure_cycles(TSC_CHECK_MS);
	uint64_t measured = c * 1000 / TSC_CHECK_MS;

	if (!c || (measured * 4 >= hz * 3 && measured * 4 <= hz * 5))
		return true;
	pr_warn("CPUID says the TSC runs at %lu kHz, the PIT measures %lu kHz",
		hz / 1000, measured / 1000);
	return false;
}

uint64_t arch_cycles_reference(unsigned ms)
{
	return pit_measure_cycles(ms);
}

uint64_t arch_cycles_calibrate(void)
{
	uint64_t hz = tsc_from_cpuid();
	const char *how = "CPUID";

	if (!hz || !tsc_cpuid_plausible(hz)) {
		hz = tsc_from_pit();
		how = "PIT";
	}
	pr_info("TSC frequency from %s%s", how,
		tsc_invariant() ? ", invariant TSC" : ", TSC not marked invariant");
	return hz;
}
