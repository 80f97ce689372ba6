/*
 * Copying the kernel log (from where it stood when the consoles were
 * claimed) to the serial line and the screen, a whole line at a time,
 * never in the middle of a line of user output. A thread waits for new
 * log bytes; the IPC thread also copies what is there before each user
 * write (klog_sync), so a kernel line logged before a program's next
 * output appears before it.
 */
#include <abi/limits.h>
#include <thread.h>
#include <vernier.h>

#include "console.h"

/*
 * Room for any whole log line: the longest an unprivileged task may write
 * (LIMIT_CONSOLE_LINE) with its "uID| " prefix and '\n' fits, so such a
 * line is never shown in two pieces, the second on a line of its own.
 */
#define KLOG_LINE 2048
_Static_assert(KLOG_LINE >= LIMIT_CONSOLE_LINE + 32, "a user log line must fit");
#define KLOG_WAIT_NS (200 * 1000000ull)     /* for more of a partial line */
#define MIDLINE_TRIES 20                    /* x 10 ms for user lines to end */
#define MS 1000000ull

static uint64_t klog_pos;         /* next log byte to read */
static char klog_line[KLOG_LINE]; /* read, not yet shown */
static size_t klog_len;
static pthread_mutex_t klog_lock = PTHREAD_MUTEX_INITIALIZER;   /* the three above */

static long klog_read(char *buf, size_t len, uint64_t *pos, uint64_t timeout)
{
	return __vernier_syscall(SYS_KLOG_READ, (long)buf, (long)len,
				 (long)pos, (long)timeout, 0, 0);
}

void klog_mark(void)
{
	char c;

	klog_pos = UINT64_MAX;       /* clamped to the log's head */
	klog_read(&c, 1, &klog_pos, 0);
}

/*
 * Take the output lock at the start of a line; wait waits a little for a
 * user line to end (then starts a new line). false: mid-line, no wait.
 */
static bool lock_at_line_start(bool wait)
{
	pthread_mutex_lock(&out_lock);
	for (int i = 0; wait && i < MIDLINE_TRIES && !out_at_line_start(); i++) {
		pthread_mutex_unlock(&out_lock);
		sys_sleep_ns(10 * MS);
		pthread_mutex_lock(&out_lock);
	}
	if (out_at_line_start())
		return true;
	if (wait) {
		out_write("\n", 1);
		return true;
	}
	pthread_mutex_unlock(&out_lock);
	return false;
}

/* Write s[0..n) as one unit, waiting for room in the TX ring. */
static bool emit(const char *s, size_t n, bool wait)
{
	if (!lock_at_line_start(wait))
		return false;
	for (size_t done = 0; done < n;) {
		done += out_write(s + done, n - done);
		if (done < n) {
			pthread_mutex_unlock(&out_lock);
			uart_kick();
			sys_sleep_ns(MS / 10);
			pthread_mutex_lock(&out_lock);
		}
	}
	pthread_mutex_unlock(&out_lock);
	return true;
}

/* Emit the complete lines held (all: the partial one too). Locked. */
static void emit_lines(bool all, bool wait)
{
	size_t start = 0;

	for (size_t i = 0; i < klog_len; i++) {
		if (klog_line[i] == '\n') {
			if (!emit(klog_line + start, i + 1 - start, wait))
				break;
			start = i + 1;
		}
	}
	if (all || (start == 0 && klog_len == KLOG_LINE)) {
		if (emit(klog_line + start, klog_len - start, true))
			start = klog_len;
	}
	for (size_t i = start; i < klog_len; i++)
		klog_line[i - start] = klog_line[i];
	klog_len -= start;
}

/* Read what the log has (no waiting) and show it; returns bytes read. */
static long klog_copy(bool all, bool wait)
{
	long n = klog_read(klog_line + klog_len, KLOG_LINE - klog_len, &klog_pos, 0);

	if (n > 0)
		klog_len += (size_t)n;
	emit_lines(all, wait);
	return n;
}

void klog_sync(void)
{
	pthread_mutex_lock(&klog_lock);
	while (klog_copy(false, false) > 0 && klog_len < KLOG_LINE)
		;
	pthread_mutex_unlock(&klog_lock);
}

static long klog_thread(void *arg)
{
	char c;

	for (;;) {
		uint64_t peek = __atomic_load_n(&klog_pos, __ATOMIC_RELAXED);
		long n = klog_read(&c, 1, &peek, KLOG_WAIT_NS);
		if (n < 0) {
			sys_sleep_ns(100 * MS);
			continue;
		}
		pthread_mutex_lock(&klog_lock);
		klog_copy(n == 0 && klog_len > 0, true);
		pthread_mutex_unlock(&klog_lock);
	}
	return 0;
}

bool klog_start(void)
{
	thread_id_t tid;

	return thread_start(klog_thread, NULL, &tid) == EOK;
}
