/*
 * Taking samples: prof_hit(), called by the arch sources from NMI or
 * interrupt context on each CPU. Lock-free and allocation-free: it reads
 * the engine's filter, walks the call chain with non-faulting reads, and
 * puts one record in its own CPU's ring (lib/ring.c counts what does not
 * fit). A throttle keeps sampling within the engine's budget (percent) of each
 * CPU's time: past the budget in a window of 1/10 s it keeps only every
 * second, fourth, ... sample and records the change (PROF_REC_THROTTLE);
 * when the cost falls well below the budget it doubles the rate again.
 */
#include <arch/callchain.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <kernel/profil.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include "internal.h"

volatile uint64_t prof_hits[MAX_CPUS][PROF_SRC_COUNT];
volatile uint64_t prof_last_pc[MAX_CPUS];
prof_cpu_t prof_cpus[MAX_CPUS];

void prof_sample_reset(void)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		prof_cpu_t *p = &prof_cpus[i];
		p->divisor = 1;
		p->count = 0;
		p->taken = 0;
		p->cost = 0;
		p->window_start = 0;
		p->window_cost = 0;
	}
}

/* Does a running session want samples of task id? */
static bool prof_wanted(uint64_t task)
{
	if (prof_engine.system)
		return true;
	for (unsigned i = 0; i < PROF_MAX_TARGETS; i++)
		if (prof_engine.targets[i] == task && task)
			return true;
	return false;
}

/* Throttle: skip this sample? (counts the skip) */
static bool prof_throttled(prof_cpu_t *p)
{
	if (p->divisor <= 1)
		return false;
	if (++p->count < p->divisor) {
		p->skipped++;
		return true;
	}
	p->count = 0;
	return false;
}

static void prof_throttle_record(ring_t *r, prof_cpu_t *p, uint32_t cpu, uint64_t now)
{
	prof_rec_throttle_t t = { .divisor = p->divisor, .skipped = p->skipped };

	prof_rec_init(&t.h, PROF_REC_THROTTLE, sizeof(t), cpu, now);
	ring_put(r, PROF_REC_THROTTLE, &t, sizeof(t));
}

/* Account cost cycles; at the end of a window adjust the divisor. */
static void prof_throttle_account(ring_t *r, prof_cpu_t *p, uint32_t cpu, uint64_t now,
				  uint64_t cost)
{
	uint64_t window = prof_engine.window;
	uint32_t old = p->divisor;

	p->window_cost += cost;
	if (!p->window_start)
		p->window_start = now;
	if (now - p->window_start < window)
		return;
	uint64_t budget = (now - p->window_start) * prof_engine.budget / PROF_BUDGET_MAX;
	if (p->window_cost > budget && p->divisor < PROF_THROTTLE_MAX_DIV)
		p->divisor *= 2;
	else if (p->window_cost * 4 < budget && p->divisor > 1)
		p->divisor /= 2;
	p->window_start = now;
	p->window_cost = 0;
	if (p->divisor != old)
		prof_throttle_record(r, p, cpu, now);
}

static unsigned prof_mode(const cpu_t *c, const int_frame_t *f)
{
	if (c->current == c->idle)
		return PROF_MODE_IDLE;
	return frame_from_user(f) ? PROF_MODE_USER : PROF_MODE_KERNEL;
}

/* Build the sample in buf (room for PROF_DEPTH_MAX entries); its size. */
static size_t prof_build(prof_rec_sample_t *s, const cpu_t *c, const int_frame_t *f,
			 unsigned source, uint64_t now)
{
	thread_t *th = c->current;
	size_t n = 0;
	uint16_t nk = 0;

	s->task = th && th->task ? th->task->id : 0;
	s->thread = th ? th->id : 0;
	s->pc = frame_pc(f);
	s->mode = (uint8_t)prof_mode(c, f);
	s->source = (uint8_t)source;
	s->reserved = 0;
	if (prof_engine.depth)
		n = arch_callchain(f, s->chain, prof_engine.depth, &nk);
	s->nchain = (uint16_t)n;
	s->nkernel = nk;
	size_t size = sizeof(*s) + n * sizeof(uint64_t);
	prof_rec_init(&s->h, PROF_REC_SAMPLE, size, c->id, now);
	return size;
}

static void prof_take(cpu_t *c, prof_cpu_t *p, const int_frame_t *f, unsigned source)
{
	uint64_t buf[(sizeof(prof_rec_sample_t) / 8) + PROF_DEPTH_MAX];
	prof_rec_sample_t *s = (prof_rec_sample_t *)buf;
	ring_t *r = &prof_engine.rings[c->id];
	uint64_t t0 = rdtsc();

	thread_t *th = c->current;
	if (!prof_engine.ring_mem[c->id] || !prof_wanted(th && th->task ? th->task->id : 0) ||
	    prof_throttled(p))
		return;
	profil_hit(f);
	size_t size = prof_build(s, c, f, source, t0);
	if (ring_put(r, PROF_REC_SAMPLE, s, size) == EOK)
		p->taken++;
	uint64_t t1 = rdtsc();
	p->cost += t1 - t0;
	prof_throttle_account(r, p, c->id, t1, t1 - t0);
}

void prof_hit(const int_frame_t *f, unsigned source)
{
	cpu_t *c = cpu_current();
	prof_cpu_t *p = &prof_cpus[c->id];

	prof_hits[c->id][source % PROF_SRC_COUNT]++;
	prof_last_pc[c->id] = frame_pc(f);
	if (!prof_engine.on || p->busy)
		return;
	if (prof_gate_enter(&p->busy, &prof_engine.on))
		prof_take(c, p, f, source);
	prof_gate_leave(&p->busy);
}
