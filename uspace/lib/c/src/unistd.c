/* The POSIX descriptor calls of <unistd.h>, and sleeping. */
#include <errno.h>
#include <unistd.h>
#include <vernier.h>

#include <console.h>

#include "fs_client.h"
#include "libc.h"

ssize_t write(int fd, const void *buf, size_t n)
{
	if (__libc_stdfd_null(fd))
		return (ssize_t)n;
	if (__libc_fs_fd_open(fd) || fd >= __LIBC_FS_FD_FIRST)
		return __libc_fs_write(fd, buf, n);
	if (fd != STDOUT_FILENO && fd != STDERR_FILENO) {
		errno = EBADF;
		return -1;
	}
	return __libc_console_fd_write(buf, n);
}

ssize_t read(int fd, void *buf, size_t n)
{
	if (__libc_stdfd_null(fd))
		return 0;
	if (__libc_fs_fd_open(fd) || fd >= __LIBC_FS_FD_FIRST)
		return __libc_fs_read(fd, buf, n);
	if (fd != STDIN_FILENO) {
		errno = EBADF;
		return -1;
	}
	return __libc_console_fd_read(buf, n);
}

int usleep(useconds_t us)
{
	errno_t e = sys_sleep_ns((uint64_t)us * 1000);

	if (e != EOK) {
		errno = e;
		return -1;
	}
	return 0;
}

unsigned sleep(unsigned s)
{
	sys_sleep_ns((uint64_t)s * 1000000000ull);
	return 0;
}

pid_t getpid(void)
{
	return (pid_t)sys_task_id();
}
