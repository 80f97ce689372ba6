/*
 * Typed system call wrappers (see <vernier.h>): each converts its
 * arguments to longs and a negative result to a positive errno_t.
 */
#include <vernier.h>

#include "libc.h"

/* errno_t of a raw result: EOK for values >= 0. */
static errno_t sys_err(long r)
{
	return r < 0 ? (errno_t)-r : EOK;
}

errno_t sys_null(void)
{
	return sys_err(__libc_syscall0(SYS_NULL));
}

errno_t sys_console_write(const char *buf, size_t len)
{
	while (len > 0) {
		long r = __libc_syscall2(SYS_CONSOLE_WRITE, (long)buf, (long)len);
		if (r < 0)
			return (errno_t)-r;
		if (r == 0 || (size_t)r > len)
			return EIO;
		buf += r;
		len -= (size_t)r;
	}
	return EOK;
}

void sys_exit(int status)
{
	for (;;)
		__libc_syscall1(SYS_EXIT, status);
}

task_id_t sys_task_id(void)
{
	return (task_id_t)__libc_syscall0(SYS_TASK_ID);
}

uint32_t sys_cpus_online(void)
{
	system_stats_t st;

	if (__libc_syscall1(SYS_SYSTEM_STATS, (long)&st) < 0 || st.cpus_online == 0)
		return 1;
	return st.cpus_online;
}

thread_id_t sys_thread_id(void)
{
	return (thread_id_t)__libc_syscall0(SYS_THREAD_ID);
}

errno_t sys_spawn_args(const spawn_args_t *args, task_id_t *id)
{
	long r = __libc_syscall1(SYS_SPAWN, (long)args);

	if (r >= 0 && id)
		*id = (task_id_t)r;
	return sys_err(r);
}

errno_t sys_spawn(const char *path, const char *const *argv, uint32_t perms,
		  task_id_t *id)
{
	const char *const just_path[] = { path, NULL };
	spawn_args_t args = {
		.path = path,
		.argv = argv ? argv : just_path,
		.perms = perms,
		.flags = 0,
	};

	return sys_spawn_args(&args, id);
}

errno_t sys_wait(task_id_t id, int *status, unsigned flags,
		 task_id_t *waited)
{
	int st = 0;
	long r = __libc_syscall3(SYS_WAIT, (long)id, (long)&st, flags);

	if (r < 0)
		return (errno_t)-r;
	if (status)
		*status = st;
	if (waited)
		*waited = (task_id_t)r;
	return EOK;
}

errno_t sys_kill(task_id_t id)
{
	return sys_err(__libc_syscall1(SYS_KILL, (long)id));
}

errno_t sys_thread_create(void (*entry)(void *), void *arg, void *stack_top,
			  thread_id_t *id)
{
	long r = __libc_syscall3(SYS_THREAD_CREATE, (long)entry, (long)arg,
				 (long)stack_top);

	if (r >= 0 && id)
		*id = (thread_id_t)r;
	return sys_err(r);
}

void sys_thread_exit(long value)
{
	for (;;)
		__libc_syscall1(SYS_THREAD_EXIT, value);
}

errno_t sys_thread_join(thread_id_t id, long *value)
{
	long v = 0;
	long r = __libc_syscall2(SYS_THREAD_JOIN, (long)id, (long)&v);

	if (r >= 0 && value)
		*value = v;
	return sys_err(r);
}

void sys_yield(void)
{
	__libc_syscall0(SYS_YIELD);
}

errno_t sys_sleep_ns(uint64_t ns)
{
	return sys_err(__libc_syscall1(SYS_SLEEP, (long)ns));
}

uint64_t sys_clock_ns(unsigned clock)
{
	long r = __libc_syscall1(SYS_CLOCK, clock);

	return r < 0 ? 0 : (uint64_t)r;
}

errno_t sys_map(void *hint, size_t len, unsigned prot, void **addr)
{
	long r = __libc_syscall3(SYS_MAP, (long)hint, (long)len, prot);

	if (r >= 0 && addr)
		*addr = (void *)r;
	return sys_err(r);
}

errno_t sys_unmap(void *addr, size_t len)
{
	return sys_err(__libc_syscall2(SYS_UNMAP, (long)addr, (long)len));
}

errno_t sys_task_info(task_id_t id, task_info_t *info)
{
	return sys_err(__libc_syscall2(SYS_TASK_INFO, (long)id, (long)info));
}

/* keys and data: the count or, on ENOMEM, the size needed to *got. */
static errno_t sysinfo_read(long nr, const char *path, void *buf, size_t size,
			    size_t *got)
{
	size_t needed = 0;
	long r = __vernier_syscall(nr, (long)path, (long)buf, (long)size,
				   (long)&needed, 0, 0);

	if (got)
		*got = r >= 0 ? (size_t)r : needed;
	return sys_err(r);
}

errno_t sys_sysinfo_keys(const char *path, void *buf, size_t size, size_t *got)
{
	return sysinfo_read(SYS_SYSINFO_KEYS, path, buf, size, got);
}

errno_t sys_sysinfo_data(const char *path, void *buf, size_t size, size_t *got)
{
	return sysinfo_read(SYS_SYSINFO_DATA, path, buf, size, got);
}

errno_t sys_sysinfo_type(const char *path, unsigned *type)
{
	long r = __libc_syscall1(SYS_SYSINFO_TYPE, (long)path);

	if (r >= 0 && type)
		*type = (unsigned)r;
	return sys_err(r);
}

errno_t sys_sysinfo_int(const char *path, uint64_t *value)
{
	return sys_err(__libc_syscall2(SYS_SYSINFO_INT, (long)path, (long)value));
}

errno_t sys_set_affinity(thread_id_t thread, uint64_t mask)
{
	return sys_err(__libc_syscall2(SYS_SET_AFFINITY, (long)thread,
				       (long)mask));
}

errno_t sys_poweroff(unsigned how)
{
	return sys_err(__libc_syscall1(SYS_POWEROFF, how));
}

errno_t sys_ioport_allow(unsigned port, unsigned count)
{
	return sys_err(__libc_syscall2(SYS_IOPORT_ALLOW, (long)port, (long)count));
}

errno_t sys_ioport_revoke(unsigned port, unsigned count)
{
	return sys_err(__libc_syscall2(SYS_IOPORT_REVOKE, (long)port, (long)count));
}
