/*
 * The flight recorder dumped at a kernel panic: the stream sprofile -r
 * would read (a header flagged PROF_F_RECORDER, the samples and events,
 * an END with reason PROF_END_PANIC) written raw to the platform's dump
 * port (COM2 on a PC), where the host keeps it (QEMU -serial file:).
 * The other CPUs are stopped; no lock, no allocation; the task table is
 * not read (it may be mid-change), so the stream names no task. Each
 * CPU gives its last PROF_PANIC_DUMP_SLOTS slots at most.
 */
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/tick.h>
#include <kernel/trace.h>

#include "internal.h"

/*
 * Each CPU's last slots the dump writes: about 1.4 MB in all on 2 CPUs
 * at 88 bytes a record, quick under QEMU and 2 minutes at a real line's
 * 115,200 baud (all of a 4 MiB recorder would take 8).
 */
#define PROF_PANIC_DUMP_SLOTS 8192

typedef struct prof_dump {
	uint64_t samples, events;
} prof_dump_t;

static void prof_dump_event(const prof_rec_trace_t *rec, void *ctx)
{
	((prof_dump_t *)ctx)->events++;
	platform_dump_write(rec, sizeof(*rec));
}

static void prof_dump_sample(const prof_rec_sample_t *rec, void *ctx)
{
	((prof_dump_t *)ctx)->samples++;
	platform_dump_write(rec, sizeof(*rec));
}

void prof_panic_dump(void)
{
	static prof_session_t s;        /* the header's flags; nothing else */
	prof_dump_t d = { 0, 0 };
	prof_rec_header_t h;
	prof_rec_end_t e = { .reason = PROF_END_PANIC };

	if (!trace_recorder_bytes())
		return;
	s.flags = PROF_F_RECORDER | trace_recorder_classes();
	prof_header_fill(&h, &s, PROF_SRC_TICK, tick_hz());
	platform_dump_write(&h, sizeof(h));
	trace_recorder_copy(prof_dump_event, prof_dump_sample, &d, PROF_PANIC_DUMP_SLOTS);
	prof_rec_init(&e.h, PROF_REC_END, sizeof(e), cpu_id(), time_cycles());
	e.samples = d.samples;
	platform_dump_write(&e, sizeof(e));
	printk_unlocked("panic: the flight recorder: %lu samples and %lu events to com2\n",
			d.samples, d.events);
}
