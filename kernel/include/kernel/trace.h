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
 * that CPU's hooks with interrupts off (one producer at a time) and read
 * by the profiler's drain thread (the one consumer), which turns each
 * slot into a stream record (trace_drain). A hook is a handful of stores,
 * inline at its site: no lock, no atomic read-modify-write, no copy; a
 * full ring counts the slot dropped (a producer-only counter the consumer
 * reads). head and tail only grow; the producer publishes with a release
 * store of head, the consumer frees with one of tail. NMI context never
 * traces. A hook's interrupts-off section is shorter than the
 * interrupts-off measurement's own cost (irqlat), so it uses the raw
 * cli/sti. trace.c has the control and the drain.
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

#define TRACE_RING_BYTES (1024u * 1024) /* per CPU: 16,384 events */
#define TRACE_SLOTS (TRACE_RING_BYTES / sizeof(trace_slot_t))

/*
 * One event as a hook writes it. The last three words by kind: SWITCH,
 * WAKEUP the other side (task2, thread2, origin2); IPC kinds task2, call
 * and method; IRQ and SYSCALL nothing.
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
	trace_slot_t *slots;                 /* TRACE_SLOTS; NULL: no ring */
	uint64_t head;                       /* producer: next slot to write */
	uint64_t dropped;                    /* producer: slots a full ring refused */
	RING_CACHELINE uint64_t tail;        /* consumer: next slot to read */
	uint64_t dropped_seen;               /* consumer: dropped when last read */
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
 * off; NULL when tracing is closed or the ring is full (counted).
 * trace_publish() stamps it and makes it the consumer's.
 */
static inline __attribute__((always_inline)) trace_slot_t *
trace_slot(trace_cpu_t *tc, uint64_t h, uint64_t word)
{
	if (!trace_open)
		return NULL;
	if (h - __atomic_load_n(&tc->tail, __ATOMIC_ACQUIRE) >= TRACE_SLOTS) {
		tc->dropped++;
		return NULL;
	}
	trace_slot_t *s = &tc->slots[h & (TRACE_SLOTS - 1)];
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
 * This CPU switches from prev to next at tsc (the accounting's stamp);
 * before the switch itself, interrupts off. prev's state and wait reason
 * are read now.
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
	trace_publish(tc, s, tsc, h);
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

/* ------------------------------------------------------------ control */

/*
 * Control, for the profiler (its engine lock held, interrupts on):
 * trace_start makes each CPU's ring (ENOMEM), trace_set chooses the
 * classes, trace_stop turns every class off, closes the rings, waits
 * until no CPU can be inside a hook (a no-op run on every CPU: hooks run
 * with interrupts off) and frees them.
 */
errno_t trace_start(void);
void trace_set(uint32_t classes);
void trace_stop(void);

typedef void (*trace_fn_t)(const prof_rec_trace_t *rec, void *ctx);

/*
 * Give each record waiting in cpu's ring to fn, oldest first, and free
 * it; returns how many the ring dropped since the last call. One drainer
 * at a time (the profiler's drain thread).
 */
uint64_t trace_drain(unsigned cpu, trace_fn_t fn, void *ctx);

/* Records lost since boot, every CPU (as counted by trace_drain). */
uint64_t trace_lost(void);

#endif
