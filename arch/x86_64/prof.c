/*
 * The profiler's sample sources on x86-64 / PC (<arch/prof.h>): what the
 * machine has, starting and stopping the one source in use, and the NMI
 * hook. The sources themselves are in prof_pmc.c, prof_timer.c and
 * pc/prof_rtc.c (see arch/prof_src.h).
 *
 * start and stop come from one thread at a time (the generic code
 * serialises them), so `running` needs no lock; NMI handlers do not read
 * it (each source keeps its own armed flags).
 */
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/nmi.h>
#include <arch/prof.h>
#include <arch/prof_src.h>
#include <kernel/printk.h>
#include <kernel/prof.h>
#include <kernel/sched.h>
#include <kernel/tick.h>
#include <kernel/time.h>

#define LOG_PREFIX "prof"
#define PROF_PROBE_ROUNDS 9             /* empty self-interrupts timed */
#define PROF_PROBE_PAIRS 7              /* spins without and with it (at most PROF_PROBE_PAIRS_MAX) */
#define PROF_PROBE_SPIN_US 1000         /* each spin's length */
#define PROF_PROBE_CAL_ITERS 20000ul    /* iterations timed to size the spins */
#define PROF_PROBE_PARTS 10             /* a spin with the timer runs in parts... */
#define PROF_PROBE_MIN_IRQS 4           /* ...until this many interrupts came... */
#define PROF_PROBE_LONGER 16            /* ...for at most this many times as long */
#define PROF_PROBE_KEEP_S 30            /* a timer probe's answer is reused this long */

static bool inited;
static unsigned running;                /* PROF_SRC_* started, 0 = none */
static bool have_pmc, have_rtc, have_rtc_nmi;
static const char *pmc_why = "not probed yet", *rtc_why = "not probed yet";
static const char *rtc_nmi_why = "not probed yet";

static volatile uint64_t probe_irqs[MAX_CPUS];   /* VEC_PROF_PROBE interrupts taken */
static uint64_t probe_timer_cost, probe_timer_at;  /* the last engine-start probe, its TSC */
static uint64_t probe_timer_runs;                 /* engine-start probes run */

static void prof_probe_irq(int_frame_t *f)
{
	(void)f;
	probe_irqs[cpu_id()]++;
}

/*
 * The profiler's NMI handler (registered with the dispatcher, latching:
 * a broadcast's reason flag can cover two sends, the RTC's edge can race
 * stop): a counter overflow, the RTC as NMI, or a broadcast, which the
 * sender flags with NMI_REASON_PROF.
 */
static bool prof_nmi(struct int_frame *f, uint32_t pending)
{
	bool prof_ipi = pending & NMI_REASON_PROF;
	bool mine = prof_pmc_nmi(f);

	return (prof_rtc_nmi(f, prof_ipi) || prof_ipi) || mine;
}

void arch_prof_init(void)
{
	if (inited)
		return;
	inited = true;
	const char *pmc_what;

	arch_nmi_register(prof_nmi, 0, true);     /* and NMI_REASON_PROF */

	have_rtc = prof_rtc_init(&rtc_why);
	have_rtc_nmi = have_rtc && prof_rtc_nmi_usable(&rtc_nmi_why);
	if (!have_rtc)
		rtc_nmi_why = rtc_why;
	irq_set_handler(VEC_PROF_PROBE, prof_probe_irq);
	have_pmc = prof_pmc_probe(&pmc_what);
	if (!have_pmc)
		pmc_why = pmc_what;
	pr_info("sources: pmc %s (%s); rtc %s%s%s; rtc-nmi %s%s%s; timer yes",
		have_pmc ? "yes" : "no", pmc_what,
		have_rtc ? "yes" : "no (", have_rtc ? "" : rtc_why, have_rtc ? "" : ")",
		have_rtc_nmi ? "yes" : "no (", have_rtc_nmi ? "" : rtc_nmi_why,
		have_rtc_nmi ? "" : ")");
}

bool arch_prof_have(unsigned source, const char **why)
{
	const char *no = NULL;

	if (source == PROF_SRC_PMC && !have_pmc)
		no = pmc_why;
	else if (source == PROF_SRC_RTC && !have_rtc)
		no = rtc_why;
	else if (source == PROF_SRC_RTC_NMI && !have_rtc_nmi)
		no = rtc_nmi_why;
	else if (source == PROF_SRC_DEFAULT || source >= PROF_SRC_COUNT)
		no = "no such source";
	if (no && why)
		*why = no;
	return !no;
}

static errno_t arch_prof_start_source(unsigned source, unsigned hz, unsigned *hz_out)
{
	switch (source) {
	case PROF_SRC_PMC:
		return prof_pmc_start(hz, hz_out);
	case PROF_SRC_RTC:
	case PROF_SRC_RTC_NMI:
		return prof_rtc_start(source == PROF_SRC_RTC_NMI, hz, hz_out);
	case PROF_SRC_TIMER:
		return prof_timer_start(hz, hz_out);
	}
	return EINVAL;
}

errno_t arch_prof_start(unsigned source, unsigned hz, unsigned *hz_out)
{
	if (hz == 0 || hz > PROF_HZ_MAX || source == PROF_SRC_DEFAULT ||
	    source >= PROF_SRC_COUNT)
		return EINVAL;
	if (!arch_prof_have(source, NULL))
		return ENOTSUP;
	if (running)
		return EBUSY;
	errno_t rc = arch_prof_start_source(source, hz, hz_out);
	if (rc == EOK)
		running = source;
	return rc;
}

void arch_prof_stop(void)
{
	switch (running) {
	case PROF_SRC_PMC:
		prof_pmc_stop();
		break;
	case PROF_SRC_RTC:
	case PROF_SRC_RTC_NMI:
		prof_rtc_stop();
		break;
	case PROF_SRC_TIMER:
		prof_timer_stop();
		break;
	}
	running = 0;
}

bool arch_prof_scale(unsigned source, unsigned divisor)
{
	if (source == PROF_SRC_TIMER)
		prof_timer_scale(divisor);
	else if (source == PROF_SRC_PMC)
		prof_pmc_scale(divisor);
	else
		return false;
	return true;
}

/* One empty self-interrupt: cycles from enabling interrupts to after it. */
static uint64_t prof_probe_once(void)
{
	uint64_t f = irq_save();

	lapic_send_ipi(lapic_id(), VEC_PROF_PROBE);
	irqlat_off_end();
	uint64_t t0 = rdtsc();
	irq_enable_raw();               /* taken here, after sti's one-instruction shadow */
	uint64_t t1 = rdtsc();
	irq_restore(f);
	return t1 - t0;
}

/* Insertion sort of n values, ascending. */
static void prof_sort(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
}

/* The median of n values (sorts them). */
static uint64_t prof_median(uint64_t *v, unsigned n)
{
	prof_sort(v, n);
	return v[n / 2];
}

/* Cycles n iterations of a fixed loop take. */
static __noinline uint64_t prof_probe_spin(uint64_t n)
{
	uint64_t t0 = rdtsc();

	for (volatile uint64_t i = 0; i < n; i++)
		;
	return rdtsc() - t0;
}

/* Iterations of the probe's spin that take about us microseconds here. */
static uint64_t prof_probe_iters(uint64_t us)
{
	uint64_t want = time_cycles_per_sec() / 1000000 * us;
	uint64_t cal = MAX(prof_probe_spin(PROF_PROBE_CAL_ITERS), 1ul);

	return MAX(PROF_PROBE_CAL_ITERS * want / cal, 1ul);
}

/*
 * The probe's spin on this CPU, interrupts on: n iterations with its
 * timer stopped, then with it firing at PROF_PROBE_HZ on VEC_PROF_PROBE,
 * at least n and longer (up to 16 x n) until a few interrupts came (a
 * loaded host delivers late): *on cycles and *k interrupts of that, *off
 * what as many iterations took without. Leaves the timer stopped.
 * Preemption off.
 */
static void prof_probe_pair(uint64_t n, uint64_t *off, uint64_t *on, uint64_t *k)
{
	uint64_t lapic_hz = cpu_current()->arch.lapic_ticks_per_sec;
	uint64_t part = MAX(n / PROF_PROBE_PARTS, 1ul), done = 0, t = 0;

	lapic_timer_stop();
	uint64_t base = prof_probe_spin(part * PROF_PROBE_PARTS);
	uint64_t k0 = probe_irqs[cpu_id()];
	lapic_timer_start_vector(lapic_hz, PROF_PROBE_HZ, VEC_PROF_PROBE);
	while (done < PROF_PROBE_PARTS ||
	       (probe_irqs[cpu_id()] - k0 < PROF_PROBE_MIN_IRQS &&
		done < PROF_PROBE_PARTS * PROF_PROBE_LONGER)) {
		t += prof_probe_spin(part);
		done++;
	}
	lapic_timer_stop();
	*k = probe_irqs[cpu_id()] - k0;
	*off = base * done / PROF_PROBE_PARTS;  /* the same iterations undisturbed */
	*on = t;
}

/*
 * What an interrupt cost the spins, from n pairs: each spin with
 * interrupts over the fastest without, per interrupt; the cheapest (a
 * shared host only adds time: the least disturbed pair is the truest).
 * 0 if no interrupt came.
 */
static uint64_t prof_probe_cheapest(const uint64_t *off, const uint64_t *on, const uint64_t *k,
				    unsigned n)
{
	uint64_t fastest = UINT64_MAX, best = UINT64_MAX;

	for (unsigned i = 0; i < n; i++)
		fastest = MIN(fastest, off[i]);
	for (unsigned i = 0; i < n; i++)
		if (k[i])
			best = MIN(best, (on[i] - MIN(on[i], fastest)) / k[i]);
	return best == UINT64_MAX ? 0 : best;
}

uint64_t prof_probe_timer(unsigned pairs)
{
	uint64_t off[PROF_PROBE_PAIRS_MAX], on[PROF_PROBE_PAIRS_MAX], k[PROF_PROBE_PAIRS_MAX];

	pairs = MIN(MAX(pairs, 1u), (unsigned)PROF_PROBE_PAIRS_MAX);
	preempt_disable();
	uint64_t n = prof_probe_iters(PROF_PROBE_SPIN_US);
	for (unsigned i = 0; i < pairs; i++)
		prof_probe_pair(n, &off[i], &on[i], &k[i]);
	lapic_timer_start(cpu_current()->arch.lapic_ticks_per_sec, tick_hz());
	preempt_enable();
	return prof_probe_cheapest(off, on, k, pairs);
}

/*
 * The timer probe's answer, measured again only when older than
 * PROF_PROBE_KEEP_S: each probe spins with preemption off for 14 ms or
 * more (over 100 ms on a loaded host), and a task starting and stopping
 * sessions (the fuzzer does, all the time) would otherwise hold its CPU
 * that long every time.
 */
static uint64_t prof_timer_cost(void)
{
	uint64_t now = rdtsc();

	if (!probe_timer_runs || now - probe_timer_at > PROF_PROBE_KEEP_S * time_cycles_per_sec()) {
		probe_timer_cost = prof_probe_timer(PROF_PROBE_PAIRS);
		probe_timer_at = now;
		probe_timer_runs++;
	}
	return probe_timer_cost;
}

uint64_t prof_timer_probes(void)
{
	return probe_timer_runs;
}

uint64_t arch_prof_irq_cycles(void)
{
	uint64_t v[PROF_PROBE_ROUNDS];

	for (unsigned i = 0; i < PROF_PROBE_ROUNDS; i++)
		v[i] = prof_probe_once();
	uint64_t self = prof_median(v, PROF_PROBE_ROUNDS);
	if (running == PROF_SRC_TIMER)          /* the timer is the source's */
		return self;
	return MAX(self, prof_timer_cost());
}
