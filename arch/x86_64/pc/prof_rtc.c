/*
 * The profiler's rtc and rtc-nmi sources: the CMOS RTC's periodic
 * interrupt (IRQ 8) at a power of two from 2 to 8192 Hz, routed through
 * the IOAPIC to the boot CPU (cpus[0]).
 *
 *   rtc      IRQ 8 on RTC_VECTOR; the handler samples its own frame and
 *            sends the fixed IPI VEC_IPI_PROF to every other CPU, whose
 *            handler samples theirs. Code running with interrupts off is
 *            not sampled (the sample lands when it re-enables them).
 *   rtc-nmi  IRQ 8's redirection entry uses delivery mode NMI (edge), so
 *            the boot CPU samples from NMI context; it flags the others
 *            with NMI_REASON_PROF and sends them an NMI by the
 *            all-excluding-self shorthand (lapic_nmi_others_from_nmi).
 *
 * Registers: A bits 0-3 = rate r (32768 >> (r - 1) Hz; the divider bits
 * 4-6 are written back as found, so the clock keeps its time base); B bit
 * 6 = PIE; C is read to acknowledge (bit 6 = periodic flag; reading
 * clears it and lowers IRQ 8). A and B and IRQ 8's IOAPIC entry are saved
 * at start and restored exactly at stop.
 *
 * CMOS access is two port steps (index 0x70, data 0x71), so an NMI that
 * reads register C between another context's index write and data access
 * would corrupt it. Rules that keep every CMOS access exclusive while a
 * session runs:
 *   - the NMI handler touches the CMOS only on the boot CPU, only while
 *     rtc.armed, and never while rtc.busy;
 *   - start and stop program the CMOS on the boot CPU only (through
 *     smp_call_all, interrupts off) with rtc.busy set, so the only thing
 *     that can interrupt them there is that NMI, which then stays away;
 *   - the only other CMOS users, rtc_init() (boot, before any session)
 *     and rtc_read_seconds() (tests, between sessions), never run while a
 *     session does.
 * An NMI that arrives on the boot CPU while rtc.busy is claimed without a
 * sample: the busy code reads register C itself before it finishes.
 *
 * Not under KVM: its in-kernel IOAPIC tracks the EOI of each interrupt it
 * delivers for GSI 8 (against Windows' clock drift) and drops later RTC
 * interrupts as "coalesced" until it sees it; an NMI has no EOI (and KVM
 * does not even record it as awaiting one), so after the first RTC NMI
 * the RTC is silent, rtc included, until the VM is reset. Seen with QEMU
 * 7.2 here; QEMU's own IOAPIC (kernel-irqchip=split) works, but a guest
 * cannot tell which one it has, so rtc-nmi is refused under KVM.
 */
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/pc/pc.h>
#include <arch/prof_src.h>
#include <arch/smp.h>
#include <kernel/prof.h>
#include <kernel/smp.h>

#define RTC_IRQ 8
#define RTC_VECTOR (VEC_IRQ_BASE + RTC_IRQ)
#define RTC_REG_A 0x0a
#define RTC_REG_B 0x0b
#define RTC_REG_C 0x0c
#define RTC_A_RATE 0x0f
#define RTC_A_DIVIDER 0x70
#define RTC_B_PIE 0x40
#define RTC_C_PF 0x40
#define RTC_HZ_MIN 2
#define RTC_HZ_MAX 8192

static struct {
	volatile bool armed;        /* IRQ 8 routed and PIE on */
	volatile bool busy;         /* the boot CPU is programming the CMOS */
	bool nmi;                   /* rtc-nmi rather than rtc */
	uint8_t rate;               /* register A rate bits in use */
	uint8_t saved_a, saved_b;
	uint64_t saved_rte;
	errno_t rc;                 /* of the last arm on the boot CPU */
} rtc;

/* hz rounded to the nearest power of two in [2, 8192]. */
static unsigned prof_rtc_round(unsigned hz)
{
	unsigned p = RTC_HZ_MIN;

	while (p < RTC_HZ_MAX && p * 2 <= hz)
		p *= 2;
	if (p < RTC_HZ_MAX && hz > p && hz - p > p * 2 - hz)
		p *= 2;
	return p;
}

/* Register A rate bits for a power of two hz: 32768 >> (r - 1) = hz. */
static uint8_t prof_rtc_rate_bits(unsigned hz)
{
	uint8_t r = 1;

	while ((32768u >> (r - 1)) > hz)
		r++;
	return r;
}

/* The others sample too: fixed IPI (rtc) or flagged NMI (rtc-nmi). */
static void prof_rtc_broadcast(void)
{
	if (cpus_online < 2)
		return;
	if (!rtc.nmi) {
		arch_send_ipi_others(VEC_IPI_PROF);
		return;
	}
	uint32_t me = cpu_id();
	for (unsigned i = 0; i < cpu_count; i++)
		if (i != me && cpus[i]->online)
			__atomic_or_fetch(&cpus[i]->nmi_pending, NMI_REASON_PROF,
					  __ATOMIC_RELEASE);
	lapic_nmi_others_from_nmi();
}

/* IRQ 8 (rtc): acknowledge, sample, pass it on. Boot CPU, interrupts off. */
static void prof_rtc_irq(int_frame_t *f)
{
	if (!rtc.armed || rtc.nmi || rtc.busy)
		return;
	if (!(cmos_read(RTC_REG_C) & RTC_C_PF))
		return;
	prof_hit(f, PROF_SRC_RTC);
	prof_rtc_broadcast();
}

/* VEC_IPI_PROF on the other CPUs (rtc). */
static void prof_rtc_ipi(int_frame_t *f)
{
	if (rtc.armed && !rtc.nmi)
		prof_hit(f, PROF_SRC_RTC);
}

/* NMI part of rtc-nmi (NMI context): true if the NMI was the RTC's or a broadcast. */
static bool prof_rtc_nmi(int_frame_t *f, bool prof_ipi)
{
	bool mine = false;

	if (prof_ipi) {
		if (rtc.armed && rtc.nmi)
			prof_hit(f, PROF_SRC_RTC_NMI);
		mine = true;
	}
	if (!rtc.armed || !rtc.nmi || cpu_id() != 0)
		return mine;
	if (rtc.busy)
		return true;
	if (!(cmos_read(RTC_REG_C) & RTC_C_PF))
		return mine;
	prof_hit(f, PROF_SRC_RTC_NMI);
	prof_rtc_broadcast();
	return true;
}

/* Boot CPU, interrupts off: save, program A and B, route IRQ 8, acknowledge. */
static void prof_rtc_arm(void)
{
	uint32_t mode = rtc.nmi ? APIC_DM_NMI : APIC_DM_FIXED | RTC_VECTOR;

	rtc.busy = true;
	rtc.rc = ioapic_get_isa(RTC_IRQ, &rtc.saved_rte);
	if (rtc.rc == EOK) {
		rtc.saved_a = cmos_read(RTC_REG_A) & 0x7f;   /* bit 7 (UIP) is read-only */
		rtc.saved_b = cmos_read(RTC_REG_B);
		cmos_write(RTC_REG_A, (rtc.saved_a & RTC_A_DIVIDER) | rtc.rate);
		cmos_write(RTC_REG_B, rtc.saved_b | RTC_B_PIE);
		rtc.rc = ioapic_route_isa_mode(RTC_IRQ, mode, cpus[0]->arch.apic_id);
		rtc.armed = rtc.rc == EOK;
		/* A flag raised before the entry was live holds IRQ 8 high: no edge. */
		(void)cmos_read(RTC_REG_C);
	}
	__atomic_store_n(&rtc.busy, false, __ATOMIC_RELEASE);
}

/* Boot CPU, interrupts off: IRQ 8's entry, B, then A as found; acknowledge. */
static void prof_rtc_disarm(void)
{
	rtc.busy = true;
	rtc.armed = false;
	(void)ioapic_set_isa(RTC_IRQ, rtc.saved_rte);
	cmos_write(RTC_REG_B, rtc.saved_b);
	cmos_write(RTC_REG_A, rtc.saved_a);
	(void)cmos_read(RTC_REG_C);
	__atomic_store_n(&rtc.busy, false, __ATOMIC_RELEASE);
}

static void prof_rtc_on_boot_cpu(void *arg)
{
	if (cpu_id() == 0)
		((void (*)(void))arg)();
}

/*
 * Start the RTC periodic interrupt, as a fixed IRQ (nmi false) or an NMI.
 * EBUSY if a driver task has subscribed to IRQ 8 (its handler replaced ours).
 */
static errno_t prof_rtc_start(bool nmi, unsigned hz, unsigned *hz_out)
{
	unsigned p = prof_rtc_round(hz);

	if (irq_get_handler(RTC_VECTOR) != prof_rtc_irq)
		return EBUSY;           /* a driver subscribed to IRQ 8 */
	rtc.nmi = nmi;
	rtc.rate = prof_rtc_rate_bits(p);
	smp_call_all(prof_rtc_on_boot_cpu, (void *)prof_rtc_arm);
	if (rtc.rc != EOK)
		return rtc.rc;
	*hz_out = p;
	return EOK;
}

/* Stop it: IRQ 8's IOAPIC entry and registers A and B as found. */
static void prof_rtc_stop(void)
{
	smp_call_all(prof_rtc_on_boot_cpu, (void *)prof_rtc_disarm);
}

static bool rtc_ok;                /* prof_rtc_probe said yes */
static const char *rtc_why;        /* ... or why not */

/* Boot: install the IRQ 8 and VEC_IPI_PROF handlers; whether the RTC is usable. */
static bool prof_rtc_probe(const char **why)
{
	uint64_t rte;

	irq_set_handler(RTC_VECTOR, prof_rtc_irq);
	irq_set_handler(VEC_IPI_PROF, prof_rtc_ipi);
	if (acpi.have_fadt && (acpi.iapc_boot_arch & ACPI_BOOT_NO_CMOS_RTC))
		rtc_why = "the FADT says there is no CMOS RTC";
	else if (ioapic_get_isa(RTC_IRQ, &rte) != EOK)
		rtc_why = "no IOAPIC input for IRQ 8";
	rtc_ok = !rtc_why;
	*why = rtc_why;
	return rtc_ok;
}

/* "KVMKVMKVM\0\0\0" at CPUID 4000_0000h, behind the hypervisor bit. */
static bool prof_rtc_under_kvm(void)
{
	return cpuid_hypervisor_is("KVMKVMKVM\0\0\0", NULL);
}

/* Whether the RTC may be delivered as NMI here (after prof_rtc_probe). */
static bool prof_rtc_nmi_probe(const char **why)
{
	if (!rtc_ok)
		*why = rtc_why ? rtc_why : "the rtc source was not probed";
	else if (prof_rtc_under_kvm())
		*why = "KVM's IOAPIC would silence the RTC after one NMI";
	else
		*why = NULL;
	return !*why;
}

static errno_t prof_rtc_start_irq(unsigned hz, unsigned *hz_out)
{
	return prof_rtc_start(false, hz, hz_out);
}

static errno_t prof_rtc_start_nmi(unsigned hz, unsigned *hz_out)
{
	return prof_rtc_start(true, hz, hz_out);
}

/* rtc ranks before rtc-nmi: rtc-nmi's probe follows rtc's. */
PROF_SOURCE(rtc) = {
	.id = PROF_SRC_RTC, .name = "rtc", .rank = 20,
	.flags = PROF_SRCF_CLOCK | PROF_SRCF_NODEFAULT, .probe = prof_rtc_probe,
	.start = prof_rtc_start_irq, .stop = prof_rtc_stop,
};

PROF_SOURCE(rtc_nmi) = {
	.id = PROF_SRC_RTC_NMI, .name = "rtc-nmi", .rank = 30,
	.flags = PROF_SRCF_CLOCK | PROF_SRCF_NMI, .probe = prof_rtc_nmi_probe,
	.start = prof_rtc_start_nmi, .stop = prof_rtc_stop, .nmi = prof_rtc_nmi,
};
