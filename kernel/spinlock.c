/* Test-and-test-and-set spinlocks with owner tracking. */
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>

static const void *spin_me(void)
{
	return cpu_current();
}

void spin_lock_slow(spinlock_t *l)
{
	if (l->locked && l->owner == spin_me())
		panic("spinlock: %s: recursive acquisition", l->name);
	while (!spin_trylock(l)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			cpu_relax();
	}
}

bool spin_held(const spinlock_t *l)
{
	return l->locked && l->owner == spin_me();
}
