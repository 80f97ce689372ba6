/*
 * A fake kernel for the libc host unit tests: __vernier_syscall served on
 * the host. Console output is captured, SYS_MAP/SYS_UNMAP use mmap, clocks
 * read the host's (or fixed values), sleeps are only counted, SYS_EXIT
 * longjmps to the test, sysinfo calls go to a test's hook, and any call can
 * be forced to return a value.
 * Every call is counted and the last one's arguments kept.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libc_host.h"

fake_kernel_t fake = { .maps_left = -1 };

/* Tests may call libc from several host threads: one call at a time here. */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

long __vernier_syscall(long n, long a1, long a2, long a3, long a4, long a5,
		       long a6);
long __vernier_syscall_words(long n, unsigned long w[6]);

void fake_reset(void)
{
	memset(fake.calls, 0, sizeof(fake.calls));
	memset(fake.forced, 0, sizeof(fake.forced));
	fake.console_len = 0;
	fake.console_writes = 0;
	fake.console_chunk = 0;
	fake.maps_left = -1;
	fake.slept_ns = 0;
	fake.clock_set = false;
	fake.exit_jmp = NULL;
	fake.sysinfo = NULL;
}

const char *fake_console(void)
{
	fake.console[fake.console_len] = '\0';
	return fake.console;
}

void fake_console_clear(void)
{
	fake.console_len = 0;
	fake.console_writes = 0;
}

void fake_force(int n, long r)
{
	fake.forced[n] = true;
	fake.result[n] = r;
}

static long console_write(const char *buf, size_t len)
{
	if (fake.console_chunk > 0 && len > fake.console_chunk)
		len = fake.console_chunk;
	if (len > FAKE_CONSOLE_MAX - 1 - fake.console_len)
		return -ENOSPC;
	memcpy(fake.console + fake.console_len, buf, len);
	fake.console_len += len;
	fake.console_writes++;
	return (long)len;
}

static long map(size_t len, unsigned prot)
{
	if (fake.maps_left == 0 || len == 0)
		return -ENOMEM;
	if (fake.maps_left > 0)
		fake.maps_left--;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	fake.live_maps++;
	fake.live_bytes += len;
	return (long)p;
}

static long unmap(void *addr, size_t len)
{
	if (munmap(addr, len) != 0)
		return -EINVAL;
	fake.live_maps--;
	fake.live_bytes -= len;
	return 0;
}

static long clock_ns(long id)
{
	struct timespec ts;

	/* Linux's ids: 0 realtime, 1 monotonic, 2 and 3 as ours */
	static const clockid_t host_id[4] = { 1, 0, 2, 3 };

	if (id < CLOCK_MONOTONIC || id > CLOCK_THREAD_CPUTIME_ID)
		return -EINVAL;
	if (fake.clock_set)
		return (long)fake.clock[id];
	clock_gettime(host_id[id], &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long do_exit(long status)
{
	fake.exit_status = (int)status;
	if (fake.exit_jmp)
		longjmp(*fake.exit_jmp, 1);
	fflush(stdout);
	_exit((int)status);
}

static long sysinfo(long n, long a1, long a2, long a3, long a4)
{
	if (!fake.sysinfo)
		return -ENOSYS;
	return fake.sysinfo(n, (const char *)a1, (void *)a2, (size_t)a3,
			    (size_t *)a4);
}

static long dispatch(long n, long a1, long a2, long a3, long a4)
{
	switch (n) {
	case SYS_NULL: return 0;
	case SYS_CONSOLE_WRITE: return console_write((const char *)a1, (size_t)a2);
	case SYS_TASK_ID: return 7;
	case SYS_THREAD_ID: return 70;
	case SYS_YIELD: return 0;
	case SYS_SLEEP: fake.slept_ns += (uint64_t)a1; return 0;
	case SYS_CLOCK: return clock_ns(a1);
	case SYS_MAP: return map((size_t)a2, (unsigned)a3);
	case SYS_UNMAP: return unmap((void *)a1, (size_t)a2);
	case SYS_SYSINFO_KEYS:
	case SYS_SYSINFO_TYPE:
	case SYS_SYSINFO_INT:
	case SYS_SYSINFO_DATA: return sysinfo(n, a1, a2, a3, a4);
	default: return -ENOSYS;
	}
}

long __vernier_syscall(long n, long a1, long a2, long a3, long a4, long a5,
		       long a6)
{
	long args[7] = { n, a1, a2, a3, a4, a5, a6 };

	if (n < 0 || n >= SYS_COUNT)
		return -ENOSYS;
	if (n == SYS_EXIT || n == SYS_THREAD_EXIT) {
		fake.calls[n]++;
		return do_exit(a1);
	}
	pthread_mutex_lock(&fake_lock);
	fake.calls[n]++;
	memcpy(fake.last, args, sizeof(args));
	long r = fake.forced[n] ? fake.result[n] : dispatch(n, a1, a2, a3, a4);
	pthread_mutex_unlock(&fake_lock);
	return r;
}

/* The words variant (SYS_IPC_CALL_SHORT's): served as the plain call, w unchanged. */
long __vernier_syscall_words(long n, unsigned long w[6])
{
	return __vernier_syscall(n, (long)w[0], (long)w[1], (long)w[2], (long)w[3], (long)w[4],
				 (long)w[5]);
}
