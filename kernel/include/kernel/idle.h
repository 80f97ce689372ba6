/*
 * How an idle CPU waits for work (kernel/sched/idle.c): it polls its run
 * queue for a while before it halts, so that a wake-up that comes soon
 * needs no IPI and finds the CPU running. How long it polls adapts per
 * CPU, as Linux's guest halt-polling does: an idle spell that a longer
 * poll would have caught doubles the limit (from IDLE_POLL_GROW_START_US
 * up to the maximum), one longer than the maximum halves it (to 0 below
 * the start). The maximum is "idlepoll=US" on the command line (default
 * IDLE_POLL_MAX_US in a virtual machine, 0 on hardware and under QEMU
 * -icount, where one thread runs every vCPU in turn and a polling vCPU
 * only holds the others up; 0: never poll), as Linux polls only as a
 * guest.
 */
#ifndef KERNEL_IDLE_H
#define KERNEL_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#define IDLE_POLL_MAX_US 200
#define IDLE_POLL_LIMIT_US 100000     /* the largest idlepoll= taken */
#define IDLE_POLL_GROW_START_US 50

struct cpu;

/* One CPU's idle waits since boot. */
typedef struct idle_stats {
	uint64_t waits;             /* idle_wait calls */
	uint64_t poll_wakes;        /* work came while polling: no halt */
	uint64_t halts;             /* halted (woken by an interrupt) */
	uint64_t ipis_saved;        /* wake-ups of it that needed no IPI */
	uint64_t limit_cycles;      /* the poll limit now */
} idle_stats_t;

/* Read idlepoll= (after time_init and platform_sampling_init). Boot CPU. */
void idle_init(void);

/*
 * Wait on CPU c (the current one, its idle thread) until an interrupt
 * or, while polling, until its run queue has work. Interrupts off on
 * entry, on at return.
 */
void idle_wait(struct cpu *c);

/*
 * Is c polling its queue? Called by a waker after it queued a thread on
 * c: true means c will see it without an IPI (counted as an IPI saved).
 * Interrupts off.
 */
bool idle_poke_polling(struct cpu *c);

/* The poll limit after an idle spell of block cycles (pure; unit-tested). */
uint64_t idle_poll_adjust(uint64_t limit, uint64_t block, uint64_t max,
			  uint64_t grow_start);

/*
 * The maximum poll in cycles, and setting it (ktest: 0 stops polling;
 * fixed: every CPU polls that long from its next idle wait on, without
 * adapting, so that a test does not depend on the host's load).
 */
uint64_t idle_poll_max(void);
void idle_poll_set_max(uint64_t cycles, bool fixed);

/* CPU cpu's counters. */
void idle_get_stats(uint32_t cpu, idle_stats_t *out);

#endif
