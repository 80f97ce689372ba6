/*
 * Client side of the console server's terminal protocol (<console.h>) and
 * the standard streams' back end over it: stdout/stderr write through the
 * console server and stdin reads from it once it exists; before that (or
 * without one) output goes to SYS_CONSOLE_WRITE and stdin is at end of
 * file.
 */
#include <console.h>
#include <errno.h>
#include <ipc.h>
#include <stdbool.h>
#include <stdio.h>
#include <vernier.h>

#include "libc.h"

/* How often the streams look for a console server that was not there. */
#define STDIO_RETRY_NS (100 * 1000000ull)

errno_t console_connect(int *phone)
{
	return service_connect(CONSOLE_SERVICE, phone);
}

/*
 * A DATA_WRITE of the bytes, then CONSOLE_M_WRITE to wait until they have
 * left the serial port; the count taken to *done. (Data first: a failed
 * DATA_WRITE used to leave the announcing call unanswered forever.)
 */
static errno_t console_write_chunk(int phone, const char *buf, size_t len,
				   size_t *done)
{
	errno_t rc = ipc_data_write_n(phone, buf, len, done);

	if (rc != EOK)
		return rc;
	return ipc_call_sync(phone, CONSOLE_M_WRITE, *done, 0, 0, 0, 0, NULL);
}

errno_t console_write(int phone, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		size_t n = len < IPC_DATA_MAX ? len : IPC_DATA_MAX, done = 0;
		errno_t rc = console_write_chunk(phone, p, n, &done);
		if (rc != EOK)
			return rc;
		if (done == 0 || done > n)
			return EIO;
		p += done;
		len -= done;
	}
	return EOK;
}

errno_t console_read(int phone, void *buf, size_t len, size_t *got)
{
	if (len > IPC_DATA_MAX)
		len = IPC_DATA_MAX;
	return ipc_data_read(phone, buf, len, got);
}

errno_t console_set_mode(int phone, unsigned mode, unsigned *old)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(phone, CONSOLE_M_SET_MODE, mode, 0, 0, 0, 0, &a);

	if (rc == EOK && old)
		*old = (unsigned)a.args[0];
	return rc;
}

errno_t console_set_foreground(int phone, task_id_t task)
{
	return console_foreground(phone, task, CONSOLE_FG_SET);
}

errno_t console_foreground(int phone, task_id_t task, unsigned how)
{
	return ipc_call_sync(phone, CONSOLE_M_SET_FG, task, how, 0, 0, 0, NULL);
}

errno_t console_status(int phone, task_id_t task, console_status_t *st)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(phone, CONSOLE_M_STATUS, task, 0, 0, 0, 0, &a);

	if (rc != EOK)
		return rc;
	*st = (console_status_t){ (unsigned)a.args[0], (unsigned)a.args[1],
		(unsigned)a.args[2], a.args[3], a.args[4] };
	return EOK;
}

errno_t console_size(int phone, unsigned *rows, unsigned *cols)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(phone, CONSOLE_M_GET_SIZE, 0, 0, 0, 0, 0, &a);

	if (rc == EOK) {
		if (rows)
			*rows = (unsigned)a.args[0];
		if (cols)
			*cols = (unsigned)a.args[1];
	}
	return rc;
}

void console_size_or_default(int phone, unsigned min_rows, unsigned *rows, unsigned *cols)
{
	if (console_size(phone, rows, cols) != EOK || *rows < min_rows || *cols < 2) {
		*rows = CONSOLE_ROWS_DEFAULT;
		*cols = CONSOLE_COLS_DEFAULT;
	}
}

/* ---------------------------------------------------------------- stdio */

static int stdio_phone = -1;
static bool stdio_detached;
static uint64_t stdio_next_try;
static libc_lock_t stdio_connect_lock = LIBC_LOCK_INIT;

/* Try to connect (at most every STDIO_RETRY_NS); another thread may be. */
static void stdio_try_connect(void)
{
	if (!__libc_trylock(&stdio_connect_lock))
		return;
	uint64_t now = sys_clock_ns(CLOCK_MONOTONIC);
	int phone;
	if (stdio_phone < 0 && !stdio_detached && now >= stdio_next_try) {
		stdio_next_try = now + STDIO_RETRY_NS;
		if (console_connect(&phone) == EOK)
			__atomic_store_n(&stdio_phone, phone, __ATOMIC_RELEASE);
	}
	__libc_unlock(&stdio_connect_lock);
}

int console_stdio_phone(void)
{
	int phone = __atomic_load_n(&stdio_phone, __ATOMIC_ACQUIRE);

	if (phone >= 0 || stdio_detached)
		return phone;
	stdio_try_connect();
	return __atomic_load_n(&stdio_phone, __ATOMIC_ACQUIRE);
}

/* The server went away: forget the phone (the next use looks again). */
static void stdio_lost(int phone)
{
	if (__atomic_compare_exchange_n(&stdio_phone, &phone, -1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		sys_ipc_hangup(phone);
}

void console_stdio_detach(void)
{
	stdio_detached = true;
	int phone = __atomic_exchange_n(&stdio_phone, -1, __ATOMIC_ACQ_REL);
	if (phone >= 0)
		sys_ipc_hangup(phone);
}

/* The kernel console, as before the console server existed. */
static ssize_t stdio_kernel_write(const char *buf, size_t n)
{
	errno_t e = sys_console_write(buf, n);

	if (e != EOK) {
		errno = e;
		return -1;
	}
	return (ssize_t)n;
}

static ssize_t stdio_write(void *cookie, const char *buf, size_t n)
{
	int phone = console_stdio_phone();

	if (phone >= 0) {
		errno_t rc = console_write(phone, buf, n);
		if (rc == EOK)
			return (ssize_t)n;
		if (rc != EHANGUP && rc != ENOENT) {
			errno = rc;
			return -1;
		}
		stdio_lost(phone);
	}
	return stdio_kernel_write(buf, n);
}

static ssize_t stdio_read(void *cookie, char *buf, size_t n)
{
	int phone = console_stdio_phone();
	size_t got = 0;

	if (phone < 0)
		return 0;
	errno_t rc = console_read(phone, buf, n, &got);
	if (rc == EOK)
		return (ssize_t)got;
	if (rc == EHANGUP || rc == ENOENT) {
		stdio_lost(phone);
		return 0;
	}
	errno = rc;
	return -1;
}

ssize_t __libc_console_fd_read(void *buf, size_t n)
{
	return stdio_read(NULL, buf, n);
}

ssize_t __libc_console_fd_write(const void *buf, size_t n)
{
	return stdio_write(NULL, buf, n);
}

void __libc_console_stdio_init(void)
{
	static const cookie_io_functions_t out = { .write = stdio_write };
	static const cookie_io_functions_t in = { .read = stdio_read };

	fsetcookie(stdout, NULL, out);
	fsetcookie(stderr, NULL, out);
	fsetcookie(stdin, NULL, in);
}
