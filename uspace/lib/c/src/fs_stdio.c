/*
 * stdio streams over files: fopen() opens a descriptor (src/file.c) and
 * wraps it with fopencookie(); fseek/ftell/rewind position any stream
 * whose back end can seek; remove, tmpnam and tmpfile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_client.h"
#include "stdio_impl.h"

static int cookie_fd(void *cookie)
{
	return (int)(intptr_t)cookie;
}

static ssize_t fd_read(void *cookie, char *buf, size_t n)
{
	return __libc_fs_read(cookie_fd(cookie), buf, n);
}

static ssize_t fd_write(void *cookie, const char *buf, size_t n)
{
	return __libc_fs_write(cookie_fd(cookie), buf, n);
}

static int fd_seek(void *cookie, off_t *off, int whence)
{
	off_t r = lseek(cookie_fd(cookie), *off, whence);

	if (r < 0)
		return -1;
	*off = r;
	return 0;
}

static int fd_close(void *cookie)
{
	return close(cookie_fd(cookie));
}

const cookie_io_functions_t __libc_fd_io = {
	.read = fd_read, .write = fd_write, .seek = fd_seek, .close = fd_close,
};

/* open() flags for an fopen mode ("r", "w+", "ab", "wx"...); -1 if bad. */
static int mode_to_flags(const char *mode)
{
	bool plus = strchr(mode, '+') != NULL;
	int flags;

	switch (mode[0]) {
	case 'r': flags = plus ? O_RDWR : O_RDONLY; break;
	case 'w': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
	case 'a': flags = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
	default: return -1;
	}
	if (strchr(mode, 'x'))
		flags |= O_EXCL;
	return flags;
}

FILE *__libc_fs_fopen(const char *path, const char *mode)
{
	int flags = mode_to_flags(mode);

	if (flags < 0) {
		errno = EINVAL;
		return NULL;
	}
	int fd = open(path, flags, 0644);
	if (fd < 0)
		return NULL;
	FILE *f = fopencookie((void *)(intptr_t)fd, mode, __libc_fd_io);
	if (!f) {
		close(fd);
		errno = ENOMEM;
	}
	return f;
}

/* Move f's position: pending output is written, buffered input dropped. */
int fseek(FILE *f, long off, int whence)
{
	off_t pos = off;
	int r = -1;

	__libc_lock(&f->lock);
	if (__libc_file_flush(f) == 0) {
		if (whence == SEEK_CUR)
			pos -= (off_t)(f->rlen - f->rpos);
		r = f->io.seek ? f->io.seek(f->cookie, &pos, whence) : -1;
		if (!f->io.seek)
			errno = EINVAL;
	}
	if (r == 0) {
		f->rpos = f->rlen = 0;
		f->flags &= ~(unsigned)FILE_EOF;
	}
	__libc_unlock(&f->lock);
	return r;
}

/* f's position (counting buffered data), or -1 with errno. */
long ftell(FILE *f)
{
	off_t pos = 0;
	long r = -1;

	__libc_lock(&f->lock);
	if (f->io.seek && f->io.seek(f->cookie, &pos, SEEK_CUR) == 0)
		r = (long)(pos + (off_t)f->wpos - (off_t)(f->rlen - f->rpos));
	else if (!f->io.seek)
		errno = EINVAL;
	__libc_unlock(&f->lock);
	return r;
}

/* fseek(f, 0, SEEK_SET) and clearerr(f). */
void rewind(FILE *f)
{
	fseek(f, 0, SEEK_SET);
	clearerr(f);
}

/* unlink, or rmdir for a directory: 0 or -1 (errno). */
int remove(const char *path)
{
	int saved = errno;

	if (unlink(path) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	errno = saved;
	return rmdir(path);
}

/* A /tmp name no file has (s or a static buffer); NULL after TMP_MAX. */
char *tmpnam(char *s)
{
	static char buf[L_tmpnam];
	static unsigned long counter;
	struct stat st;

	if (!s)
		s = buf;
	for (;;) {
		unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		if (n >= TMP_MAX)
			return NULL;
		snprintf(s, L_tmpnam, "/tmp/tmp.%d.%lu", (int)getpid(), n);
		if (stat(s, &st) != 0)
			return s;
	}
}

/* A fresh /tmp file opened w+ and unlinked at once. */
FILE *tmpfile(void)
{
	char name[L_tmpnam];

	for (;;) {
		if (!tmpnam(name)) {
			errno = EEXIST;
			return NULL;
		}
		FILE *f = fopen(name, "w+x");
		if (f) {
			unlink(name);
			return f;
		}
		if (errno != EEXIST)
			return NULL;
	}
}
