/* Local APIC access, IPIs and the per-CPU timer. */
#include <abi/platform.h>
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/pc/pc.h>
#include <kernel/cmdline.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/time.h>
#include <kernel/vm.h>

#define LOG_PREFIX "apic"

#define APIC_ID 0x020
#define APIC_VERSION 0x030
#define APIC_TPR 0x080
#define APIC_EOI 0x0b0
#define APIC_SVR 0x0f0
#define APIC_IRR 0x200
#define APIC_ESR 0x280
#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_PERF 0x340
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_LINT1 0x360
#define APIC_LVT_ERROR 0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR 0x390
#define APIC_TIMER_DIV 0x3e0

#define APIC_BASE_X2 (1ul << 10)
#define APIC_BASE_EN (1ul << 11)
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define ICR_PENDING (1u << 12)
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)
#define ICR_OTHERS (3u << 18)

#define LAPIC_CAL_MS 2             /* the (long) calibration window */
#define LAPIC_CAL_BRACKETS 4       /* by count: TSC brackets of each end point */
#define LAPIC_CAL_PROBE 1024       /* by expiry: timer ticks of the short window */
#define LAPIC_CAL_WINDOWS 2        /* by expiry: each timed this often, the shortest kept */
#define LAPIC_CAL_MAX_COUNT (1u << 28)  /* keeps count x cycles/s in 64 bits */

static bool x2apic;
static volatile uint32_t *xapic_regs;
static volatile unsigned long lapic_cal_taken;  /* VEC_LAPIC_CAL interrupts */

static uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return xapic_regs[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), v);
	else
		xapic_regs[reg / 4] = v;
}

void lapic_global_init(paddr_t mmio_base)
{
	bool have_x2 = cpuid(1, 0).ecx & (1u << 21);

	x2apic = have_x2 && !cmdline_has("nox2apic");
	if (!x2apic) {
		xapic_regs = vm_map_mmio(mmio_base, PAGE_SIZE);
		if (!xapic_regs)
			panic("apic: cannot map the local APIC at %#lx", mmio_base);
	}
	pr_info("local APIC in %s mode%s", x2apic ? "x2APIC" : "xAPIC",
		have_x2 && !x2apic ? " (x2APIC disabled on the command line)" : "");
}

bool lapic_x2apic(void)
{
	return x2apic;
}

static void lapic_enable_mode(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;
	wrmsr(MSR_APIC_BASE, base);
	if (x2apic)
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_X2);
}

void lapic_cpu_init(void)
{
	lapic_enable_mode();
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_LVT_LINT0, LVT_MASKED);
	lapic_write(APIC_LVT_LINT1, LVT_MASKED);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	lapic_write(APIC_LVT_ERROR, VEC_APIC_ERROR);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_ESR, 0);
	lapic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);
	lapic_eoi();
}

uint32_t lapic_id(void)
{
	return x2apic ? lapic_read(APIC_ID) : lapic_read(APIC_ID) >> 24;
}

void lapic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

static void lapic_icr(uint32_t dest, uint32_t lo)
{
	if (x2apic) {
		wrmsr(0x830, ((uint64_t)dest << 32) | lo);
		return;
	}
	while (lapic_read(APIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
	lapic_write(APIC_ICR_HI, dest << 24);
	lapic_write(APIC_ICR_LO, lo);
}

void lapic_send_ipi(uint32_t apic_id, uint32_t mode_vector)
{
	uint32_t lo = mode_vector | ICR_ASSERT;
	uint64_t f = irq_save();

	if ((mode_vector & 0x700) == APIC_DM_INIT)
		lo |= ICR_LEVEL;
	lapic_icr(apic_id, lo);
	irq_restore(f);
}

void lapic_send_ipi_others(uint32_t mode_vector)
{
	uint64_t f = irq_save();
	lapic_icr(0, mode_vector | ICR_ASSERT | ICR_OTHERS);
	irq_restore(f);
}

void lapic_nmi_others_from_nmi(void)
{
	uint32_t lo = APIC_DM_NMI | ICR_ASSERT | ICR_OTHERS;

	if (x2apic) {
		wrmsr(0x830, lo);
		return;
	}
	while (lapic_read(APIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
	lapic_write(APIC_ICR_LO, lo);
}

void lapic_set_lvt_perf(uint32_t v)
{
	lapic_write(APIC_LVT_PERF, v);
}

void lapic_set_lint_nmi(unsigned lint, bool active_low, bool level)
{
	uint32_t v = APIC_DM_NMI | (active_low ? 1u << 13 : 0) | (level ? 1u << 15 : 0);
	lapic_write(lint ? APIC_LVT_LINT1 : APIC_LVT_LINT0, v);
}

static void lapic_error_irq(int_frame_t *f)
{
	lapic_write(APIC_ESR, 0);
	pr_warn("error status %#x on cpu %u", lapic_read(APIC_ESR), lapic_id());
}

/* The calibration's interrupt, taken once its window has been timed. */
static void lapic_cal_irq(int_frame_t *f)
{
	(void)f;
	lapic_cal_taken++;
}

/* Whether the one-shot timer's interrupt waits in the IRR (interrupts off). */
static bool lapic_cal_pending(void)
{
	uint32_t irr = lapic_read(APIC_IRR + VEC_LAPIC_CAL / 32 * 0x10);

	return irr & (1u << (VEC_LAPIC_CAL % 32));
}

/* Take the pending calibration interrupt: interrupts on just for it. */
static void lapic_cal_take(void)
{
	unsigned long seen = lapic_cal_taken;

	irq_enable_raw();
	while (lapic_cal_taken == seen)
		cpu_relax();
	irq_disable_raw();
}

/*
 * One window, interrupts off: TSC cycles from loading count into the
 * one-shot timer (the load bracketed by two TSC reads) until its
 * interrupt shows in the IRR; then the interrupt is taken.
 */
static uint64_t lapic_cal_window(uint32_t count)
{
	uint64_t a = time_cycles();
	lapic_write(APIC_TIMER_INIT, count);
	uint64_t b = time_cycles(), end;

	while (!lapic_cal_pending()) {
		end = time_cycles();
		if (end - b > time_cycles_per_sec())
			panic("apic: the timer did not fire within 1 s (count %u)", count);
	}
	end = time_cycles();
	lapic_cal_take();
	return end - (a + (b - a) / 2);
}

/* The shortest of LAPIC_CAL_WINDOWS windows (a late poll only adds). */
static uint64_t lapic_cal_shortest(uint32_t count)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < LAPIC_CAL_WINDOWS; i++)
		best = MIN(best, lapic_cal_window(count));
	return best;
}

/* A timer count and the TSC at one instant: the tightest of a few brackets. */
static void lapic_timer_point(uint32_t *count, uint64_t *cycles)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < LAPIC_CAL_BRACKETS; i++) {
		uint64_t a = time_cycles();
		uint32_t c = lapic_read(APIC_TIMER_CUR);
		uint64_t b = time_cycles();
		if (b - a < best) {
			best = b - a;
			*count = c;
			*cycles = a + (b - a) / 2;
		}
	}
}

/*
 * By the current count: the timer counts down from ~0 while the TSC
 * runs; only the two end points matter, each a count read bracketed by
 * two TSC reads, so a short window is enough and a vCPU descheduled in
 * between does not skew it.
 */
static uint64_t lapic_cal_by_count(void)
{
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	lapic_write(APIC_TIMER_INIT, 0xffffffff);
	uint32_t c0, c1;
	uint64_t t0, t1;
	lapic_timer_point(&c0, &t0);
	uint64_t wait = time_cycles_per_sec() / 1000 * LAPIC_CAL_MS;
	do {
		cpu_relax();
		lapic_timer_point(&c1, &t1);
	} while (t1 - t0 < wait);
	lapic_write(APIC_TIMER_INIT, 0);
	return (uint64_t)(c0 - c1) * time_cycles_per_sec() / MAX(t1 - t0, 1ul);
}

/*
 * By the expiry: the one-shot timer timed from its load to its
 * interrupt. A short window of LAPIC_CAL_PROBE ticks gives the rough
 * rate, a long one of about ms milliseconds the exact one, and their
 * difference cancels what the load and the poll add to both. Interrupts
 * off (but for taking each window's interrupt).
 */
static uint64_t lapic_cal_by_expiry(unsigned ms)
{
	uint64_t cps = time_cycles_per_sec();

	lapic_write(APIC_LVT_TIMER, VEC_LAPIC_CAL);  /* one-shot */
	uint64_t short_cycles = lapic_cal_shortest(LAPIC_CAL_PROBE);
	uint64_t want = cps / 1000 * ms * LAPIC_CAL_PROBE / MAX(short_cycles, 1ul);
	uint32_t count = (uint32_t)MIN(MAX(want, 2ul * LAPIC_CAL_PROBE), LAPIC_CAL_MAX_COUNT);
	uint64_t long_cycles = lapic_cal_shortest(count);
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	uint64_t span = long_cycles > short_cycles ? long_cycles - short_cycles : 1;
	return (uint64_t)(count - LAPIC_CAL_PROBE) * cps / span;
}

/*
 * Which way: where guest time is the instruction count (QEMU -icount)
 * the expiry is exact and no register read touches the clock; there the
 * current count must not be read at all, because QEMU 10 under -icount
 * aborts ("Bad icount read") when a RDMSR of the x2APIC current count
 * reads its virtual clock in the middle of a translation block (MMIO
 * reads are re-translated to end their block; RDMSR is not). Elsewhere
 * the count's bracketed end points are exact while a poll of the expiry
 * comes late by whatever the host's timer wake-up takes (plain TCG:
 * tens of µs, 2 to 8% of a 1 ms window, and on a loaded host far more:
 * QEMU 10's plain TCG in x2APIC mode once measured 6.8 MHz for 61 MHz, and
 * the tick then ran 9 times too slow). -icount is told by timing
 * (arch/x86_64/pc/emul.c), and a loaded host can only mislead it one way:
 * a host-timed TSC may repeat a count (plain TCG taken for -icount, which
 * then times the expiry, harmless), but under -icount the count is the
 * instruction count and never varies, so a guest found without -icount
 * is without it, and reads the count by RDMSR safely.
 */
uint64_t lapic_timer_calibrate(void)
{
	irq_set_handler(VEC_APIC_ERROR, lapic_error_irq);
	irq_set_handler(VEC_LAPIC_CAL, lapic_cal_irq);
	bool expiry = platform_sampling() == PLATFORM_TCG_ICOUNT;
	uint64_t f = irq_save();
	lapic_write(APIC_TIMER_DIV, 0x3);            /* divide by 16 */
	uint64_t rate = expiry ? lapic_cal_by_expiry(LAPIC_CAL_MS) : lapic_cal_by_count();
	irq_restore(f);
	pr_info("timer at %lu Hz (measured by its %s)", rate,
		expiry ? "one-shot expiry" : "current count");
	return rate;
}

void lapic_timer_start(uint64_t ticks_per_sec, unsigned hz)
{
	lapic_timer_start_vector(ticks_per_sec, hz, VEC_TIMER);
}

void lapic_timer_start_vector(uint64_t ticks_per_sec, unsigned hz, uint8_t vector)
{
	uint64_t count = ticks_per_sec / hz;
	lapic_write(APIC_TIMER_DIV, 0x3);
	lapic_write(APIC_LVT_TIMER, LVT_PERIODIC | vector);
	lapic_write(APIC_TIMER_INIT, (uint32_t)MAX(count, 1ul));
}

void lapic_timer_oneshot_mode(uint8_t vector)
{
	lapic_write(APIC_TIMER_INIT, 0);
	lapic_write(APIC_TIMER_DIV, 0x3);
	lapic_write(APIC_LVT_TIMER, vector);        /* one-shot */
}

void lapic_timer_oneshot(uint32_t count)
{
	lapic_write(APIC_TIMER_INIT, MAX(count, 1u));
}

void lapic_timer_stop(void)
{
	lapic_write(APIC_TIMER_INIT, 0);
}

void lapic_apply_nmi_entries(uint32_t acpi_uid)
{
	for (size_t i = 0; i < acpi.nnmis; i++) {
		const acpi_lapic_nmi_t *n = &acpi.nmis[i];
		if (n->acpi_uid != ACPI_UID_ALL && n->acpi_uid != acpi_uid)
			continue;
		lapic_set_lint_nmi(n->lint, acpi_inti_active_low(n->flags),
				   acpi_inti_level(n->flags));
	}
}
