/*
 * Kernel trace events (abi/profile.h, PROF_REC_TRACE): the buffer and the
 * one-line hooks. The scheduler, IPC, interrupt dispatch and the system
 * call path call a hook when trace_wants() says its class is on: with
 * tracing off each site costs one load and one branch. The control (which
 * classes, and who gets the records) is the profiler's: its sessions ask
 * for classes, its drain thread takes the records (trace_drain) and
 * routes them.
 *
 * The buffer: per CPU, a ring of fixed 64-byte slots, written only by
 * that CPU's hooks with interrupts off (one producer at a time). The
 * producer never waits: it overwrites the oldest slot, so the ring always
 * holds the last events (the flight recorder: the rings are made at boot
 * and kept, recorder=MIB). Readers take copies: the profiler's drain
 * thread (trace_drain, for sessions; its position is tail) and a
 * recorder dump (trace_recorder_copy); a reader that falls a ring behind,
 * or whose copy a new event overwrote meanwhile (it looks at head again
 * after the copy), counts the slot lost. A hook is a handful of stores,
 * inline at its site: no lock, no atomic read-modify-write. The producer
 * publishes with a release store of head. NMI context never traces. A
 * hook's interrupts-off section is shorter than the interrupts-off
 * measurement's own cost (irqlat), so it uses the raw cli/sti. trace.c
 * has the control, the readers and the recorder's samples.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <abi/profile.h>
#include <kernel/acct.h>
#include <kernel/cpu.h>
#include <kernel/origin.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/types.h>
#include <lib/ring.h>

struct int_frame;

#define TRACE_RING_BYTES (1024u * 1024) /* per CPU without the recorder: 16,384 events */
#define TRACE_RECORDER_MIB 4            /* the recorder's default, all CPUs */
#define TRACE_RECORDER_MAX_MIB 256
/* The recorder's classes: what it keeps besides a sample at every tick. */
#define TRACE_RECORDER_CLASSES (PROF_F_TRACE_SCHED | PROF_F_TRACE_IPC)
#define TRACE_SLOT_SAMPLE 0x100         /* a slot's kind: the recorder's tick sample */

/*
 * One event as a hook writes it. The last three words by kind: SWITCH,
 * WAKEUP the other side (task2, thread2, origin2); IPC kinds task2, call
 * and method; IRQ and SYSCALL nothing; TRACE_SLOT_SAMPLE the pc (task2)
 * and why holds the PROF_MODE_*.
 */
typedef struct trace_slot {
	uint64_t tsc;
	uint64_t word;                       /* kind | why << 16 | arg << 32 */
	uint64_t task, thread, origin;
	uint64_t task2, x, y;
} trace_slot_t;

_Static_assert(sizeof(trace_slot_t) == 64, "a slot is a cache line");

/* A CPU's ring. */
typedef struct trace_cpu {
	trace_slot_t *slots;                 /* mask + 1 of them; NULL: no ring */
	uint64_t mask;
	uint64_t head;                       /* producer: next slot to write */
	RING_CACHELINE uint64_t tail;        /* the drain's next slot to read */
} trace_cpu_t;

extern volatile uint32_t trace_classes;  /* PROF_F_TRACE_* being recorded */
extern volatile bool trace_open;         /* the rings exist and take events */
extern trace_cpu_t trace_cpus[MAX_CPUS];

/* Is class (a PROF_F_TRACE_* bit) being recorded? Any context. */
static inline bool trace_wants(uint32_t cls)
{
	return __builtin_expect((__atomic_load_n(&trace_classes, __ATOMIC_RELAXED) & cls) != 0, 0);
}

/* The origin task whose call t serves, 0 if none. */
static inline uint64_t trace_origin(const thread_t *t)
{
	return origin_serving(&t->serve) ? t->serve.rec.hops[0] : 0;
}

/*
 * The next slot of tc (this CPU's; h its head) with the word, interrupts
 * off (the oldest slot, overwritten); NULL when tracing is closed.
 * trace_publish() stamps it and makes it the readers'.
 */
static inline __attribute__((always_inline)) trace_slot_t *
trace_slot(trace_cpu_t *tc, uint64_t h, uint64_t word)
{
	if (!trace_open)
		return NULL;
	trace_slot_t *s = &tc->slots[h & tc->mask];
	s->word = word;
	return s;
}

/*
 * Stamp s (tsc) and publish it: trace_slot()'s of tc (interrupts still
 * off), taken at head position h (the head's copy before the stores
 * into s, which the compiler cannot tell from it).
 */
static inline void trace_publish(trace_cpu_t *tc, trace_slot_t *s, uint64_t tsc, uint64_t h)
{
	s->tsc = tsc;
	__atomic_store_n(&tc->head, h + 1, __ATOMIC_RELEASE);
}

/* A slot's word: kind, why, arg. */
static inline uint64_t trace_word(unsigned kind, unsigned why, uint32_t arg)
{
	return kind | (uint64_t)why << 16 | (uint64_t)arg << 32;
}

/* Write t's side into three words (zeros for none or c's idle thread). */
static inline void trace_side(uint64_t *w, const thread_t *t, const cpu_t *c)
{
	if (!t || !t->task || t == c->idle) {
		w[0] = w[1] = w[2] = 0;
		return;
	}
	w[0] = t->task->id;
	w[1] = t->id;
	w[2] = trace_origin(t);
}

/* The running thread's side (never idle: it makes a system call or an IPC call). */
static inline void trace_self(trace_slot_t *s, const cpu_t *c)
{
	const thread_t *t = c->current;

	s->task = t->task->id;
	s->thread = t->id;
	s->origin = trace_origin(t);
}

/* Interrupts off for a hook (raw: see above); whether they were on. */
static inline bool trace_irq_off(void)
{
	bool on = irq_enabled();

	if (on)
		irq_disable_raw();
	return on;
}

static inline void trace_irq_on(bool on)
{
	if (on)
		irq_enable_raw();
}

/* The PROF_TS_* state of a thread leaving its CPU. */
static inline uint32_t trace_state(const thread_t *t)
{
	thread_state_t st = t->state;

	return st == THREAD_ZOMBIE ? PROF_TS_EXITED
	       : st == THREAD_SLEEPING ? PROF_TS_WAITING : PROF_TS_RUNNABLE;
}

/* ------------------------------------------------------------ the hooks */

/*
 * This CPU switches from prev to next at tsc (the accounting's stamp; 0
 * in early boot, before the accounting runs: now); before the switch
 * itself, interrupts off. prev's state and wait reason are read now.
 */
static inline void trace_switch(const thread_t *prev, const thread_t *next, uint64_t tsc)
{
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	uint32_t st = trace_state(prev);
	unsigned why = st == PROF_TS_RUNNABLE ? WAIT_WHY_RUNNABLE : prev->wait_why;
	trace_slot_t *s = trace_slot(tc, h, trace_word(PROF_TR_SWITCH, why, st));

	if (!s)
		return;
	trace_side(&s->task, prev, c);
	trace_side(&s->task2, next, c);
	trace_publish(tc, s, tsc ? tsc : time_cycles(), h);
}

/*
 * t became runnable at tsc, woken by the current thread (none when this
 * CPU is in an interrupt handler: a device or a timer woke it).
 */
static inline void trace_wakeup(const thread_t *t, uint64_t tsc)
{
	bool on = trace_irq_off();
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	trace_slot_t *s = trace_slot(tc, h, trace_word(PROF_TR_WAKEUP, 0, 0));

	if (s) {
		trace_side(&s->task, t, c);
		trace_side(&s->task2, c->acct.mode == ACCT_IRQ ? NULL : c->current, c);
		trace_publish(tc, s, tsc, h);
	}
	trace_irq_on(on);
}

/*
 * The current thread's IPC event kind (PROF_TR_CALL ... HANGUP) on call
 * id (0 for HANGUP) with method; task2 the other side's task, arg the
 * kind's argument (abi/profile.h).
 */
static inline void trace_ipc(unsigned kind, uint64_t id, uint64_t method, uint64_t task2,
			     uint32_t arg)
{
	bool on = trace_irq_off();
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	trace_slot_t *s = trace_slot(tc, h, trace_word(kind, 0, arg));

	if (s) {
		s->task2 = task2;
		s->x = id;
		s->y = method;
		trace_self(s, c);
		trace_publish(tc, s, time_cycles(), h);
	}
	trace_irq_on(on);
}

/* An interrupt's entry or exit (PROF_TR_IRQ_*), vector; interrupts off. */
static inline void trace_irq(unsigned kind, unsigned vector)
{
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	trace_slot_t *s = trace_slot(tc, h, trace_word(kind, 0, vector));

	if (s) {
		trace_side(&s->task, c->current, c);
		trace_publish(tc, s, time_cycles(), h);
	}
}

/* The current thread's system call nr enters or leaves (PROF_TR_SYSCALL_*). */
static inline void trace_syscall(unsigned kind, uint64_t nr)
{
	bool on = trace_irq_off();
	cpu_t *c = cpu_current();
	trace_cpu_t *tc = &trace_cpus[c->id];
	uint64_t h = tc->head;
	trace_slot_t *s = trace_slot(tc, h, trace_word(kind, 0, (uint32_t)nr));

	if (s) {
		trace_self(s, c);
		trace_publish(tc, s, time_cycles(), h);
	}
	trace_irq_on(on);
}

extern volatile bool trace_recording;    /* the flight recorder runs: ticks sample */

/* The recorder's sample of the context the tick interrupted (f); interrupts off. */
void trace_tick(const struct int_frame *f);

/* ------------------------------------------------------------ control */

/*
 * Boot: the flight recorder as the kernel command line's recorder=MIB
 * asks (default TRACE_RECORDER_MIB; 0: off), its rings made and its
 * classes on for good. Logs what it did.
 */
void trace_init(void);

/*
 * Control, for the profiler (its engine lock held, interrupts on):
 * trace_start makes each CPU's ring if the recorder did not (ENOMEM),
 * trace_set chooses the sessions' classes (the recorder's stay on),
 * trace_stop turns the sessions' classes off and, without the recorder,
 * closes the rings, waits until no CPU can be inside a hook (a no-op run
 * on every CPU: hooks run with interrupts off) and frees them.
 */
errno_t trace_start(void);
void trace_set(uint32_t classes);
void trace_stop(void);

typedef void (*trace_fn_t)(const prof_rec_trace_t *rec, void *ctx);

/*
 * Give each record written to cpu's ring since the last call to fn,
 * oldest first (skip: drop them unseen); returns how many were lost
 * (overwritten before they were read). One drainer at a time (the
 * profiler's drain thread).
 */
uint64_t trace_drain(unsigned cpu, trace_fn_t fn, void *ctx, bool skip);

/*
 * The drain's positions jump to every ring's head: what is older is not
 * wanted (the recorder keeps it). Before the first session tracing.
 */
void trace_sync(void);

/* Records lost since boot, every CPU (as counted by trace_drain). */
uint64_t trace_lost(void);

/* The recorder's size in bytes, all CPUs (0: off), and its classes. */
size_t trace_recorder_bytes(void);
uint32_t trace_recorder_classes(void);

typedef void (*trace_sample_fn_t)(const prof_rec_sample_t *rec, void *ctx);

/*
 * Copy what the recorder holds, CPU by CPU and oldest first, at most each
 * CPU's last max slots (UINT64_MAX: all): its events to fn, its tick
 * samples to sample_fn (a sample of hz tick_hz(), no chain); slots
 * overwritten while copied are left out. No lock (the panic's dump calls
 * it). Returns how many records it gave.
 */
uint64_t trace_recorder_copy(trace_fn_t fn, trace_sample_fn_t sample_fn, void *ctx,
			     uint64_t max);

#endif
