/*
 * Output: every byte goes to the serial ring and the screen, under one
 * lock (libc's mutex) shared by the IPC thread and the klog thread.
 */
#include <string.h>
#include <vernier.h>

#include "console.h"

pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static bool line_start = true;

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
	pthread_mutex_lock(&out_lock);
	out_write(s, strlen(s));
	pthread_mutex_unlock(&out_lock);
}
