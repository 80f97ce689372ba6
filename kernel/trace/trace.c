/*
 * Kernel trace events' control, readers and flight recorder
 * (<kernel/trace.h> has the buffer and the inline hooks).
 *
 * The flight recorder (recorder=MIB on the command line, default
 * TRACE_RECORDER_MIB, 0 off): the rings are made at boot, sized to MIB
 * over the CPUs, and kept; TRACE_RECORDER_CLASSES stay on and every
 * scheduler tick adds a sample of what it interrupted, so the rings
 * always hold the last events; trace_recorder_copy reads them out.
 * Without the recorder the rings exist while the profiler's engine runs.
 *
 * Closing (no recorder): trace_stop clears trace_open, then runs a no-op
 * on every CPU (an IPI each), which no CPU takes while inside a hook
 * (interrupts are off there), so none still writes a ring when they are
 * freed.
 *
 * Lock order: the profiler's prof_lock (held by its drain thread) →
 * trace_lock (the rings' memory: made, read, freed under it) → whatever
 * trace_drain's callback takes (the profiler: the task table lock). The
 * hooks take no lock.
 */
#include <arch/interrupt.h>
#include <kernel/cmdline.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/syscall.h>
#include <kernel/tick.h>
#include <kernel/trace.h>
#include <kernel/vm.h>
#include <lib/string.h>

#define LOG_PREFIX "recorder"
#define TRACE_MIN_SLOTS 1024u                /* a CPU's recorder ring, at least */

volatile uint32_t trace_classes;
volatile bool trace_open;
volatile bool trace_recording;
trace_cpu_t trace_cpus[MAX_CPUS];
static uint32_t trace_session_classes;       /* the sessions' (trace_set) */
static uint64_t trace_dropped;               /* atomic: since boot */
static spinlock_t trace_lock = SPINLOCK_INIT("trace");

/* Free every CPU's ring; no hook is inside one (trace_stop waited). */
static void trace_free(void)
{
	void *mem[MAX_CPUS];
	uint64_t f = spin_lock_irqsave(&trace_lock);

	for (unsigned i = 0; i < MAX_CPUS; i++) {
		mem[i] = trace_cpus[i].slots;
		trace_cpus[i].slots = NULL;
	}
	spin_unlock_irqrestore(&trace_lock, f);
	for (unsigned i = 0; i < MAX_CPUS; i++)
		kfree(mem[i]);
}

/* Make every CPU's ring of slots slots and open them; ENOMEM. */
static errno_t trace_make(size_t slots)
{
	for (unsigned i = 0; i < cpu_count; i++) {
		void *m = kmalloc(slots * sizeof(trace_slot_t));
		if (!m) {
			trace_free();
			return ENOMEM;
		}
		uint64_t f = spin_lock_irqsave(&trace_lock);
		trace_cpus[i] = (trace_cpu_t){ .slots = m, .mask = slots - 1 };
		spin_unlock_irqrestore(&trace_lock, f);
	}
	__atomic_store_n(&trace_open, true, __ATOMIC_SEQ_CST);
	return EOK;
}

/* The recorder's MiB from the command line (default, 0..max). */
static unsigned trace_recorder_mib(void)
{
	return (unsigned)cmdline_uint("recorder", 0, TRACE_RECORDER_MAX_MIB, TRACE_RECORDER_MIB);
}

/* The largest power of two of slots in bytes (at least TRACE_MIN_SLOTS). */
static size_t trace_slots_for(size_t bytes)
{
	size_t n = TRACE_MIN_SLOTS;

	while (n * 2 * sizeof(trace_slot_t) <= bytes)
		n *= 2;
	return n;
}

void trace_init(void)
{
	unsigned mib = trace_recorder_mib();

	if (!mib) {
		pr_info("off (recorder=0)");
		return;
	}
	size_t slots = trace_slots_for((size_t)mib * 1024 * 1024 / cpu_count);
	if (trace_make(slots) != EOK) {
		pr_warn("no memory for %u MiB: off", mib);
		return;
	}
	trace_recording = true;
	trace_set(0);
	pr_info("%zu events per CPU (%zu KiB each), sched and ipc events, a sample "
		"each tick", slots, slots * sizeof(trace_slot_t) / 1024);
}

errno_t trace_start(void)
{
	if (__atomic_load_n(&trace_open, __ATOMIC_RELAXED))
		return EOK;
	return trace_make(TRACE_RING_BYTES / sizeof(trace_slot_t));
}

void trace_set(uint32_t classes)
{
	trace_session_classes = classes & PROF_F_TRACE;
	uint32_t all = trace_session_classes | (trace_recording ? TRACE_RECORDER_CLASSES : 0);
	__atomic_store_n(&trace_classes, all, __ATOMIC_RELEASE);
	syscall_hook_set(SYSCALL_HOOK_TRACE, all & PROF_F_TRACE_SYSCALL);
}

/* Nothing: a CPU that runs it is not inside a hook (see the top). */
static void trace_quiet(void *arg)
{
	(void)arg;
}

void trace_stop(void)
{
	trace_set(0);
	if (trace_recording || !__atomic_load_n(&trace_open, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&trace_open, false, __ATOMIC_SEQ_CST);
	smp_call_all(trace_quiet, NULL);
	trace_free();
}

void trace_tick(const int_frame_t *f)
{
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	thread_t *t = c->current;
	unsigned mode = t == c->idle ? PROF_MODE_IDLE
			: frame_from_user(f) ? PROF_MODE_USER : PROF_MODE_KERNEL;
	trace_slot_t *s = trace_slot(tc, h, trace_word(TRACE_SLOT_SAMPLE, mode, 0));

	if (s) {
		trace_side(&s->task, t, c);
		s->task2 = frame_pc(f);
		trace_publish(tc, s, time_cycles(), h);
	}
}

/* ------------------------------------------------------------ readers */

/* Is kind one whose last words are the other side (else an IPC call's)? */
static bool trace_sched_kind(unsigned kind)
{
	return kind == PROF_TR_SWITCH || kind == PROF_TR_WAKEUP;
}

/* The stream record of event slot s, taken on cpu. */
static void trace_record(const trace_slot_t *s, unsigned cpu, prof_rec_trace_t *r)
{
	unsigned kind = (uint16_t)s->word;
	bool sched = trace_sched_kind(kind);

	*r = (prof_rec_trace_t){
		.h = { .type = PROF_REC_TRACE, .size = sizeof(*r), .cpu = cpu, .tsc = s->tsc },
		.kind = (uint16_t)kind, .why = (uint16_t)(s->word >> 16),
		.arg = (uint32_t)(s->word >> 32),
		.task = s->task, .thread = s->thread, .origin = s->origin, .task2 = s->task2,
		.thread2 = sched ? s->x : 0, .origin2 = sched ? s->y : 0,
		.call = sched ? 0 : s->x, .method = sched ? 0 : s->y,
	};
}

/*
 * Copy tc's slot at position pos into *out; false if it is gone (a ring
 * behind, or overwritten while copied: head is read again after it).
 */
static bool trace_read_slot(const trace_cpu_t *tc, uint64_t pos, trace_slot_t *out)
{
	uint64_t n = tc->mask + 1;

	if (__atomic_load_n(&tc->head, __ATOMIC_ACQUIRE) - pos > n)
		return false;
	*out = tc->slots[pos & tc->mask];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&tc->head, __ATOMIC_RELAXED) - pos <= tc->mask;
}

/* Give cpu's slots since the drain's last look to fn; how many were lost. trace_lock held. */
static uint64_t trace_drain_locked(unsigned cpu, trace_fn_t fn, void *ctx)
{
	trace_cpu_t *tc = &trace_cpus[cpu];
	uint64_t head = __atomic_load_n(&tc->head, __ATOMIC_ACQUIRE), lost = 0;
	prof_rec_trace_t r;
	trace_slot_t s;

	for (uint64_t t = tc->tail; t != head; t++) {
		if (!trace_read_slot(tc, t, &s)) {
			lost++;
		} else if ((uint16_t)s.word != TRACE_SLOT_SAMPLE) {
			trace_record(&s, cpu, &r);
			fn(&r, ctx);
		}
	}
	tc->tail = head;
	return lost;
}

uint64_t trace_drain(unsigned cpu, trace_fn_t fn, void *ctx, bool skip)
{
	uint64_t lost = 0;

	if (cpu >= cpu_count)
		return 0;
	uint64_t f = spin_lock_irqsave(&trace_lock);
	trace_cpu_t *tc = &trace_cpus[cpu];
	if (tc->slots && skip)
		tc->tail = __atomic_load_n(&tc->head, __ATOMIC_ACQUIRE);
	else if (tc->slots)
		lost = trace_drain_locked(cpu, fn, ctx);
	spin_unlock_irqrestore(&trace_lock, f);
	__atomic_add_fetch(&trace_dropped, lost, __ATOMIC_RELAXED);
	return lost;
}

void trace_sync(void)
{
	uint64_t f = spin_lock_irqsave(&trace_lock);

	for (unsigned i = 0; i < cpu_count; i++)
		if (trace_cpus[i].slots)
			trace_cpus[i].tail = __atomic_load_n(&trace_cpus[i].head, __ATOMIC_ACQUIRE);
	spin_unlock_irqrestore(&trace_lock, f);
}

uint64_t trace_lost(void)
{
	return __atomic_load_n(&trace_dropped, __ATOMIC_RELAXED);
}

size_t trace_recorder_bytes(void)
{
	return trace_recording ? (trace_cpus[0].mask + 1) * sizeof(trace_slot_t) * cpu_count : 0;
}

uint32_t trace_recorder_classes(void)
{
	return trace_recording ? TRACE_RECORDER_CLASSES : 0;
}

/* The sample record of the recorder's tick slot s, taken on cpu. */
static void trace_sample(const trace_slot_t *s, unsigned cpu, prof_rec_sample_t *r)
{
	*r = (prof_rec_sample_t){
		.h = { .type = PROF_REC_SAMPLE, .size = sizeof(*r), .cpu = cpu, .tsc = s->tsc },
		.task = s->task, .thread = s->thread, .pc = s->task2,
		.mode = (uint8_t)(s->word >> 16), .source = PROF_SRC_TICK,
		.weight = time_cycles_per_sec() / tick_hz(),
	};
}

/* Copy cpu's recorder ring (its last slots, at most max) to fn and sample_fn; how many. */
static uint64_t trace_copy_cpu(unsigned cpu, trace_fn_t fn, trace_sample_fn_t sample_fn,
			       void *ctx, uint64_t max)
{
	const trace_cpu_t *tc = &trace_cpus[cpu];
	uint64_t head = __atomic_load_n(&tc->head, __ATOMIC_ACQUIRE), n = 0;
	uint64_t keep = MIN(max, tc->mask + 1);
	uint64_t from = head > keep ? head - keep : 0;
	prof_rec_sample_t smp;
	prof_rec_trace_t r;
	trace_slot_t s;

	for (uint64_t t = from; t != head; t++) {
		if (!trace_read_slot(tc, t, &s))
			continue;
		if ((uint16_t)s.word == TRACE_SLOT_SAMPLE) {
			trace_sample(&s, cpu, &smp);
			sample_fn(&smp, ctx);
		} else {
			trace_record(&s, cpu, &r);
			fn(&r, ctx);
		}
		n++;
	}
	return n;
}

uint64_t trace_recorder_copy(trace_fn_t fn, trace_sample_fn_t sample_fn, void *ctx,
			     uint64_t max)
{
	uint64_t n = 0;

	if (!trace_recording)
		return 0;
	for (unsigned i = 0; i < cpu_count; i++)
		n += trace_copy_cpu(i, fn, sample_fn, ctx, max);
	return n;
}
