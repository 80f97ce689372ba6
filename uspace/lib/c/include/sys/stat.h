/*
 * File status and directories (see <fcntl.h> for where files live).
 */
#ifndef _SYS_STAT_H
#define _SYS_STAT_H

#include <stdint.h>
#include <sys/types.h>

#ifndef __mode_t_defined
#define __mode_t_defined
typedef unsigned int mode_t;
#endif
typedef uint64_t ino_t;
typedef unsigned int nlink_t;

#define S_IFMT 0170000
#define S_IFIFO 0010000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#define S_ISFIFO(m) (((m) & S_IFMT) == S_IFIFO)

struct stat {
	ino_t st_ino;
	mode_t st_mode;            /* S_IFDIR, S_IFREG or S_IFIFO | permission bits */
	nlink_t st_nlink;
	off_t st_size;
};

/* Status of path / of descriptor fd into *st; 0, or -1 with errno. */
int stat(const char *path, struct stat *st);
int fstat(int fd, struct stat *st);
/* Create directory path (mode ignored: 0755); 0, or -1 with errno. */
int mkdir(const char *path, mode_t mode);

#endif
