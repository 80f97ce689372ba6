/*
 * open() and its flags (Linux values). Files live in the file service
 * (/bin/fs, see <fs_proto.h>): the initrd read-only at "/" and a writable
 * tmpfs at "/tmp".
 */
#ifndef _FCNTL_H
#define _FCNTL_H

#include <sys/types.h>

#ifndef __mode_t_defined
#define __mode_t_defined
typedef unsigned int mode_t;
#endif

#define O_RDONLY 0
#define O_WRONLY 1
#define O_RDWR 2
#define O_ACCMODE 3
#define O_CREAT 0x40
#define O_EXCL 0x80
#define O_TRUNC 0x200
#define O_APPEND 0x400
#define O_DIRECTORY 0x10000

/*
 * Open path with flags (O_RDONLY, O_WRONLY or O_RDWR, plus O_CREAT,
 * O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY); mode is accepted and ignored
 * (tmpfs files are 0644, directories 0755). Returns a descriptor (3 or
 * more), or -1 with errno.
 */
int open(const char *path, int flags, ...);
/* open(path, O_WRONLY | O_CREAT | O_TRUNC, mode). */
int creat(const char *path, mode_t mode);

#endif
