/*
 * libc's file descriptors over the file service (src/file.c): the hooks
 * the descriptor calls of <unistd.h> use for descriptors 3 and up, and
 * what the stdio streams over files (src/fs_stdio.c) need.
 */
#ifndef LIBC_FS_CLIENT_H
#define LIBC_FS_CLIENT_H

#include <stdbool.h>
#include <stdio.h>
#include <abi/errno.h>
#include <sys/types.h>

#define __LIBC_FS_FD_FIRST 3       /* 0, 1, 2 are the console's */
#define __LIBC_FS_FD_MAX 128       /* descriptors 0 .. MAX-1 */

/* read() / write() of file descriptor fd (>= 3); -1 with errno. */
ssize_t __libc_fs_read(int fd, void *buf, size_t n);
ssize_t __libc_fs_write(int fd, const void *buf, size_t n);
/* fopen(): a stream over open(path) (src/fs_stdio.c). */
FILE *__libc_fs_fopen(const char *path, const char *mode);
/*
 * Open path into the standard descriptor fd (0..2) at start-up
 * (src/stdfd.c); fd, or -1 with errno (EBUSY if it is open already).
 */
int __libc_fs_open_at(int fd, const char *path, int flags);
/* Whether descriptor fd is a file service descriptor. */
bool __libc_fs_fd_open(int fd);
/* The stdio back end of file descriptors (cookie: the fd). */
extern const cookie_io_functions_t __libc_fd_io;

/*
 * Resolve path against the working directory (src/cwd.c) into out
 * (FS_PATH_MAX bytes): EOK, ENOENT (empty), ENAMETOOLONG.
 */
errno_t __libc_path_resolve(const char *path, char *out);

#endif
