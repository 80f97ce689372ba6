/* Test-and-test-and-set spinlocks that yield when contended for long. */
#include <vernier.h>

#include "libc.h"

/* Spins (with PAUSE) before each yield while the lock stays taken. */
#define LOCK_SPINS 128

bool __libc_trylock(libc_lock_t *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

void __libc_lock(libc_lock_t *l)
{
	unsigned spins = 0;

	while (!__libc_trylock(l)) {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) {
			__builtin_ia32_pause();
			if (++spins % LOCK_SPINS == 0)
				sys_yield();
		}
	}
}

void __libc_unlock(libc_lock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
