/*
 * The HPET (IA-PC HPET specification 1.0a) as a stopwatch for the TSC.
 * Unlike the PIT's one-shot window, the main counter runs freely: only
 * the two end points have to be read close together, so a vCPU that the
 * host deschedules in the middle of the window does not skew the result.
 * Each end point is a TSC read bracketed by two counter reads; the
 * tightest of a few brackets is kept and its midpoint used.
 */
#include <arch/cpu.h>
#include <arch/pc/pc.h>
#include <arch/pc/hpet.h>
#include <kernel/cmdline.h>
#include <kernel/vm.h>

#define HPET_GCAP_LO 0x00      /* bit 13: 64-bit counter */
#define HPET_GCAP_HI 0x04      /* main counter period in femtoseconds */
#define HPET_GCONF 0x10        /* bit 0: ENABLE_CNF (the counter runs) */
#define HPET_COUNTER 0xf0      /* main counter, low 32 bits used */
#define HPET_SIZE 0x400
#define HPET_ENABLE 1u
#define HPET_MAX_PERIOD_FS 100000000u   /* 100 ns: the spec's slowest */
#define FS_PER_SEC 1000000000000000ull
#define HPET_BRACKETS 4
#define HPET_SPIN_LIMIT 100000000ul

typedef struct {
	uint64_t tsc;
	uint32_t count;
} hpet_point_t;

static volatile uint32_t *hpet_regs;

static uint32_t hpet_read(unsigned off)
{
	return hpet_regs[off / 4];
}

static void hpet_write(unsigned off, uint32_t v)
{
	hpet_regs[off / 4] = v;
}

/* The counter and the TSC at one instant: the tightest of a few brackets. */
static hpet_point_t hpet_point(void)
{
	hpet_point_t best = { 0, 0 };
	uint32_t best_width = UINT32_MAX;

	for (int i = 0; i < HPET_BRACKETS; i++) {
		uint32_t a = hpet_read(HPET_COUNTER);
		uint64_t t = rdtsc();
		uint32_t b = hpet_read(HPET_COUNTER);
		if (b - a < best_width) {
			best_width = b - a;
			best.tsc = t;
			best.count = a + (b - a) / 2;
		}
	}
	return best;
}

/* TSC cycles over `ticks` counter ticks, or 0 if the counter stands still. */
static uint64_t hpet_window(uint32_t ticks, uint32_t *counted)
{
	hpet_point_t p0 = hpet_point(), p1;
	uint64_t spins = 0;

	do {
		if (++spins > HPET_SPIN_LIMIT)
			return 0;
		cpu_relax();
		p1 = hpet_point();
	} while (p1.count - p0.count < ticks);
	*counted = p1.count - p0.count;
	return p1.tsc - p0.tsc;
}

/* Map the HPET block once; false without one (or with `nohpet`). */
static bool hpet_map(void)
{
	if (hpet_regs)
		return true;
	if (!acpi.have_hpet || !acpi.hpet_addr || cmdline_has("nohpet"))
		return false;
	hpet_regs = vm_map_mmio(acpi.hpet_addr, HPET_SIZE);
	return hpet_regs != NULL;
}

uint64_t hpet_tsc_hz(unsigned ms)
{
	if (!hpet_map())
		return 0;
	uint32_t period = hpet_read(HPET_GCAP_HI);
	if (period == 0 || period > HPET_MAX_PERIOD_FS)
		return 0;
	uint32_t conf = hpet_read(HPET_GCONF);
	if (!(conf & HPET_ENABLE))
		hpet_write(HPET_GCONF, conf | HPET_ENABLE);
	uint64_t ticks = FS_PER_SEC / period * ms / 1000, cycles;
	uint32_t counted = 0;
	cycles = hpet_window((uint32_t)ticks, &counted);
	if (!(conf & HPET_ENABLE))
		hpet_write(HPET_GCONF, conf);
	if (!cycles || !counted)
		return 0;
	return cycles * (FS_PER_SEC / period) / counted;   /* < 2^64 for 10 ms */
}
