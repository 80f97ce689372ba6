/*
 * Kernel trace events (abi/profile.h, PROF_REC_TRACE): the buffer and the
 * one-line hooks. The scheduler, IPC, interrupt dispatch and the system
 * call path call a hook when trace_wants() says its class is on: with
 * tracing off each site costs one load and one branch. The control (which
 * classes, and who gets the records) is the profiler's: its sessions ask
 * for classes, its drain thread takes the records (trace_drain) and
 * routes them.
 *
 * Every hook runs on the CPU it records and writes that CPU's ring with
 * interrupts off (it turns them off itself), so one CPU's writers never
 * run beside each other; NMI context never traces. Records a full ring
 * cannot take are counted (trace_lost).
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <abi/profile.h>
#include <kernel/types.h>

struct thread;

#define TRACE_RING_BYTES (512u * 1024)  /* per CPU */

extern volatile uint32_t trace_classes;  /* PROF_F_TRACE_* being recorded */

/* Is class (a PROF_F_TRACE_* bit) being recorded? Any context. */
static inline bool trace_wants(uint32_t cls)
{
	return __builtin_expect((__atomic_load_n(&trace_classes, __ATOMIC_RELAXED) & cls) != 0, 0);
}

/*
 * This CPU switches from prev to next at tsc (the accounting's stamp);
 * before the switch itself, interrupts off. prev's state and wait reason
 * are read now.
 */
void trace_switch(const struct thread *prev, const struct thread *next, uint64_t tsc);

/*
 * t becomes runnable, woken by the current thread (none when this CPU is
 * in an interrupt handler: a device or a timer woke it).
 */
void trace_wakeup(const struct thread *t);

/*
 * The current thread's IPC event kind (PROF_TR_CALL ... HANGUP) on call
 * id (0 for HANGUP) with method; task2/thread2 the other side, arg the
 * kind's argument (ANSWERED: the result).
 */
void trace_ipc(unsigned kind, uint64_t id, uint64_t method, uint64_t task2, uint64_t thread2,
	       uint32_t arg);

/* An interrupt's entry or exit (PROF_TR_IRQ_*), vector; interrupts off. */
void trace_irq(unsigned kind, unsigned vector);

/* The current thread's system call nr enters or leaves (PROF_TR_SYSCALL_*). */
void trace_syscall(unsigned kind, uint64_t nr);

/*
 * Control, for the profiler (its engine lock held): trace_start makes
 * each CPU's ring (ENOMEM), trace_set chooses the classes, trace_stop
 * turns every class off, waits until no CPU is inside a hook and frees
 * the rings.
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
