/*
 * The profiler's pmc source: one general-purpose performance counter per
 * CPU counts unhalted core cycles (user and kernel) from -period up; its
 * overflow raises an NMI through the local APIC's LVT performance-counter
 * entry (delivery mode NMI). The NMI handler reloads -period, clears the
 * overflow status, takes the sample and unmasks the LVT entry (the CPU
 * masks it on every counter interrupt). period = TSC Hz / requested hz,
 * so a busy CPU is sampled about hz times a second; a halted one is not.
 *
 * Detected at boot on the boot CPU (all CPUs are taken to be alike), never
 * assumed, following the manuals:
 *   Intel (SDM vol. 3B, ch. 20 "Performance Monitoring"): CPUID 0Ah with
 *     version >= 1, at least one GP counter, EBX bit 0 clear (the unhalted
 *     core cycles event exists); IA32_PERFEVTSEL0 (186h) = event 3Ch
 *     umask 0 | USR | OS | INT | EN; IA32_PMC0 (C1h) takes 32 bits
 *     sign-extended, its alias IA32_A_PMC0 (4C1h) the full width when
 *     IA32_PERF_CAPABILITIES (345h, present if CPUID 1 ECX bit 15 PDCM)
 *     bit 13 is set. Version >= 2: IA32_PERF_GLOBAL_CTRL (38Fh) bit 0
 *     enables PMC0, GLOBAL_STATUS (38Eh) bit 0 = its overflow, cleared
 *     through GLOBAL_OVF_CTRL (390h).
 *   AMD (APM vol. 2, "Performance Monitoring Counters"): event 76h "CPU
 *     clocks not halted", 48-bit counters; with CPUID 8000_0001h ECX bit
 *     23 (PerfCtrExtCore) PERF_CTL0/PERF_CTR0 at C001_0200h/C001_0201h,
 *     else the legacy PerfEvtSel0/PerfCtr0 at C001_0000h/C001_0004h.
 * Then a probe programs the counter (without INT), spins 1 ms and checks
 * that it advanced, all under fault_catch_run: MSR accesses may fault,
 * and some hypervisors list counters that always read 0. Without global
 * status, overflow is seen as the counter's top bit going clear (it was
 * loaded negative).
 */
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/prof_src.h>
#include <kernel/fault.h>
#include <kernel/prof.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <lib/fmt.h>
#include <lib/string.h>

#define MSR_PERFEVTSEL0 0x186
#define MSR_PMC0 0xc1
#define MSR_A_PMC0 0x4c1
#define MSR_PERF_CAPABILITIES 0x345
#define MSR_PERF_GLOBAL_STATUS 0x38e
#define MSR_PERF_GLOBAL_CTRL 0x38f
#define MSR_PERF_GLOBAL_OVF_CTRL 0x390
#define MSR_AMD_PERF_CTL0 0xc0010200
#define MSR_AMD_PERF_CTR0 0xc0010201
#define MSR_K7_EVNTSEL0 0xc0010000
#define MSR_K7_PERFCTR0 0xc0010004

#define EVTSEL_USR (1ull << 16)
#define EVTSEL_OS (1ull << 17)
#define EVTSEL_INT (1ull << 20)
#define EVTSEL_EN (1ull << 22)
#define INTEL_UNHALTED_CORE_CYCLES 0x3c
#define AMD_CPU_CLOCKS_NOT_HALTED 0x76
#define PERF_CAP_FW_WRITE (1ull << 13)
#define CPUID1_PDCM (1u << 15)
#define AMD_PERFCTR_CORE (1u << 23)
#define PMC_PROBE_US 1000

typedef struct pmc_hw {
	char desc[112];             /* what was found, for the boot log */
	uint32_t ctl, ctr;          /* event select and counter MSRs */
	uint64_t event;             /* event select without EN and INT */
	unsigned width;             /* counter bits */
	unsigned version;           /* Intel perfmon version; 0 on AMD */
	bool pdcm;                  /* IA32_PERF_CAPABILITIES exists */
	bool full_write;            /* counter loaded through IA32_A_PMC0 */
	uint64_t max_period;        /* what one counter load can hold */
} pmc_hw_t;

static pmc_hw_t hw;
static uint64_t period;
static volatile bool armed[MAX_CPUS];
static unsigned scale[MAX_CPUS];        /* the throttle's divisor, this CPU's */
static uint64_t saved_global_ctrl[MAX_CPUS];

static bool pmc_global(void)
{
	return hw.version >= 2;
}

static uint64_t pmc_mask(void)
{
	return hw.width >= 64 ? ~0ull : (1ull << hw.width) - 1;
}

/* Intel architectural perfmon from CPUID 0Ah; NULL or why not. */
static const char *pmc_detect_intel(void)
{
	if (cpuid(0, 0).eax < 0xa)
		return "no CPUID leaf 0Ah for architectural perfmon";
	cpuid_regs_t r = cpuid(0xa, 0);
	unsigned ngp = (r.eax >> 8) & 0xff, ebx_len = r.eax >> 24;

	hw.version = r.eax & 0xff;
	hw.width = (r.eax >> 16) & 0xff;
	if (hw.version == 0)
		return "CPUID 0Ah reports architectural perfmon version 0";
	if (ngp == 0)
		return "no general-purpose counters";
	if (ebx_len < 1 || (r.ebx & 1))
		return "no unhalted core cycles event";
	if (hw.width < 32 || hw.width > 64)
		return "implausible counter width";
	hw.ctl = MSR_PERFEVTSEL0;
	hw.ctr = MSR_PMC0;
	hw.event = INTEL_UNHALTED_CORE_CYCLES;
	hw.pdcm = cpuid(1, 0).ecx & CPUID1_PDCM;
	hw.max_period = (1ull << 31) - 1;       /* legacy alias: 32 bits sign-extended */
	fmt_snprintf(hw.desc, sizeof(hw.desc), "Intel architectural perfmon v%u, %u counters of %u bits",
		 hw.version, ngp, hw.width);
	return NULL;
}

/* AMD core performance counters (extended or legacy); NULL or why not. */
static const char *pmc_detect_amd(void)
{
	bool ext = cpuid(0x80000000, 0).eax >= 0x80000001 &&
		   (cpuid(0x80000001, 0).ecx & AMD_PERFCTR_CORE);

	hw.ctl = ext ? MSR_AMD_PERF_CTL0 : MSR_K7_EVNTSEL0;
	hw.ctr = ext ? MSR_AMD_PERF_CTR0 : MSR_K7_PERFCTR0;
	hw.event = AMD_CPU_CLOCKS_NOT_HALTED;
	hw.width = 48;
	hw.max_period = (1ull << 47) - 1;
	fmt_snprintf(hw.desc, sizeof(hw.desc), "AMD %s counters of 48 bits",
		 ext ? "core (PerfCtrExtCore)" : "legacy");
	return NULL;
}

/* Load -(period * the throttle's divisor) into this CPU's counter. Any context. */
static void pmc_load(void)
{
	unsigned s = MAX(scale[cpu_id()], 1u);
	uint64_t p = period > hw.max_period / s ? hw.max_period : period * s;

	wrmsr(hw.ctr, -p & pmc_mask());
}

/* From this CPU's counter NMI: reload divisor times the period from now on. */
static void prof_pmc_scale(unsigned divisor)
{
	scale[cpu_id()] = divisor;
}

typedef struct pmc_probe {
	uint64_t count;
} pmc_probe_t;

/* Under fault_catch_run: count cycles for ~1 ms without interrupts. */
static void pmc_probe_run(void *arg)
{
	pmc_probe_t *p = arg;

	if (hw.pdcm && (rdmsr(MSR_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE)) {
		hw.ctr = MSR_A_PMC0;
		hw.max_period = (1ull << (hw.width - 1)) - 1;
		hw.full_write = true;
	}
	wrmsr(hw.ctl, 0);
	wrmsr(hw.ctr, 0);
	uint64_t global = pmc_global() ? rdmsr(MSR_PERF_GLOBAL_CTRL) : 0;
	if (pmc_global())
		wrmsr(MSR_PERF_GLOBAL_CTRL, global | 1);
	wrmsr(hw.ctl, hw.event | EVTSEL_USR | EVTSEL_OS | EVTSEL_EN);
	time_delay_us(PMC_PROBE_US);
	p->count = rdmsr(hw.ctr) & pmc_mask();
	wrmsr(hw.ctl, 0);
	if (pmc_global())
		wrmsr(MSR_PERF_GLOBAL_CTRL, global);
}

/* Does the counter found really count? NULL or why not. */
static const char *pmc_probe_counts(void)
{
	fault_catch_t fc = { .quiet = true };
	pmc_probe_t p = { 0 };

	if (fault_catch_run(&fc, pmc_probe_run, &p))
		return "performance counter MSR access faulted";
	if (p.count == 0)
		return "the counter read 0 after counting for 1 ms";
	return NULL;
}

/*
 * Boot: detect usable counters (never assumed). True and *what = what was
 * found ("Intel architectural perfmon v4, ..."), or false and *what = why not.
 */
static bool prof_pmc_probe(const char **what)
{
	const char *no;

	if (cpuid_vendor_is("GenuineIntel"))
		no = pmc_detect_intel();
	else if (cpuid_vendor_is("AuthenticAMD") || cpuid_vendor_is("HygonGenuine"))
		no = pmc_detect_amd();
	else
		no = "unknown CPU vendor";
	if (!no)
		no = pmc_probe_counts();
	if (no) {
		*what = no;
		return false;
	}
	if (hw.full_write) {
		size_t len = strlen(hw.desc);
		fmt_snprintf(hw.desc + len, sizeof(hw.desc) - len, ", full-width writes");
	}
	*what = hw.desc;
	return true;
}

/* On each CPU (smp_call_all): LVT entry to NMI, counter loaded, enabled. */
static void pmc_arm(void *arg)
{
	uint32_t me = cpu_id();

	wrmsr(hw.ctl, 0);
	lapic_set_lvt_perf(APIC_DM_NMI);
	scale[me] = 1;
	pmc_load();
	if (pmc_global()) {
		saved_global_ctrl[me] = rdmsr(MSR_PERF_GLOBAL_CTRL);
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
		wrmsr(MSR_PERF_GLOBAL_CTRL, saved_global_ctrl[me] | 1);
	}
	armed[me] = true;
	wrmsr(hw.ctl, hw.event | EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN);
}

/* On each CPU: counter off, LVT entry masked, global state as found. */
static void pmc_disarm(void *arg)
{
	uint32_t me = cpu_id();

	wrmsr(hw.ctl, 0);
	lapic_set_lvt_perf(APIC_LVT_MASKED | APIC_DM_NMI);
	if (pmc_global()) {
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
		wrmsr(MSR_PERF_GLOBAL_CTRL, saved_global_ctrl[me]);
	}
	armed[me] = false;
}

/* Arm the cycle counter on every CPU to overflow about hz times a second. */
static errno_t prof_pmc_start(unsigned hz, unsigned *hz_out)
{
	uint64_t tsc_hz = time_cycles_per_sec();

	period = MIN(MAX(tsc_hz / hz, 1ull), hw.max_period);
	smp_call_all(pmc_arm, NULL);
	*hz_out = (unsigned)MAX(tsc_hz / period, 1ull);
	return EOK;
}

/* Disarm the counters and mask the LVT entries on every CPU. */
static void prof_pmc_stop(void)
{
	smp_call_all(pmc_disarm, NULL);
}

static bool pmc_overflowed(void)
{
	if (pmc_global())
		return rdmsr(MSR_PERF_GLOBAL_STATUS) & 1;
	return !((rdmsr(hw.ctr) >> (hw.width - 1)) & 1);
}

/* NMI context: true if this CPU's counter overflowed (re-armed, sample taken). */
static bool prof_pmc_nmi(int_frame_t *f, bool prof_ipi)
{
	(void)prof_ipi;
	if (!armed[cpu_id()] || !pmc_overflowed())
		return false;
	pmc_load();
	if (pmc_global())
		wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, 1);
	prof_hit(f, PROF_SRC_PMC);
	lapic_set_lvt_perf(APIC_DM_NMI);
	return true;
}

PROF_SOURCE(pmc) = {
	.id = PROF_SRC_PMC, .name = "pmc", .rank = 10, .flags = PROF_SRCF_NMI,
	.probe = prof_pmc_probe,
	.start = prof_pmc_start, .stop = prof_pmc_stop, .nmi = prof_pmc_nmi,
	.scale = prof_pmc_scale,
};
