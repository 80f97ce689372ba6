/*
 * The scheduler: per-CPU run queues with 16 priority levels and round
 * robin inside a level, time slices from the tick, wake-up IPIs to idle
 * CPUs, stealing from busy CPUs, a halting idle thread per CPU.
 *
 * Lock order: thread->lock → run queue lock (lower CPU id first when two).
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <kernel/thread.h>

#define SCHED_SLICE_TICKS 2

/* Set up this CPU's run queue and idle thread. */
void sched_init_cpu(void);

/* Make a SLEEPING or new thread READY and queue it somewhere it may run. */
void sched_wakeup(thread_t *t);

/*
 * sched_wakeup() by a thread about to block (the IPC fast path; sure: it
 * blocks next for certain, else probably): when t last ran on this CPU,
 * may run here, does not outrank the current thread and (unless sure) no
 * other CPU it may use is idle, it goes to this CPU's hand-off slot
 * instead of a run queue (no queue locks, no CPU choice, no IPI) and the
 * next sched_schedule here switches to it directly if the current thread
 * blocked and nothing queued outranks it, else queues it. It runs on the
 * rest of its waker's time slice (as L4's time-slice donation): a pair
 * handing the CPU back and forth shares one slice, and a thread queued
 * here at their priority gets its turn when that runs out. One slot per
 * CPU: a second one goes the sched_wakeup way. A thread in the slot
 * cannot be stolen; the next tick queues it if its waker ran on.
 * Interrupts off (its caller holds a wait queue's lock); t->lock not held.
 */
void sched_wakeup_sync(thread_t *t, bool sure);

/*
 * Change t's priority (if >= 0) and affinity (if nonzero); a queued thread
 * moves to a queue it may run from, a running one leaves a CPU it may no
 * longer use at its next scheduling point.
 */
void sched_set_params(thread_t *t, int priority, uint64_t affinity);

/*
 * Give up the CPU to the next READY thread. Interrupts off. Returns false
 * if there was none (the caller keeps running), true once it runs again
 * after a switch.
 */
bool sched_schedule(void);

/*
 * Give up the rest of the time slice (from thread context). A yield that
 * found no other thread ends with cpu_relax() (PAUSE): a few cycles on
 * hardware, but under QEMU -icount it ends this vCPU's turn, as the tick
 * does (tick.c). Without it a thread yielding in a loop (bench's
 * ctxsw.thread waiting for its partner to start on the other CPU) kept
 * the other vCPUs from running for up to a minute.
 */
void sched_yield(void);

/*
 * Does c have work of its own: a queued thread or a reschedule request?
 * An unlocked look, for the idle poll (idle.c). Any context.
 */
bool sched_has_local_work(const struct cpu *c);

/* Timer tick on this CPU: slices, timers, balancing. Interrupts off. */
void sched_tick(void);

/* Reschedule if requested and allowed; called on the way out of an interrupt. */
void sched_preempt_point(void);

/* Request a reschedule on this CPU at the next preemption point. */
void sched_need_resched(void);

/* Disable/enable preemption on this CPU (nests). */
void preempt_disable(void);
void preempt_enable(void);

/* Start scheduling on this CPU; the caller becomes the idle loop. */
void sched_start(void) __noreturn;

/* Threads READY on this CPU's queue (for tests and monitoring). */
size_t sched_queue_length(uint32_t cpu);

/* Finish a switch on the new thread (the scheduler and new threads call it). */
void sched_finish_switch(void);

/* Threads ready or running (not idle threads) on all CPUs, a racy sum. */
uint32_t sched_runnable(void);

#endif
