/*
 * Taking samples: prof_hit(), called by the arch sources from NMI or
 * interrupt context on each CPU. Lock-free and allocation-free: it reads
 * the engine's filter, walks the call chain with non-faulting reads, and
 * puts one record in its own CPU's ring (lib/ring.c counts what does not
 * fit).
 *
 * A throttle keeps sampling within the engine's budget (percent) of each
 * CPU's time. It budgets what the sampled code loses, not only what
 * prof_hit takes: at each sample's entry the previous sample cost the time
 * inside prof_hit plus the part of the gap since its exit that the
 * interrupt itself took (the engine's irq_cost, measured when the engine
 * starts as what a timer interrupt slows a spin down by, the host's part
 * outside the guest's view included: in an emulator it is most of the
 * cost); a prof_hit far dearer than the cheapest one (PROF_HIT_SPREAD)
 * had its CPU taken away and is charged that bound. A clock source's
 * hits that were due and did not come are charged as the periods they
 * stood for (above PROF_LATE_MIN_HZ). Past the budget in a window of
 * 1/10 s the divisor doubles until
 * the cost would fit, and the source fires 1/divisor as often on this CPU
 * (arch_prof_scale; sources that cannot, keep every divisor-th sample);
 * each change goes in the stream (PROF_REC_THROTTLE). Under a quarter of
 * the budget, the divisor halves again.
 */
#include <arch/callchain.h>
#include <arch/interrupt.h>
#include <arch/prof.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/string.h>
#include "internal.h"

volatile uint64_t prof_hits[MAX_CPUS][PROF_SRC_COUNT];
volatile uint64_t prof_last_pc[MAX_CPUS];
prof_cpu_t prof_cpus[MAX_CPUS];

/* A hit's nominal weight and long-gap limit at p's divisor (multiplications only: NMI-safe). */
static void prof_weigh_scale(prof_cpu_t *p)
{
	p->nominal = prof_engine.period * p->thr.divisor;
	p->gap_limit = prof_engine.ticking && p->nominal ? p->nominal + p->nominal / 2 : UINT64_MAX;
}

/*
 * A hit that is not skipped settles the time since the last settled one:
 * a long gap's cycles beyond the nominal weight count as missed ticks
 * (prof_cpu_missed divides them out later). Returns the sample's weight:
 * the measured cycles for a clock source, else the nominal. NMI-safe.
 */
static uint64_t prof_settle(prof_cpu_t *p)
{
	uint64_t w = p->carry;

	p->carry = 0;
	if (w > p->gap_limit)
		__atomic_store_n(&p->excess, p->excess + (w - p->nominal), __ATOMIC_RELAXED);
	return prof_engine.ticking ? w : p->nominal;
}

void prof_sample_reset(void)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		prof_cpu_t *p = &prof_cpus[i];
		p->thr.divisor = 1;
		p->thr.floor = 1;
		p->window_hits = 0;
		p->scaled = false;
		p->count = 0;
		p->last_entry = 0;
		p->last_exit = 0;
		p->hit_min = 0;
		p->taken = 0;
		p->cost = 0;
		p->window_start = 0;
		p->window_cost = 0;
		p->carry = 0;
		p->excess = 0;
		p->missed_sent = 0;
		prof_weigh_scale(p);
	}
}

uint64_t prof_cpu_missed(unsigned cpu)
{
	uint64_t period = prof_engine.period;

	if (!prof_engine.ticking || !period || cpu >= MAX_CPUS)
		return 0;
	return (__atomic_load_n(&prof_cpus[cpu].excess, __ATOMIC_RELAXED) + period / 2) / period;
}

/* Is task id the target of a running task session? */
static bool prof_target(uint64_t task)
{
	return prof_in_targets(prof_engine.targets, task);
}

/* Does a running session want samples of th (its own, or work it does for a target)? */
static bool prof_wanted(const thread_t *th)
{
	if (prof_engine.system)
		return true;
	if (!th || !th->task)
		return false;
	return prof_target(th->task->id) || (origin_serving(&th->serve) && prof_target(th->serve.rec.hops[0]));
}

/* Throttle: skip this sample? (counts the skip; a scaled source's hit stands for divisor) */
static bool prof_throttled(prof_cpu_t *p)
{
	if (p->thr.divisor <= 1)
		return false;
	if (p->scaled) {
		p->skipped += p->thr.divisor - 1;
		return false;
	}
	if (++p->count < p->thr.divisor) {
		p->skipped++;
		return true;
	}
	p->count = 0;
	return false;
}

static void prof_throttle_record(ring_t *r, prof_cpu_t *p, uint32_t cpu, uint64_t now)
{
	prof_rec_throttle_t t = { .divisor = p->thr.divisor, .skipped = p->skipped };

	prof_rec_init(&t.h, PROF_REC_THROTTLE, sizeof(t), cpu, now);
	ring_put(r, PROF_REC_THROTTLE, &t, sizeof(t));
}

uint64_t prof_throttle_loss(uint64_t prev_entry, uint64_t prev_exit, uint64_t next_entry,
			    uint64_t irq_cost, uint64_t hit_cap)
{
	uint64_t gap = next_entry - prev_exit;

	return MIN(prev_exit - prev_entry, hit_cap) + MIN(gap, irq_cost);
}

/* div doubled until have * 2^k covers need (MAX_DIV at most). */
static uint32_t prof_div_cover(uint32_t div, uint64_t need, uint64_t have)
{
	while (need > have && div < PROF_THROTTLE_MAX_DIV) {
		div *= 2;
		need /= 2;
	}
	return div;
}

/*
 * What a clock source's missing hits stood for: (due - hits) of its
 * periods, while it runs above PROF_LATE_MIN_HZ (divisor under
 * late_div_max) and owed at least PROF_LATE_MIN_DUE.
 */
static uint64_t prof_missed(const prof_throttle_t *t, const prof_window_t *w)
{
	if (t->divisor >= w->late_div_max || w->due < PROF_LATE_MIN_DUE || w->hits >= w->due)
		return 0;
	return w->elapsed / w->due * (w->due - w->hits);
}

void prof_throttle_step(prof_throttle_t *t, const prof_window_t *w, unsigned budget)
{
	uint64_t allowed = w->elapsed * budget / PROF_BUDGET_MAX;
	uint64_t missed = prof_missed(t, w);
	uint32_t div = prof_div_cover(t->divisor, w->cost, allowed);

	if (missed) {
		uint32_t late = MIN(prof_div_cover(t->divisor, w->cost + missed, allowed),
				    w->late_div_max);
		if (late > div)
			div = t->floor = MAX(t->floor, late);
	}
	if (div == t->divisor && (w->cost + missed) * 4 < allowed && div > t->floor &&
	    (!w->due || w->hits * 10 >= w->due * 9))
		div /= 2;
	t->divisor = div;
}

/* Hits a clock source owed this CPU over elapsed cycles at its current rate; 0 if no clock. */
static uint64_t prof_due(const prof_cpu_t *p, uint64_t elapsed)
{
	uint64_t hz = prof_engine.hz / (p->scaled ? p->thr.divisor : 1u);

	if (!prof_engine.clock)
		return 0;
	return elapsed * MAX(hz, 1ul) / time_cycles_per_sec();
}

/* A window's end (now): the throttle's step, and the divisor's change if any. */
static __attribute__((noinline)) void prof_throttle_window(prof_cpu_t *p, uint32_t cpu,
							   unsigned source, uint64_t now)
{
	uint32_t old = p->thr.divisor;
	prof_window_t w = { p->window_cost, now - p->window_start, p->window_hits,
			    prof_due(p, now - p->window_start),
			    prof_engine.clock ? prof_engine.hz / PROF_LATE_MIN_HZ : 0 };

	prof_throttle_step(&p->thr, &w, prof_engine.budget);
	p->window_start = now;
	p->window_cost = 0;
	p->window_hits = 0;
	if (p->thr.divisor == old)
		return;
	p->scaled = arch_prof_scale(source, p->thr.divisor);
	p->count = 0;
	prof_weigh_scale(p);
	if (prof_engine.ring_mem[cpu])
		prof_throttle_record(&prof_engine.rings[cpu], p, cpu, now);
}

/* At a sample's entry (now): charge the previous one; at a window's end adjust the divisor. */
static inline __attribute__((always_inline)) void prof_throttle_account(prof_cpu_t *p,
									uint32_t cpu,
									unsigned source,
									uint64_t now)
{
	if (p->last_exit)
		p->window_cost += prof_throttle_loss(p->last_entry, p->last_exit, now,
						     prof_engine.irq_cost,
						     p->hit_min * PROF_HIT_SPREAD);
	p->window_hits++;
	if (!p->window_start)
		p->window_start = now;
	if (now - p->window_start >= prof_engine.window)
		prof_throttle_window(p, cpu, source, now);
}

static unsigned prof_mode(const cpu_t *c, const int_frame_t *f)
{
	if (c->current == c->idle)
		return PROF_MODE_IDLE;
	return frame_from_user(f) ? PROF_MODE_USER : PROF_MODE_KERNEL;
}

/* A sample's call chain and top words, walked before its record is reserved. */
typedef struct prof_stack_words {
	size_t n;                   /* chain entries */
	uint16_t nkernel, ntop;
	uint64_t w[PROF_DEPTH_MAX + PROF_TOP_WORDS];
} prof_stack_words_t;

static void prof_walk(prof_stack_words_t *w, const int_frame_t *f)
{
	w->nkernel = w->ntop = 0;
	w->n = prof_engine.depth ? arch_sample_stack(f, w->w, prof_engine.depth,
						     PROF_TOP_WORDS, &w->nkernel, &w->ntop)
				 : 0;
}

/* The sample's fields in s, a record of h.size bytes reserved in the ring. */
static inline __attribute__((always_inline)) void
prof_fill(prof_rec_sample_t *s, const cpu_t *c, const int_frame_t *f, unsigned source,
	  const prof_stack_words_t *w, size_t size, uint64_t now, uint64_t weight, uint64_t late)
{
	thread_t *th = c->current;
	unsigned mode = prof_mode(c, f);

	prof_rec_init(&s->h, PROF_REC_SAMPLE, size, c->id, now);
	s->task = th && th->task ? th->task->id : 0;
	s->thread = th ? th->id : 0;
	s->pc = late ? late : frame_pc(f);
	s->mode = (uint8_t)(late && mode == PROF_MODE_USER ? PROF_MODE_KERNEL : mode);
	s->source = (uint8_t)source;
	s->nchain = (uint16_t)(w ? w->n : 0);
	s->nkernel = w ? w->nkernel : 0;
	s->ntop = w ? w->ntop : 0;
	s->weight = weight;
	for (size_t i = 0; w && i < w->n + w->ntop; i++)    /* a few words: no memcpy call */
		s->chain[i] = w->w[i];
}

/*
 * Build the sample in place in its CPU's ring, its chain and top words in
 * w (NULL: none): the serving thread's call stack record goes in before
 * it (sent before its first sample), then the record is reserved at its
 * final size (the origin block of a serving thread's sample included)
 * and filled, so nothing is built twice. A full ring drops it (lib/ring.c
 * counts it).
 */
static inline __attribute__((always_inline)) errno_t
prof_put_words(cpu_t *c, const int_frame_t *f, unsigned source, uint64_t now, uint64_t weight,
	       uint64_t late, const prof_stack_words_t *w)
{
	ring_t *r = &prof_engine.rings[c->id];
	thread_t *th = c->current;
	bool serving = th && origin_serving(&th->serve);
	uint8_t *rec;

	if (serving && th->serve.stack)
		prof_stack_emit(th->serve.stack, r, c->id, now);
	size_t size = sizeof(prof_rec_sample_t) + (w ? w->n + w->ntop : 0) * sizeof(uint64_t);
	size_t all = size + (serving ? sizeof(prof_ipc_t) : 0);

	rec = ring_reserve_inline(r, PROF_REC_SAMPLE, all);   /* all < ring_max_payload */
	if (!rec)
		return ENOSPC;
	prof_fill((prof_rec_sample_t *)rec, c, f, source, w, all, now, weight, late);
	if (serving && !origin_sample(th, (prof_ipc_t *)(rec + size)))
		memset(rec + size, 0, sizeof(prof_ipc_t));   /* nhops 0: none */
	ring_commit_inline(r);
	return EOK;
}

/* A sample with its call chain walked first (out of line: its words' buffer is large). */
static __attribute__((noinline)) errno_t prof_put_chain(cpu_t *c, const int_frame_t *f,
							unsigned source, uint64_t now,
							uint64_t weight)
{
	prof_stack_words_t w;

	prof_walk(&w, f);
	return prof_put_words(c, f, source, now, weight, 0, &w);
}

/* The sample; a late one (charged to kernel PC late) has no chain: the
 * chain at delivery is not the section's. */
static inline __attribute__((always_inline)) errno_t
prof_put(cpu_t *c, const int_frame_t *f, unsigned source, uint64_t now, uint64_t weight,
	 uint64_t late)
{
	if (!late && prof_engine.depth)
		return prof_put_chain(c, f, source, now, weight);
	return prof_put_words(c, f, source, now, weight, late, NULL);
}

_Static_assert(sizeof(prof_rec_sample_t) + (PROF_DEPTH_MAX + PROF_TOP_WORDS) * sizeof(uint64_t) +
		       sizeof(prof_ipc_t) < PROF_RING_BYTES / 2 - sizeof(ring_hdr_t),
	       "a sample fits ring_max_payload (ring_reserve_inline checks no size)");

static prof_consumer_t prof_consumers[PROF_CONSUMERS];
static unsigned prof_nconsumers;
static uint32_t prof_consumers_wanted;         /* consumers that want samples now */

errno_t prof_consumer_add(prof_consumer_t fn)
{
	if (prof_nconsumers == PROF_CONSUMERS)
		return ELIMIT;
	prof_consumers[prof_nconsumers] = fn;
	__atomic_store_n(&prof_nconsumers, prof_nconsumers + 1, __ATOMIC_RELEASE);
	return EOK;
}

void prof_consumers_want(bool on)
{
	if (on)
		__atomic_add_fetch(&prof_consumers_wanted, 1, __ATOMIC_RELEASE);
	else
		__atomic_sub_fetch(&prof_consumers_wanted, 1, __ATOMIC_RELEASE);
}

/* Give the sample of frame f to every consumer, if one wants it. NMI-safe. */
static inline void prof_consumers_run(const int_frame_t *f)
{
	if (__builtin_expect(!__atomic_load_n(&prof_consumers_wanted, __ATOMIC_RELAXED), 1))
		return;
	unsigned n = __atomic_load_n(&prof_nconsumers, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		prof_consumers[i](f);
}

/*
 * Take the sample if a session wants it; false if it was filtered or
 * skipped. A skipped hit leaves its time to the next one; any other
 * settles it (prof_settle), so a filtered hit's time is nobody's.
 */
static inline __attribute__((always_inline)) bool
prof_take(cpu_t *c, prof_cpu_t *p, const int_frame_t *f, unsigned source, uint64_t t0,
	  uint64_t late)
{
	if (!prof_engine.ring_mem[c->id] || !prof_wanted(c->current)) {
		prof_settle(p);
		return false;
	}
	if (prof_throttled(p))
		return false;
	uint64_t weight = prof_settle(p);
	if (!late)
		prof_consumers_run(f);
	if (prof_put(c, f, source, t0, weight, late) == EOK)
		p->taken++;
	return true;
}

/* prof_hit, charged to kernel PC late (no chain) if it is not 0. */
static inline __attribute__((always_inline)) void prof_hit_pc(const int_frame_t *f,
							      unsigned source, uint64_t late)
{
	cpu_t *c = cpu_current();
	prof_cpu_t *p = &prof_cpus[c->id];

	prof_hits[c->id][source < PROF_SRC_COUNT ? source : 0]++;
	prof_last_pc[c->id] = late ? late : frame_pc(f);
	if (!prof_engine.on || p->busy)
		return;
	if (prof_gate_enter(&p->busy, &prof_engine.on)) {
		uint64_t t0 = time_cycles();
		if (!p->nominal)                /* the period is set once the source runs */
			prof_weigh_scale(p);
		p->carry += p->last_entry ? t0 - p->last_entry : p->nominal;
		prof_throttle_account(p, c->id, source, t0);
		bool took = prof_take(c, p, f, source, t0, late);
		uint64_t t1 = time_cycles();
		if (took)
			p->cost += t1 - t0;
		p->last_entry = t0;
		p->last_exit = t1;
		if (!p->hit_min || p->last_exit - t0 < p->hit_min)
			p->hit_min = MAX(p->last_exit - t0, 1ul);
	}
	prof_gate_leave(&p->busy);
}

void prof_hit(const int_frame_t *f, unsigned source)
{
	prof_hit_pc(f, source, 0);
}

void prof_hit_at(const int_frame_t *f, unsigned source, uint64_t late)
{
	prof_hit_pc(f, source, late);
}
