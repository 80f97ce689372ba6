/*
 * Spinlocks. spin_lock_irqsave() disables interrupts on this CPU and
 * returns the previous state; spin_unlock_irqrestore() puts it back.
 * Never taken from NMI context.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <arch/cpu.h>
#include <kernel/cpu.h>
#include <kernel/types.h>

typedef struct spinlock {
	volatile uint32_t locked;
	const void *owner;   /* the holder's cpu_t (two instructions to set), NULL when free */
	const char *name;
} spinlock_t;

#define SPINLOCK_INIT(n) { 0, NULL, (n) }

/* spin_lock() when the first try failed: recursion check, then spin. */
void spin_lock_slow(spinlock_t *l);

/* Try once; returns true if acquired. */
static inline bool spin_trylock(spinlock_t *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	l->owner = cpu_current();
	return true;
}

/*
 * Acquire; interrupts must already be off or the lock never taken in IRQs.
 * Inline: the uncontended case is one exchange (a recursive acquisition
 * finds the lock taken and panics in spin_lock_slow).
 */
static inline void spin_lock(spinlock_t *l)
{
	if (__builtin_expect(!spin_trylock(l), 0))
		spin_lock_slow(l);
}

/* Release a lock taken by spin_lock(). */
static inline void spin_unlock(spinlock_t *l)
{
	l->owner = NULL;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* Disable interrupts, acquire; returns the state to restore. */
static inline uint64_t spin_lock_irqsave(spinlock_t *l)
{
	uint64_t f = irq_save();

	spin_lock(l);
	return f;
}

/* Release and restore the interrupt state saved by spin_lock_irqsave(). */
static inline void spin_unlock_irqrestore(spinlock_t *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}
/* True if this CPU holds l. */
bool spin_held(const spinlock_t *l);

#endif
