/*
 * The profiler's sample sources on x86-64 / PC (<arch/prof.h>): what the
 * machine has, starting and stopping the one source in use, and the NMI
 * hook, all through the sources' descriptors (prof_source_t,
 * arch/prof_src.h) that prof_pmc.c, prof_timer.c and pc/prof_rtc.c put in
 * the .prof_sources section, kept in prof_sources[] by rank at boot.
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
#include <lib/fmt.h>
#include <lib/string.h>

#define LOG_PREFIX "prof"
#define PROF_PROBE_ROUNDS 9             /* empty self-interrupts timed */
#define PROF_PROBE_PAIRS 7              /* spins without and with it (at most PROF_PROBE_PAIRS_MAX) */
#define PROF_PROBE_SPIN_US 1000         /* each spin's length */
#define PROF_PROBE_CAL_ITERS 20000ul    /* iterations timed to size the spins */
#define PROF_PROBE_PARTS 10             /* a spin with the timer runs in parts... */
#define PROF_PROBE_MIN_IRQS 4           /* ...until this many interrupts came... */
#define PROF_PROBE_LONGER 16            /* ...for at most this many times as long */
#define PROF_PROBE_KEEP_S 30            /* a timer probe's answer is reused this long */
#define PROF_PROBE_RETRY_S 1            /* ...a probe that measured nothing (0) this long */

/* Every source of .prof_sources with a valid id, by rank (prof_sources_sort). */
static const prof_source_t *prof_sources[PROF_SRC_COUNT];
static unsigned prof_nsources;

static bool inited;
static const prof_source_t *running;    /* the source started, NULL = none */
static bool src_have[PROF_SRC_COUNT];
static const char *src_what[PROF_SRC_COUNT];   /* a description, or why not */
static const prof_source_t *nmi_srcs[PROF_SRC_COUNT];  /* usable, with an nmi */
static unsigned nmi_nsrcs;                             /* published after probing */

static volatile uint64_t probe_irqs[MAX_CPUS];   /* VEC_PROF_PROBE interrupts taken */
static uint64_t probe_timer_cost, probe_timer_at;  /* the last engine-start probe, its TSC */
static uint64_t probe_timer_runs;                 /* engine-start probes run */
static bool probe_timer_answered;                 /* the last one measured a cost (not 0) */

static void prof_probe_irq(int_frame_t *f)
{
	(void)f;
	probe_irqs[cpu_id()]++;
}

/* The source with id source, or NULL. */
static const prof_source_t *prof_source(unsigned source)
{
	for (unsigned i = 0; i < prof_nsources; i++)
		if (prof_sources[i]->id == source)
			return prof_sources[i];
	return NULL;
}

/* Insert s into prof_sources by rank; refuse (log) a bad or second id. */
static void prof_sources_add(const prof_source_t *s)
{
	unsigned i = prof_nsources;

	if (s->id == PROF_SRC_DEFAULT || s->id >= PROF_SRC_COUNT || prof_source(s->id) ||
	    strlen(s->name) >= PROF_SRC_NAME_MAX) {
		pr_warn("source %s: id %u refused (bad, taken or long name)", s->name, s->id);
		return;
	}
	for (; i > 0 && prof_sources[i - 1]->rank > s->rank; i--)
		prof_sources[i] = prof_sources[i - 1];
	prof_sources[i] = s;
	prof_nsources++;
}

/* prof_sources from the .prof_sources section, ordered by rank. */
static void prof_sources_sort(void)
{
	for (const prof_source_t *s = __prof_sources_start; s < __prof_sources_end; s++)
		prof_sources_add(s);
}

/*
 * The profiler's NMI handler (registered with the dispatcher, latching:
 * a broadcast's reason flag can cover two sends, the RTC's edge can race
 * stop): a counter overflow, the RTC as NMI, or a broadcast, which the
 * sender flags with NMI_REASON_PROF. Every usable source's nmi runs.
 */
static bool prof_nmi(struct int_frame *f, uint32_t pending)
{
	bool prof_ipi = pending & NMI_REASON_PROF;
	bool mine = prof_ipi;
	unsigned n = __atomic_load_n(&nmi_nsrcs, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		mine |= nmi_srcs[i]->nmi(f, prof_ipi);
	return mine;
}

/* Probe every source and log "sources: NAME yes (WHAT); NAME no (WHY); ...". */
static void prof_probe_sources(void)
{
	char line[256];
	size_t at = 0;

	for (unsigned i = 0; i < prof_nsources; i++) {
		const prof_source_t *s = prof_sources[i];
		const char *what = NULL;
		src_have[s->id] = s->probe(&what);
		src_what[s->id] = what;
		int n = fmt_snprintf(line + at, sizeof(line) - at, "%s%s %s%s%s%s",
				     i ? "; " : "", s->name,
				     src_have[s->id] ? "yes" : "no", what ? " (" : "",
				     what ? what : "", what ? ")" : "");
		at = MIN(at + (size_t)MAX(n, 0), sizeof(line) - 1);
	}
	pr_info("sources: %s", line);
}

/* The usable sources with an NMI part, for prof_nmi (after probing). */
static void prof_collect_nmi(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < prof_nsources; i++)
		if (prof_sources[i]->nmi && src_have[prof_sources[i]->id])
			nmi_srcs[n++] = prof_sources[i];
	__atomic_store_n(&nmi_nsrcs, n, __ATOMIC_RELEASE);
}

void arch_prof_init(void)
{
	if (inited)
		return;
	inited = true;
	arch_nmi_register(prof_nmi, 0, true);     /* and NMI_REASON_PROF */
	irq_set_handler(VEC_PROF_PROBE, prof_probe_irq);
	prof_sources_sort();
	prof_probe_sources();
	prof_collect_nmi();
}

bool arch_prof_source_at(unsigned i, prof_source_desc_t *d)
{
	if (i >= prof_nsources)
		return false;
	const prof_source_t *s = prof_sources[i];
	memset(d, 0, sizeof(*d));
	d->id = s->id;
	d->flags = (s->flags & ~PROF_SRCF_AVAILABLE) | (src_have[s->id] ? PROF_SRCF_AVAILABLE : 0);
	strlcpy(d->name, s->name, sizeof(d->name));
	strlcpy(d->what, src_what[s->id] ? src_what[s->id] : "", sizeof(d->what));
	return true;
}

bool arch_prof_have(unsigned source, const char **why)
{
	const char *no = NULL;

	if (!prof_source(source))
		no = "no such source";
	else if (!src_have[source])
		no = src_what[source] ? src_what[source] : "not probed yet";
	if (no && why)
		*why = no;
	return !no;
}

errno_t arch_prof_start(unsigned source, unsigned hz, unsigned *hz_out)
{
	const prof_source_t *s = prof_source(source);

	if (hz == 0 || hz > PROF_HZ_MAX || !s)
		return EINVAL;
	if (!arch_prof_have(source, NULL))
		return ENOTSUP;
	if (running)
		return EBUSY;
	errno_t rc = s->start(hz, hz_out);
	if (rc == EOK)
		running = s;
	return rc;
}

void arch_prof_stop(void)
{
	if (running)
		running->stop();
	running = NULL;
}

bool arch_prof_scale(unsigned source, unsigned divisor)
{
	const prof_source_t *s = prof_source(source);

	if (!s || !s->scale)
		return false;
	s->scale(divisor);
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
 * that long every time. A probe that measured nothing (no interrupt came,
 * or a loaded host made every spin with them look no slower: 0) is tried
 * again after PROF_PROBE_RETRY_S, the last real answer used meanwhile: a
 * 4-CPU CI boot kept such a 0 and charged only the self-interrupt's 400
 * cycles where a spin lost 31,000 an interrupt.
 */
static uint64_t prof_timer_cost(void)
{
	uint64_t now = rdtsc();
	uint64_t keep = probe_timer_answered ? PROF_PROBE_KEEP_S : PROF_PROBE_RETRY_S;

	if (!probe_timer_runs || now - probe_timer_at > keep * time_cycles_per_sec()) {
		uint64_t cost = prof_probe_timer(PROF_PROBE_PAIRS);

		probe_timer_answered = cost != 0;
		if (cost)
			probe_timer_cost = cost;
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
	if (running && running->id == PROF_SRC_TIMER)     /* the timer is the source's */
		return self;
	return MAX(self, prof_timer_cost());
}
