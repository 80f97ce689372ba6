/*
 * ktest: the profiler's arch sample sources (<arch/prof.h>) on their own,
 * through prof_hits[][] and prof_last_pc[] (which prof_hit() keeps whether
 * or not a session runs).
 *
 * For rtc, rtc-nmi and timer: a session at a known rate gives every online
 * CPU roughly rate x time hits (bounds 10%-300%: TCG is slow and QEMU's
 * RTC drops late ticks; rtc and rtc-nmi under QEMU -icount, where guest
 * time is the instruction count and nothing is late, within 2%), none
 * after stop, and stop leaves the machine as
 * found (RTC registers A and B, the CMOS clock still ticking and agreeing
 * with the kernel's wall clock; the scheduler tick at HZ). rtc-nmi samples
 * CPUs spinning with interrupts off (the last PC inside the spinning
 * function); plain rtc cannot. pmc is either absent with a reason (TCG,
 * nested KVM here) and refused with ENOTSUP, or samples busy CPUs.
 */
#include <arch/cpu.h>
#include <arch/pc/pc.h>
#include <arch/nmi.h>
#include <arch/apic.h>
#include <arch/prof.h>
#include <arch/prof_src.h>
#include <arch/smp.h>
#include <abi/platform.h>
#include <kernel/tick.h>
#include <kernel/ksym.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/prof.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <lib/string.h>

#include "../../../kernel/prof/internal.h"

#define RUN_MS 250
#define EXACT_RUN_MS 1000   /* 256 hits at 256 Hz: 2% is 5 */
#define QUIET_MS 50
#define SPIN_MS 100
#define LATE_PERIODS 3     /* a section that holds a timer sample back */
#define LATE_TRIES 5
#define SPIN_MIN_HITS 2     /* of ~100 at 1024 Hz: TCG with all vCPUs spinning loses most */

typedef struct prof_run {
	unsigned hz;                     /* rate the source reported */
	uint64_t cycles;                 /* between start and stop */
	uint64_t cycles_hz;              /* TSC per second of the source's clock */
	uint64_t hits[MAX_CPUS];         /* during the session */
	uint64_t after[MAX_CPUS];        /* in QUIET_MS after stop */
	uint64_t ticks[MAX_CPUS];        /* scheduler ticks from start to stop */
} prof_run_t;

/* A source this machine lacks has a reason and refuses to start. */
static bool prof_absent_refused(unsigned src, const char *what)
{
	const char *why = NULL;
	unsigned hz;

	if (arch_prof_have(src, &why))
		return true;
	KT_CHECK(why && *why, "%s absent without a reason", what);
	KT_CHECK(arch_prof_start(src, 1000, &hz) == ENOTSUP, "%s absent but starts", what);
	printk("# %s absent: %s\n", what, why);
	return true;
}

static void hits_of(unsigned src, uint64_t out[MAX_CPUS])
{
	for (unsigned i = 0; i < cpu_count; i++)
		out[i] = prof_hits[i][src];
}

static void hits_since(unsigned src, uint64_t v[MAX_CPUS])
{
	for (unsigned i = 0; i < cpu_count; i++)
		v[i] = prof_hits[i][src] - v[i];
}

/* Start src at hz, wait ms, stop; what each CPU got during and after. */
static errno_t prof_run(unsigned src, unsigned hz, uint64_t ms, prof_run_t *r)
{
	hits_of(src, r->hits);
	for (unsigned i = 0; i < cpu_count; i++)
		r->ticks[i] = cpus[i]->ticks;
	uint64_t t0 = time_cycles();
	errno_t rc = arch_prof_start(src, hz, &r->hz);
	if (rc != EOK)
		return rc;
	time_delay_us(ms * 1000);
	arch_prof_stop();
	r->cycles = time_cycles() - t0;
	r->cycles_hz = time_cycles_per_sec();
	for (unsigned i = 0; i < cpu_count; i++)
		r->ticks[i] = cpus[i]->ticks - r->ticks[i];
	hits_since(src, r->hits);
	hits_of(src, r->after);
	time_delay_us(QUIET_MS * 1000);
	hits_since(src, r->after);
	return EOK;
}

/*
 * Every online CPU got 10%-300% of rate x time (with exact, 2% either side
 * plus one for where start and stop fall), and nothing after stop.
 * (The loose bounds are for TCG on a small, loaded host, where 25% has
 * been seen: a starved vCPU thread loses timer and RTC interrupts, which
 * QEMU does not queue; without -icount its timers follow the host clock.
 * Hardware, KVM and Bochs keep them too: not measured tight here.)
 */
static bool prof_run_check(const prof_run_t *r, const char *what, bool exact)
{
	uint64_t want = r->hz * r->cycles / r->cycles_hz;

	printk("# %s: %u Hz for %lu ms, want ~%lu per CPU%s:", what, r->hz,
	       r->cycles * 1000 / r->cycles_hz, want, exact ? " +-2%" : "");
	for (unsigned i = 0; i < cpu_count; i++)
		printk(" %lu", r->hits[i]);
	printk("\n");
	for (unsigned i = 0; i < cpu_count; i++) {
		if (!cpus[i]->online)
			continue;
		uint64_t n = r->hits[i], tol = want / 50 + 1;
		if (exact)
			KT_CHECK(n + tol >= want && n <= want + tol,
				 "%s: cpu %u had %lu hits, want %lu +- %lu", what, i, n, want, tol);
		else
			KT_CHECK(n * 10 > want && n < want * 3,
				 "%s: cpu %u had %lu hits, want ~%lu", what, i, n, want);
		KT_CHECK(r->after[i] == 0, "%s: cpu %u had %lu hits after stop", what, i,
			 r->after[i]);
	}
	return true;
}

KTEST(prof_src_args, "prof: sources refuse hz 0, hz above PROF_HZ_MAX, DEFAULT and unknown")
{
	static const unsigned srcs[] = { PROF_SRC_PMC, PROF_SRC_RTC, PROF_SRC_RTC_NMI,
					 PROF_SRC_TIMER };
	unsigned hz = 0;

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		KT_CHECK(arch_prof_start(srcs[i], 0, &hz) == EINVAL, "source %u hz 0", srcs[i]);
		KT_CHECK(arch_prof_start(srcs[i], PROF_HZ_MAX + 1, &hz) == EINVAL,
			 "source %u hz %u", srcs[i], PROF_HZ_MAX + 1);
	}
	KT_CHECK(arch_prof_start(PROF_SRC_DEFAULT, 100, &hz) == EINVAL, "DEFAULT accepted");
	KT_CHECK(arch_prof_start(PROF_SRC_COUNT, 100, &hz) == EINVAL, "unknown accepted");
	KT_CHECK(!arch_prof_have(PROF_SRC_DEFAULT, NULL), "DEFAULT is not a source");
	KT_CHECK(arch_prof_have(PROF_SRC_TIMER, NULL), "no timer source");
	return true;
}

/*
 * Each RTC interrupt on CPU 0 is passed on to every other CPU: each got
 * at most CPU 0's count (+2 for the edges of the snapshots) and at least
 * half of it (a vCPU starved for two periods merges two NMIs into one).
 */
static bool prof_broadcast_check(const prof_run_t *r, const char *what)
{
	for (unsigned i = 1; i < cpu_count; i++)
		KT_CHECK(r->hits[i] * 2 >= r->hits[0] && r->hits[i] <= r->hits[0] + 2,
			 "%s: cpu %u had %lu hits for cpu 0's %lu", what, i, r->hits[i],
			 r->hits[0]);
	return true;
}

/* RTC register A/B, the CMOS clock, no session running (see cmos_read()). */
typedef struct rtc_regs {
	uint8_t a, b;
} rtc_regs_t;

static rtc_regs_t rtc_regs(void)
{
	return (rtc_regs_t){ cmos_read(0x0a) & 0x7f, cmos_read(0x0b) };
}

/* A CMOS second boundary: the new second and the TSC when it was seen. */
typedef struct rtc_mark {
	int64_t sec;
	uint64_t cycles;
} rtc_mark_t;

/* Wait (up to 2 s of the kernel clock) for the CMOS clock's next second. */
static bool rtc_next_second(rtc_mark_t *m)
{
	int64_t s0 = rtc_read_seconds();
	uint64_t end = time_ns() + 2 * NSEC_PER_SEC;

	do {
		m->sec = rtc_read_seconds();
		m->cycles = time_cycles();
	} while (m->sec == s0 && time_ns() < end);
	KT_CHECK(m->sec == s0 + 1, "CMOS clock went from %ld to %ld in 2 s", s0, m->sec);
	return true;
}

/*
 * After a session (m0 taken before it): the CMOS clock still ticks, kept
 * time across the session (as counted by the TSC against one CMOS second
 * measured now) and, where the kernel's TSC rate agrees with the CMOS
 * second, agrees with the kernel's wall clock. (Bochs with "clock:
 * sync=none" reports a CPUID TSC rate ~70x its emulated one, so there the
 * kernel clock runs slow and only the CMOS-relative checks are meaningful.)
 * Returns the TSC rate in CMOS time in *rtc_hz.
 */
static bool rtc_clock_check(const rtc_mark_t *m0, uint64_t *rtc_hz)
{
	rtc_mark_t m1, m2;

	if (!rtc_next_second(&m1) || !rtc_next_second(&m2))
		return false;
	*rtc_hz = m2.cycles - m1.cycles;
	int64_t by_tsc = (int64_t)((m1.cycles - m0->cycles + *rtc_hz / 2) / *rtc_hz);
	KT_CHECK(m1.sec - m0->sec <= by_tsc + 1 && m1.sec - m0->sec + 1 >= by_tsc,
		 "CMOS clock moved %ld s in %ld s of TSC", m1.sec - m0->sec, by_tsc);
	uint64_t k = time_cycles_per_sec();
	if (k > *rtc_hz + *rtc_hz / 20 || k + k / 20 < *rtc_hz) {
		printk("# kernel TSC rate %lu Hz, %lu Hz by the CMOS clock: wall clock not compared\n",
		       k, *rtc_hz);
		return true;
	}
	int64_t wall = (int64_t)(time_wall_ns() / NSEC_PER_SEC);
	KT_CHECK(m2.sec - wall <= 2 && wall - m2.sec <= 2, "CMOS %ld vs kernel wall clock %ld",
		 m2.sec, wall);
	return true;
}

static bool prof_rtc_session(unsigned src, const char *what)
{
	rtc_regs_t before = rtc_regs();
	rtc_mark_t m0;
	prof_run_t r;

	/* Under -icount (tools/qemu.sh adds -rtc clock=vm) the rate is exact. */
	bool exact = platform_sampling() == PLATFORM_TCG_ICOUNT;

	if (!rtc_next_second(&m0))
		return false;
	KT_CHECK(prof_run(src, 250, exact ? EXACT_RUN_MS : RUN_MS, &r) == EOK,
		 "%s did not start", what);
	KT_CHECK(r.hz == 256, "%s: 250 Hz became %u, not 256", what, r.hz);
	rtc_regs_t after = rtc_regs();
	KT_CHECK(after.a == before.a && after.b == before.b,
		 "%s: A/B %#x/%#x before, %#x/%#x after", what, before.a, before.b, after.a,
		 after.b);
	if (!rtc_clock_check(&m0, &r.cycles_hz))
		return false;
	return prof_run_check(&r, what, exact) && prof_broadcast_check(&r, what);
}

/* Source id's flags in the list, 0 if it is not there. */
static unsigned prof_source_desc_flags(unsigned id)
{
	prof_source_desc_t d;

	for (unsigned i = 0; arch_prof_source_at(i, &d); i++)
		if (d.id == id)
			return d.flags;
	return 0;
}

/* The first usable source of the list without NODEFAULT (PROF_SRC_DEFAULT's choice). */
static unsigned prof_list_default(void)
{
	prof_source_desc_t d;

	for (unsigned i = 0; arch_prof_source_at(i, &d); i++)
		if ((d.flags & PROF_SRCF_AVAILABLE) && !(d.flags & PROF_SRCF_NODEFAULT))
			return d.id;
	return PROF_SRC_DEFAULT;
}

KTEST(prof_src_list, "prof: the sources describe themselves: ids once, names, kinds, order")
{
	static const char *const names[] = { "pmc", "rtc", "rtc-nmi", "timer" };
	prof_source_desc_t d;
	unsigned seen = 0, n = 0;

	for (; arch_prof_source_at(n, &d); n++) {
		KT_CHECK(d.id > PROF_SRC_DEFAULT && d.id < PROF_SRC_COUNT && !(seen & (1u << d.id)),
			 "source %u: bad or second id", d.id);
		seen |= 1u << d.id;
		KT_CHECK(strcmp(d.name, names[n]) == 0, "source %u is %s, not %s", n, d.name, names[n]);
		KT_CHECK(!(d.flags & PROF_SRCF_AVAILABLE) == !arch_prof_have(d.id, NULL),
			 "%s: available flag", d.name);
	}
	KT_CHECK(n == PROF_SRC_COUNT - 1, "%u sources listed", n);
	KT_CHECK(prof_source_desc_flags(PROF_SRC_TIMER) & PROF_SRCF_OWED, "timer not owed");
	KT_CHECK(!(prof_source_desc_flags(PROF_SRC_PMC) & PROF_SRCF_CLOCK), "pmc a clock");
	KT_CHECK(prof_source_desc_flags(PROF_SRC_RTC) & PROF_SRCF_NODEFAULT, "rtc a default");
	unsigned want = arch_prof_have(PROF_SRC_PMC, NULL) ? PROF_SRC_PMC :
			arch_prof_have(PROF_SRC_RTC_NMI, NULL) ? PROF_SRC_RTC_NMI : PROF_SRC_TIMER;
	KT_CHECK(prof_list_default() == want, "default %u, not %u", prof_list_default(), want);
	return true;
}

KTEST(prof_src_rtc, "prof: rtc samples every CPU at the rate and restores the RTC")
{
	unsigned hz;

	KT_CHECK(arch_prof_have(PROF_SRC_RTC, NULL), "no rtc source");
	static const unsigned ask[][2] = { { 1, 2 }, { 3, 2 }, { 100, 128 }, { 1000, 1024 },
					   { 8192, 8192 }, { PROF_HZ_MAX, 8192 } };
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		KT_CHECK(arch_prof_start(PROF_SRC_RTC, ask[i][0], &hz) == EOK, "start %u Hz",
			 ask[i][0]);
		arch_prof_stop();
		KT_CHECK(hz == ask[i][1], "%u Hz became %u, want %u", ask[i][0], hz, ask[i][1]);
	}
	return prof_rtc_session(PROF_SRC_RTC, "rtc");
}

KTEST(prof_src_rtc_nmi, "prof: rtc-nmi samples every CPU at the rate and restores the RTC")
{
	uint64_t unknown = 0;

	const char *why = NULL;

	if (!prof_absent_refused(PROF_SRC_RTC_NMI, "rtc-nmi"))
		return false;
	if (!arch_prof_have(PROF_SRC_RTC_NMI, &why))
		KT_SKIP("no rtc-nmi here: %s", why);
	for (unsigned i = 0; i < cpu_count; i++)
		unknown += cpus[i]->nmi_unknown;
	if (!prof_rtc_session(PROF_SRC_RTC_NMI, "rtc-nmi"))
		return false;
	for (unsigned i = 0; i < cpu_count; i++)
		unknown -= cpus[i]->nmi_unknown;
	KT_CHECK(unknown == 0, "%ld NMIs counted as unknown", -(int64_t)unknown);
	return true;
}

typedef struct spin_result {
	uint64_t hits[MAX_CPUS];
	uint64_t last_pc[MAX_CPUS];
	bool irqs_on[MAX_CPUS];
} spin_result_t;

static unsigned spin_src;
static spin_result_t spin;

/*
 * Under smp_call_all (interrupts off): spin SPIN_MS on the TSC alone (no
 * calls, so every sample taken during the spin has its PC in here), and
 * note this CPU's hits and last sampled PC before returning.
 */
static __noinline void prof_test_spin(void *arg)
{
	uint32_t me = cpu_id();
	uint64_t h0 = prof_hits[me][spin_src];
	uint64_t end = time_cycles() + *(const uint64_t *)arg;

	while (time_cycles() < end)
		cpu_relax();
	spin.hits[me] = prof_hits[me][spin_src] - h0;
	spin.last_pc[me] = prof_last_pc[me];
	spin.irqs_on[me] = irq_enabled();
}

static errno_t prof_spin_run(unsigned src)
{
	uint64_t cycles = time_cycles_per_sec() / 1000 * SPIN_MS;
	unsigned hz;

	memset(&spin, 0, sizeof(spin));
	spin_src = src;
	errno_t rc = arch_prof_start(src, 1000, &hz);
	if (rc != EOK)
		return rc;
	smp_call_all(prof_test_spin, &cycles);
	arch_prof_stop();
	return EOK;
}

static bool pc_in_spin(uint64_t pc)
{
	uint64_t off;
	const char *s = ksym_lookup(pc, &off);
	return s && !strcmp(s, "prof_test_spin");
}

static bool prof_spin_check(const char *what)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		uint64_t off;
		const char *s = ksym_lookup(spin.last_pc[i], &off);
		KT_CHECK(!spin.irqs_on[i], "cpu %u spun with interrupts on", i);
		KT_CHECK(spin.hits[i] >= SPIN_MIN_HITS, "%s: cpu %u got %lu hits in a %u ms spin",
			 what, i, spin.hits[i], SPIN_MS);
		KT_CHECK(pc_in_spin(spin.last_pc[i]), "%s: cpu %u last pc %#lx <%s+%#lx>", what,
			 i, spin.last_pc[i], s ? s : "?", off);
	}
	return true;
}

KTEST(prof_src_irqoff, "prof: rtc-nmi samples code with interrupts off, rtc cannot")
{
	if (!prof_absent_refused(PROF_SRC_RTC_NMI, "rtc-nmi"))
		return false;
	if (arch_prof_have(PROF_SRC_RTC_NMI, NULL)) {
		KT_CHECK(prof_spin_run(PROF_SRC_RTC_NMI) == EOK, "rtc-nmi did not start");
		if (!prof_spin_check("rtc-nmi"))
			return false;
	}
	KT_CHECK(prof_spin_run(PROF_SRC_RTC) == EOK, "rtc did not start");
	for (unsigned i = 0; i < cpu_count; i++)
		KT_CHECK(spin.hits[i] == 0, "rtc: cpu %u got %lu hits with interrupts off", i,
			 spin.hits[i]);
	return true;
}

/*
 * Samples and scheduler ticks come from one timer: periodic (plain TCG)
 * one interrupt stream shared out, one-shot two deadlines on the TSC,
 * neither caught up when late. So however many interrupts a slow emulator
 * loses, each CPU's samples are its ticks x hz / HZ (within the few ticks
 * either side of start and stop, and the random gaps' spread: about
 * 0.25 sqrt(n) for n samples); and the ticks themselves keep about HZ.
 */
static bool prof_timer_at(unsigned hz)
{
	unsigned thz = tick_hz();
	uint64_t tol = 4 * MAX(hz / thz, 1u) + 4;
	prof_run_t r;

	KT_CHECK(prof_run(PROF_SRC_TIMER, hz, RUN_MS, &r) == EOK, "timer did not start");
	KT_CHECK(r.hz == hz, "timer: %u Hz became %u", hz, r.hz);
	if (!prof_run_check(&r, "timer", false))
		return false;
	uint64_t want = thz * r.cycles / r.cycles_hz;
	for (unsigned i = 0; i < cpu_count; i++) {
		uint64_t n = r.ticks[i], ratio = n * hz / thz;
		KT_CHECK(n * 10 > want && n < want * 3,
			 "timer %u Hz: cpu %u had %lu scheduler ticks, want ~%lu", hz, i, n, want);
		KT_CHECK(r.hits[i] + tol >= ratio && r.hits[i] <= ratio + tol,
			 "timer %u Hz: cpu %u had %lu hits for %lu ticks (want %lu +- %lu)", hz,
			 i, r.hits[i], n, ratio, tol);
	}
	return true;
}

KTEST(prof_src_timer, "prof: timer samples every CPU at the rate, scheduler tick stays at HZ")
{
	if (!prof_timer_at(tick_hz() * 10) || !prof_timer_at(tick_hz() / 2))
		return false;
	/* After stop the tick rate is HZ again, every interrupt a tick. */
	uint64_t t0 = cpus[0]->ticks;
	time_delay_us(200000);
	uint64_t n = cpus[0]->ticks - t0, want = tick_hz() / 5;
	KT_CHECK(n * 10 > want * 3 && n < want * 3, "%lu ticks in 200 ms after stop", n);
	return true;
}

#define COST_PAIRS 5
#define COST_TRIES 3
/*
 * The cost charged may be this far under the spin's. Both are timings of
 * what the host does for an interrupt under TCG, and with 4 vCPUs on a
 * loaded 2-core host one of them came out 4.06 times the other (a
 * clean-clone run); the old charge, an empty self-interrupt's, was
 * about 600 times under, so 16 still tells the two apart.
 */
#define COST_SLACK 16
/*
 * Under -icount on more than one vCPU the spin loses more than the
 * handler costs, in a way not yet understood: 8,064 and 16,267 cycles an
 * interrupt (a 2-CPU boot here and in CI, the same figure in every probe:
 * -icount repeats itself) against a charge of 910-1,008, the empty
 * self-interrupt's, while the other CPU sat in its idle thread (printed
 * by a debug run). The old 600-fold gap still fails this.
 */
#define COST_SLACK_ICOUNT_SMP 64

/* How far the charge may be under the spin's loss here. */
static uint64_t cost_slack(void)
{
	bool icount_smp = platform_sampling() == PLATFORM_TCG_ICOUNT && cpu_count > 1;

	return icount_smp ? COST_SLACK_ICOUNT_SMP : COST_SLACK;
}

/* What a timer interrupt cost a spin, cheapest of up to COST_TRIES probes
 * of COST_PAIRS pairs, stopping at one within cost_slack() of cost: on
 * plain TCG a busy host slows every pair of one probe now and then.
 * 0 if no interrupt came. */
static uint64_t irq_cost_lost(uint64_t cost)
{
	uint64_t best = 0;

	for (unsigned i = 0; i < COST_TRIES; i++) {
		uint64_t lost = prof_probe_timer(COST_PAIRS);

		printk("# a timer interrupt costs a spin %lu cycles; %lu charged\n", lost, cost);
		if (lost && (!best || lost < best))
			best = lost;
		if (best && cost * cost_slack() >= best)
			break;
	}
	return best;
}

/*
 * The interrupt cost the throttle charges (arch_prof_irq_cycles) covers
 * what a timer interrupt costs the code it interrupts, within cost_slack().
 * Under QEMU's TCG most of that is outside the guest's view: an empty
 * self-interrupt timed from sti saw a few hundred cycles of about 60,000
 * a timer interrupt took from a spin, and the throttle let a 10 kHz
 * timer take 35% of a CPU unthrottled.
 */
KTEST(prof_irq_cost, "prof: the interrupt cost charged covers a timer interrupt's to a spin")
{
	uint64_t cost = arch_prof_irq_cycles();
	uint64_t lost = irq_cost_lost(cost);     /* measured again, fewer pairs */

	KT_CHECK(cost > 0, "an interrupt costs 0 cycles");
	if (!lost)
		KT_SKIP("no timer interrupt came in %u probes of %u pairs of 1 ms spins (a loaded host)",
			COST_TRIES, COST_PAIRS);
	KT_CHECK(cost * cost_slack() >= lost, "charged %lu cycles, a spin lost %lu an interrupt",
		 cost, lost);
	return true;
}

#define JITTER_GAPS 200
#define JITTER_TRIES 3

/* The gaps (TSC cycles) between this CPU's next JITTER_GAPS timer hits,
 * polled with interrupts on; false if the hits stopped coming. */
static bool timer_gaps(uint64_t *gaps)
{
	unsigned cpu = cpu_id();
	uint64_t seen = prof_hits[cpu][PROF_SRC_TIMER], last = 0;
	uint64_t give_up = time_cycles() + time_cycles_per_sec() * 5;

	for (int n = -1; n < JITTER_GAPS; ) {
		uint64_t now = time_cycles();

		if (now > give_up)
			return false;
		if (__atomic_load_n(&prof_hits[cpu][PROF_SRC_TIMER], __ATOMIC_RELAXED) == seen)
			continue;
		seen = prof_hits[cpu][PROF_SRC_TIMER];
		if (n >= 0)
			gaps[n] = now - last;
		last = now;
		n++;
	}
	return true;
}

/* The interquartile range of n values (sorted in place). */
static uint64_t gaps_iqr(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n * 3 / 4] - v[n / 4];
}

/* One look at JITTER_GAPS gaps of the timer at hz: printed; under
 * -icount (exact) true if their middle half spans 35%..53% of the
 * period and they average it within 6%. *came false: no hits in 5 s. */
static bool jitter_try(unsigned hz, bool exact, bool *came)
{
	static uint64_t gaps[JITTER_GAPS];
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
	unsigned got;

	if (arch_prof_start(PROF_SRC_TIMER, hz, &got) != EOK)
		return *came = false;
	*came = timer_gaps(gaps);
	arch_prof_stop();
	if (!*came)
		return false;
	for (int i = 0; i < JITTER_GAPS; i++) {
		lo = MIN(lo, gaps[i]);
		hi = MAX(hi, gaps[i]);
		sum += gaps[i];
	}
	uint64_t period = time_cycles_per_sec() / got, mean = sum / JITTER_GAPS;
	uint64_t iqr = gaps_iqr(gaps, JITTER_GAPS);
	printk("# timer %u Hz: period %lu cycles, gaps %lu..%lu, mean %lu, middle half %lu\n",
	       got, period, lo, hi, mean, iqr);
	return !exact || (iqr * 100 >= period * 35 && iqr * 100 <= period * 53 &&
			  mean * 100 >= period * 94 && mean * 100 <= period * 106);
}

/*
 * The timer's gaps are random (kernel/prof_jitter.h: uniform from 9/16 to
 * 23/16 of the period): under -icount their middle half (the
 * interquartile range) spans 35% to 53% of the period (uniform: 43.75%;
 * 200 gaps put it within about 3 points) and they average it within 6%
 * (about 3.3 standard deviations of the mean of 200). Not each gap's
 * bounds: the poll sees a hit only when its thread runs, and on more than
 * one CPU the vCPUs run in turns. Before jitter the periodic LAPIC timer
 * gave equal gaps under a fixed shift, and the grid jitter of ea8551b a
 * middle half of about 7%. Up to JITTER_TRIES looks, one must pass:
 * -icount auto retunes its shift to the host's speed, and a loaded host
 * (a clean-clone CI, 2 CPUs) once moved one look's gaps out of bounds;
 * equal gaps or a wrong rate fail every look. Elsewhere (host timing
 * moves interrupts anyway) the gaps are printed.
 */
KTEST(prof_src_timer_jitter, "prof: timer periods are jittered around the rate")
{
	bool exact = platform_sampling() == PLATFORM_TCG_ICOUNT, came = true, ok = false;
	unsigned hz = tick_hz() * 10;

	for (int i = 0; i < JITTER_TRIES && came && !ok; i++)
		ok = jitter_try(hz, exact, &came);
	KT_CHECK(came, "timer: %u hits did not come in 5 s (or it did not start)", JITTER_GAPS);
	KT_CHECK(ok, "timer gaps out of bounds in %d looks (want a middle half of 35%%..53%% "
		 "of the period, a mean within 6%%)", JITTER_TRIES);
	return true;
}

/* Open an interrupts-off section: its site is in here. */
static __noinline uint64_t late_open(void)
{
	return irq_save();
}

/* Close it: a tick it held back is delivered in here. */
static __noinline void late_close(uint64_t saved)
{
	irq_restore(saved);
}

/*
 * One sample held back LATE_PERIODS periods by a section: the function
 * its recorded PC is in ("" if not one hit came at the close on this CPU:
 * a migration or a second tick; the caller tries again).
 */
static const char *late_one(uint64_t period_us)
{
	uint64_t saved = late_open(), off;
	uint32_t cpu = cpu_id();
	uint64_t before = prof_hits[cpu][PROF_SRC_TIMER];

	time_delay_us(period_us * LATE_PERIODS);
	late_close(saved);
	saved = irq_save();
	uint64_t n = prof_hits[cpu][PROF_SRC_TIMER] - before, pc = prof_last_pc[cpu];
	bool same = cpu == cpu_id();
	irq_restore(saved);
	const char *s = ksym_lookup(pc, &off);
	return n == 1 && same && s ? s : "";
}

/*
 * MINIX's interrupt-delay effect, fixed for the timer: one-shot, a sample
 * due inside an interrupts-off section is charged to where the section
 * began (late_open), not to where it was delivered (late_close, right
 * after the STI, under KVM and -icount). The periodic mode (plain TCG)
 * has no deadline to tell: there the sample still lands where it was
 * delivered (TCG takes it a few blocks later: late_close or its caller).
 */
KTEST(prof_src_timer_late, "prof: a timer sample held back by interrupts off is charged to the section")
{
	bool oneshot = platform_sampling() != PLATFORM_TCG;
	unsigned hz = tick_hz() * 4, rate;
	const char *got = "";

	KT_CHECK(arch_prof_start(PROF_SRC_TIMER, hz, &rate) == EOK, "timer did not start");
	for (unsigned i = 0; i < LATE_TRIES && !*got; i++)
		got = late_one(1000000 / rate);
	arch_prof_stop();
	KT_CHECK(*got, "no lone timer hit at the end of a section in %d tries", LATE_TRIES);
	if (oneshot)
		KT_CHECK(!strcmp(got, "late_open"), "one-shot: the held-back sample is in %s, "
			 "want late_open", got);
	else
		KT_CHECK(strcmp(got, "late_open"), "periodic: the held-back sample is in "
			 "late_open, but this mode cannot tell");
	return true;
}

/*
 * A burst of engine starts probes the timer once: the probe holds the CPU
 * 14 ms or more with preemption off, and a task starting sessions in a
 * loop (the fuzzer) made the kernel spin that long on each.
 */
KTEST(prof_irq_cost_kept, "prof: the interrupt cost is probed once for starts in a row")
{
	(void)arch_prof_irq_cycles();
	uint64_t runs = prof_timer_probes();

	for (int i = 0; i < 3; i++)
		(void)arch_prof_irq_cycles();
	KT_CHECK(runs >= 1, "no timer probe ran");
	KT_CHECK(prof_timer_probes() == runs, "%lu timer probes for 3 more starts",
		 prof_timer_probes() - runs);
	return true;
}

KTEST(prof_src_pmc, "prof: pmc is detected (or absent with a reason) and samples busy CPUs")
{
	const char *why = NULL;

	if (!prof_absent_refused(PROF_SRC_PMC, "pmc"))
		return false;
	if (!arch_prof_have(PROF_SRC_PMC, &why))
		KT_SKIP("no usable PMU: %s", why);
	KT_CHECK(prof_spin_run(PROF_SRC_PMC) == EOK, "pmc did not start");
	return prof_spin_check("pmc");
}

/* Send this CPU an NMI with the given reason bits and wait until it ran. */
static bool prof_self_nmi(uint32_t reason)
{
	cpu_t *me = cpu_current();
	uint64_t n = me->nmi_count;

	if (reason)
		__atomic_or_fetch(&me->nmi_pending, reason, __ATOMIC_RELEASE);
	arch_send_nmi(me);
	for (uint64_t end = time_ns() + 100000000; time_ns() < end;)
		if (me->nmi_count != n)
			return true;
	return false;
}

KTEST(prof_nmi_grace, "prof: after a profiling NMI only one unclaimed NMI is a duplicate")
{
	cpu_t *me = cpu_current();
	uint64_t f = irq_save();
	uint64_t unknown = me->nmi_unknown, dups = arch_nmi_dups(me->id);
	bool sent = prof_self_nmi(NMI_REASON_PROF) && prof_self_nmi(0) && prof_self_nmi(0) &&
		    prof_self_nmi(0);

	unknown = me->nmi_unknown - unknown;
	dups = arch_nmi_dups(me->id) - dups;
	irq_restore(f);
	KT_CHECK(sent, "a self NMI did not arrive");
	KT_CHECK(dups <= 1 && unknown + dups == 3,
		 "3 unrelated NMIs after a profiling one: %lu unknown, %lu duplicates", unknown,
		 dups);
	return true;
}

#define GATE_ROUNDS 100000
#define GATE_MIN_ROUNDS 100                   /* a loaded TCG host runs few */
#define GATE_NS (2 * NSEC_PER_SEC)            /* or until this much time passed */
#define GATE_MAX_NS (10 * NSEC_PER_SEC)       /* past GATE_NS while < GATE_MIN_ROUNDS */

/* The store-buffer litmus test on prof_hit's handshake (prof_gate_*). */
static struct {
	volatile bool busy, on;
	volatile uint32_t go, done;          /* round started / CPU 1 finished */
	volatile uint32_t last;              /* CPU 0 stopped after this round */
	volatile bool saw_busy;
	uint64_t both_missed;                /* sampler saw on, stopper saw idle */
	bool timed_out;
} gate;

/* CPU 1's side of a round: the stopper. */
static void gate_stopper(uint32_t r)
{
	prof_gate_close(&gate.on);
	gate.saw_busy = prof_gate_busy(&gate.busy);
	__atomic_store_n(&gate.done, r, __ATOMIC_RELEASE);
}

/* Wait (bounded) until *v == r. */
static bool gate_wait(volatile uint32_t *v, uint32_t r, uint64_t end)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) != r)
		if (time_ns() > end)
			return false;
	return true;
}

/* Another round? Until GATE_ROUNDS or end, but at least GATE_MIN_ROUNDS before hard_end. */
static bool gate_more(uint32_t r, uint64_t end, uint64_t hard_end)
{
	uint64_t now = time_ns();

	return r <= GATE_ROUNDS && !gate.timed_out && now < hard_end &&
	       (now < end || r <= GATE_MIN_ROUNDS);
}

/*
 * CPU 0, the sampler: rounds until GATE_ROUNDS or GATE_NS (on a slow,
 * loaded host up to GATE_MAX_NS, for GATE_MIN_ROUNDS); then tell CPU 1.
 */
static void gate_sampler(uint64_t end)
{
	uint64_t hard_end = end - GATE_NS + GATE_MAX_NS;
	uint32_t r;

	for (r = 1; gate_more(r, end, hard_end); r++) {
		gate.busy = false;
		gate.on = true;
		__atomic_store_n(&gate.go, r, __ATOMIC_RELEASE);
		bool saw_on = prof_gate_enter(&gate.busy, &gate.on);
		gate.timed_out = !gate_wait(&gate.done, r, hard_end + NSEC_PER_SEC);
		gate.both_missed += saw_on && !gate.saw_busy;
		prof_gate_leave(&gate.busy);
	}
	__atomic_store_n(&gate.last, r - 1, __ATOMIC_RELEASE);
	__atomic_store_n(&gate.go, UINT32_MAX, __ATOMIC_RELEASE);
}

/* CPU 1, the stopper: answers each round until CPU 0 says it is done. */
static void gate_answerer(uint64_t end)
{
	for (uint32_t r = 1; time_ns() < end; r++) {
		uint32_t go;
		while ((go = __atomic_load_n(&gate.go, __ATOMIC_ACQUIRE)) != r && go != UINT32_MAX)
			if (time_ns() > end)
				return;
		if (go == UINT32_MAX)
			return;
		gate_stopper(r);
	}
}

/* Under smp_call_all: CPU 0 is the sampler, CPU 1 the stopper. */
static void gate_litmus(void *arg)
{
	uint64_t end = time_ns() + GATE_NS;

	if (cpu_id() == 0)
		gate_sampler(end);
	else if (cpu_id() == 1)
		gate_answerer(end - GATE_NS + GATE_MAX_NS + 2 * NSEC_PER_SEC);
}

KTEST(prof_gate_fence, "prof: prof_hit's busy/on handshake is fenced (store-buffer litmus)")
{
	if (cpus_online < 2)
		return true;        /* needs a second CPU */
	if (platform_sampling() == PLATFORM_TCG_ICOUNT)
		KT_SKIP("QEMU -icount runs the vCPUs one at a time: no store buffer "
			"to observe, and no round ends");
	memset((void *)&gate, 0, sizeof(gate));
	smp_call_all(gate_litmus, NULL);
	KT_CHECK(!gate.timed_out && gate.last >= GATE_MIN_ROUNDS,
		 "only %u rounds ran (timed out %d)", gate.last, gate.timed_out);
	KT_CHECK(gate.both_missed == 0,
		 "%lu of %u rounds: the sampler saw on and the stopper saw it idle",
		 gate.both_missed, gate.last);
	return true;
}

