/*
 * TSC frequency, first source that answers:
 *  1. the hypervisor's timing leaf 0x40000010 (KVM, VMware), trusted;
 *  2. CPUID leaf 15h (crystal ratio) or 16h (base MHz), when one short
 *     window of an independent clock agrees (Bochs reports its model's
 *     15h rate while its TSC follows the emulated instruction count,
 *     about 70 times slower);
 *  3. that window itself when it is the HPET's (one 10 ms window: its
 *     counter runs freely, so only the end points count);
 *  4. PIT channel 2: the shortest of three 50 ms one-shot windows.
 */
#include <arch/cpu.h>
#include <arch/pc/hpet.h>
#include <arch/pc/pit.h>
#include <arch/time.h>
#include <kernel/printk.h>
#include <lib/string.h>

#define LOG_PREFIX "time"
#define TSC_CHECK_MS 10
#define HV_TIMING_LEAF 0x40000010u

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

/* The TSC rate in KVM's or VMware's timing leaf (EAX = kHz), or 0. */
static uint64_t tsc_from_hypervisor(void)
{
	uint32_t max = 0;

	if (!cpuid_hypervisor_is("KVMKVMKVM\0\0\0", &max) &&
	    !cpuid_hypervisor_is("VMwareVMware", &max))
		return 0;
	if (max < HV_TIMING_LEAF)
		return 0;
	return (uint64_t)cpuid(HV_TIMING_LEAF, 0).eax * 1000;
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

/* Whether hz is within 1/slack of measured (a measurement of 0 proves nothing). */
static bool tsc_agrees(uint64_t hz, uint64_t measured, unsigned slack)
{
	return !measured || (measured >= hz - hz / slack && measured <= hz + hz / slack);
}

/*
 * Whether a CPUID rate of hz agrees with one quick window: the HPET's
 * (then within 2%, and *hpet_hz keeps it) or, without one, the PIT's
 * (within 25%: one short one-shot window is noisy).
 */
static bool tsc_cpuid_plausible(uint64_t hz, uint64_t *hpet_hz)
{
	uint64_t measured = *hpet_hz = hpet_tsc_hz(TSC_CHECK_MS);
	unsigned slack = 50;
	const char *clock = "the HPET";

	if (!measured) {
		measured = pit_measure_cycles(TSC_CHECK_MS) * 1000 / TSC_CHECK_MS;
		slack = 4;
		clock = "the PIT";
	}
	if (tsc_agrees(hz, measured, slack))
		return true;
	pr_warn("CPUID says the TSC runs at %lu kHz, %s measures %lu kHz",
		hz / 1000, clock, measured / 1000);
	return false;
}

uint64_t arch_cycles_reference(unsigned ms)
{
	return pit_measure_cycles(ms);
}

/* The rate and the name of the first source in the list above that has one. */
static uint64_t tsc_calibrate(const char **how)
{
	uint64_t hz = tsc_from_hypervisor(), hpet_hz = 0;

	*how = "the hypervisor's CPUID leaf 0x40000010";
	if (hz)
		return hz;
	hz = tsc_from_cpuid();
	*how = "CPUID";
	if (hz && tsc_cpuid_plausible(hz, &hpet_hz))
		return hz;
	*how = "one HPET window";
	if (!hz)
		hpet_hz = hpet_tsc_hz(TSC_CHECK_MS);
	if (hpet_hz)
		return hpet_hz;
	*how = "PIT";
	return tsc_from_pit();
}

uint64_t arch_cycles_calibrate(void)
{
	const char *how;
	uint64_t hz = tsc_calibrate(&how);

	pr_info("TSC frequency from %s%s", how,
		tsc_invariant() ? ", invariant TSC" : ", TSC not marked invariant");
	return hz;
}
