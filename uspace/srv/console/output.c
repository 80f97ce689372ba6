/*
 * Output: every byte goes to the serial ring and the screen, under one
 * lock shared by the IPC thread and the klog thread; and the spinlock.
 */
#include <string.h>
#include <vernier.h>

#include "console.h"

con_lock_t out_lock;
static bool line_start = true;

void con_lock(con_lock_t *l)
{
	for (unsigned spin = 0;
	     __atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE); spin++) {
		if (spin > 100)
			sys_yield();
	}
}

void con_unlock(con_lock_t *l)
{
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

size_t out_write(const char *s, size_t n)
{
	size_t k = uart_queue(s, n);

	screen_write(s, k);
	if (k > 0)
		line_start = s[k - 1] == '\n';
	return k;
}

bool out_at_line_start(void)
{
	return line_start;
}

void out_puts(const char *s)
{
	con_lock(&out_lock);
	out_write(s, strlen(s));
	con_unlock(&out_lock);
}
