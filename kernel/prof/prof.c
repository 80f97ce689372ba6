/*
 * The profiler's start-up, its sources as the generic code sees them, and
 * its sysinfo nodes (system.profiler, system.profiler.sources).
 */
#include <abi/sysinfo.h>
#include <arch/prof.h>
#include <kernel/sysinfo.h>
#include <lib/string.h>
#include "internal.h"

void prof_init(void)
{
	arch_prof_init();
	prof_kbox_init();
	prof_drain_init();
}

bool prof_source_desc(unsigned id, prof_source_desc_t *d)
{
	for (unsigned i = 0; arch_prof_source_at(i, d); i++)
		if (d->id == id)
			return true;
	return false;
}

unsigned prof_source_default(void)
{
	prof_source_desc_t d;

	for (unsigned i = 0; arch_prof_source_at(i, &d); i++)
		if ((d.flags & PROF_SRCF_AVAILABLE) && !(d.flags & PROF_SRCF_NODEFAULT))
			return d.id;
	return PROF_SRC_DEFAULT;
}

/* Fill r from the engine and the sessions. */
static void prof_snapshot(sysinfo_profiler_t *r)
{
	prof_source_desc_t d;

	memset(r, 0, sizeof(*r));
	for (unsigned i = 0; arch_prof_source_at(i, &d); i++)
		if (d.flags & PROF_SRCF_AVAILABLE)
			r->available |= 1u << d.id;
	uint64_t f = spin_lock_irqsave(&prof_lock);
	r->state = prof_engine.on ? PROF_STATE_RUNNING : PROF_STATE_IDLE;
	r->source = prof_engine.on ? prof_engine.source : 0;
	r->hz = prof_engine.on ? prof_engine.hz : 0;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		if (prof_engine.ring_mem[i])
			r->memory += prof_engine.rings[i].size;
	list_foreach(&prof_sessions, it) {
		prof_session_t *s = list_entry(it, prof_session_t, node);
		r->sessions++;
		r->system_sessions += !s->target;
		r->memory += s->out.size + sizeof(*s);
	}
	r->samples = prof_total_samples;
	r->lost = prof_total_lost;
	r->unrouted = prof_total_unrouted;
	r->throttled = prof_total_throttled;
	r->missed = prof_total_missed;
	spin_unlock_irqrestore(&prof_lock, f);
}

static errno_t prof_si_state(si_buf_t *b, uint64_t arg)
{
	sysinfo_profiler_t r;

	(void)arg;
	prof_snapshot(&r);
	return si_put(b, &r, sizeof(r));
}

static errno_t prof_si_sources(si_buf_t *b, uint64_t arg)
{
	prof_source_desc_t d;
	errno_t rc = EOK;

	(void)arg;
	for (unsigned i = 0; rc == EOK && arch_prof_source_at(i, &d); i++)
		rc = si_put(b, &d, sizeof(d));
	return rc;
}

SYSINFO_DATA_NODE(profiler, "system.profiler", 240, prof_si_state);
/* A prof_source_desc_t per source, in the kernel's order. */
SYSINFO_DATA_NODE(profiler_sources, "system.profiler.sources", 250, prof_si_sources);
