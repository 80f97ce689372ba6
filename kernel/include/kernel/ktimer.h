/*
 * One-shot kernel timers on the per-CPU tick: a timer fires from the timer
 * interrupt of the CPU it was armed on, at the first tick at or after its
 * deadline. Callbacks run with interrupts off and must not sleep.
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include <kernel/types.h>
#include <lib/list.h>

typedef struct ktimer {
	list_node_t node;
	uint64_t deadline_ns;
	void (*fn)(struct ktimer *t);
	uint32_t cpu;
	volatile bool armed;
} ktimer_t;

/* Set up the per-CPU timer lists (boot). */
void ktimer_init(void);

/* Arm t to call fn at deadline_ns (time_ns() clock) on this CPU. */
void ktimer_arm(ktimer_t *t, uint64_t deadline_ns, void (*fn)(ktimer_t *t));

/* Disarm t if still pending. Returns true if it had not fired. */
bool ktimer_cancel(ktimer_t *t);

/* Tick work on this CPU: fire expired timers. Interrupts off. */
void ktimer_tick(void);

#endif
