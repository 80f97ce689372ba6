/*
 * Spinlocks. spin_lock_irqsave() disables interrupts on this CPU and
 * returns the previous state; spin_unlock_irqrestore() puts it back.
 * Never taken from NMI context.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <arch/cpu.h>
#include <kernel/types.h>

typedef struct spinlock {
	volatile uint32_t locked;
	uint32_t owner;      /* CPU id + 1 of the holder, 0 when free */
	const char *name;
} spinlock_t;

#define SPINLOCK_INIT(n) { 0, 0, (n) }

/* Acquire; interrupts must already be off or the lock never taken in IRQs. */
void spin_lock(spinlock_t *l);
/* Release a lock taken by spin_lock(). */
void spin_unlock(spinlock_t *l);
/* Try once; returns true if acquired. */
bool spin_trylock(spinlock_t *l);
/* Disable interrupts, acquire; returns the state to restore. */
uint64_t spin_lock_irqsave(spinlock_t *l);
/* Release and restore the interrupt state saved by spin_lock_irqsave(). */
void spin_unlock_irqrestore(spinlock_t *l, uint64_t flags);
/* True if this CPU holds l. */
bool spin_held(const spinlock_t *l);

#endif
