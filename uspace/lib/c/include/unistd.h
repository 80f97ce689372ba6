/*
 * A minimal POSIX subset. Descriptors 0, 1 and 2 are the console's (read
 * gives cooked lines) unless the parent redirected them (see spawn.h);
 * 3 and up are files from open(). These bypass the stdio buffers.
 */
#ifndef _UNISTD_H
#define _UNISTD_H

#include <stddef.h>
#include <abi/errno.h>
#include <sys/types.h>

#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

/*
 * Files (descriptors 3 and up, from open() in <fcntl.h>; served by /bin/fs):
 * close, seek (SEEK_SET/CUR/END from <stdio.h>), positioned I/O, size,
 * removal. 0 (or the result) on success, -1 with errno on failure.
 */
int close(int fd);
off_t lseek(int fd, off_t off, int whence);
ssize_t pread(int fd, void *buf, size_t n, off_t off);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
int ftruncate(int fd, off_t size);
int unlink(const char *path);
int rmdir(const char *path);
/*
 * Vernier: read the whole file at path into a new malloc'd buffer *data
 * of *size bytes. EOK, the errno of opening it, EISDIR, E2BIG (larger
 * than max bytes), ENOMEM, or EIO (it shrank while read).
 */
errno_t file_read_all(const char *path, size_t max, void **data, size_t *size);
/*
 * A pipe (served by /bin/fs): fds[0] reads what fds[1] writes; reads
 * wait for data, 0 at end of file once every write end is closed, and
 * writes fail with EPIPE once every read end is. While one thread waits
 * in a read, other threads' file calls wait for it.
 */
int pipe(int fds[2]);
#ifndef SEEK_SET
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif

/* The environment: "NAME=value" strings, NULL-terminated. */
extern char **__libc_environ;
#define environ __libc_environ

/* The working directory into buf (size bytes): buf, or NULL with errno
 * (ERANGE: too small). Relative paths of every call resolve against it. */
char *getcwd(char *buf, size_t size);
/* Change the working directory to path (a directory); 0 or -1 with errno. */
int chdir(const char *path);
/* 1 if fd is the console, else 0 with errno (ENOTTY or EBADF). */
int isatty(int fd);

/* Write n bytes of buf to fd; bytes written, or -1 with errno. */
ssize_t write(int fd, const void *buf, size_t n);
/* Read up to n bytes from fd: the count, 0 at end of file, or -1 with errno. */
ssize_t read(int fd, void *buf, size_t n);
/* End the task at once with status (no atexit handlers, no flushing). */
__attribute__((noreturn)) void _exit(int status);
/* Sleep for us microseconds; 0, or -1 with errno. */
int usleep(useconds_t us);
/* Sleep for s seconds; returns 0 (seconds left unslept). */
unsigned sleep(unsigned s);
/* The task id, truncated to a pid_t. */
pid_t getpid(void);

#include <getopt.h>

#endif
