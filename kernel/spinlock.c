/* Test-and-test-and-set spinlocks with owner tracking. */
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>

static uint32_t spin_me(void)
{
	return cpu_id() + 1;
}

bool spin_trylock(spinlock_t *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	l->owner = spin_me();
	return true;
}

void spin_lock(spinlock_t *l)
{
	if (l->locked && l->owner == spin_me())
		panic("spinlock: %s: recursive acquisition", l->name);
	while (!spin_trylock(l)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
	}
}

void spin_unlock(spinlock_t *l)
{
	l->owner = 0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

uint64_t spin_lock_irqsave(spinlock_t *l)
{
	uint64_t f = irq_save();
	spin_lock(l);
	return f;
}

void spin_unlock_irqrestore(spinlock_t *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

bool spin_held(const spinlock_t *l)
{
	return l->locked && l->owner == spin_me();
}
