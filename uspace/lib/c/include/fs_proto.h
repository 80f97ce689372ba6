/*
 * The file service protocol (/bin/fs, registered as "fs"). libc's file
 * calls (<fcntl.h>, <unistd.h>, <sys/stat.h>, <dirent.h>) speak it; most
 * programs never see it.
 *
 * The name space: the initrd, read-only, at "/" (/bin, /etc...) and a
 * writable tmpfs at "/tmp". Paths are absolute, at most FS_PATH_MAX - 1
 * bytes, with components of 1..FS_NAME_MAX bytes; "." and ".." are
 * refused (EINVAL), repeated and trailing slashes are ignored.
 *
 * Paths travel ahead of the call that uses them: the client stages one
 * with an IPC_M_DATA_WRITE whose args[2] is FS_DW_PATH (FS_DW_PATH2 for
 * rename's target), without its NUL, on the same connection; the next
 * path call (FS_M_OPEN, FS_M_MKDIR...) uses it. A client with several
 * threads must serialise staging and use (libc does).
 *
 * File data, stat and directory entries move in IPC_M_DATA_WRITE and
 * IPC_M_DATA_READ calls whose args[2..4] say what they are for:
 *
 *   DATA_WRITE(buf, len, FS_DW_FILE, handle, offset)  write at offset
 *       (FS_OFF_APPEND: at the end); answer args[1] bytes written,
 *       args[2] the offset after them. As much as fits is taken; ENOSPC
 *       when nothing does.
 *   DATA_READ(buf, len, FS_DR_FILE, handle, offset)    read at offset;
 *       answer args[1] bytes read (0 at end of file)
 *   DATA_READ(buf, len, FS_DR_STAT, handle, 0)         an fs_stat_t
 *       (handle FS_STAGED: of the staged path)
 *   DATA_READ(buf, len, FS_DR_READDIR, handle, index)  the index'th
 *       entry of a directory handle as an fs_dirent_t; ENOENT past the end
 *
 * Other calls (answer args in brackets):
 *
 *   FS_M_OPEN(flags)         the staged path with O_* flags [handle]
 *   FS_M_CLOSE(handle)
 *   FS_M_MKDIR(mode)         create the staged path as a directory
 *   FS_M_UNLINK              remove the staged file (EISDIR for a directory)
 *   FS_M_RMDIR               remove the staged empty directory (EEXIST if not empty)
 *   FS_M_RENAME              move the staged path to the staged path2
 *   FS_M_TRUNCATE(handle, size)
 *   FS_M_INFO                [tmp bytes used, tmp limit, open handles of
 *                             all clients, initrd mounted (0/1)]
 *
 * Errors: ENOENT, EEXIST, EISDIR, ENOTDIR, EPERM (writing outside /tmp,
 * or through a handle not opened for it), EINVAL (bad path, flags or
 * handle), ENOSPC (the tmpfs is full: its bytes are bounded), ELIMIT (too
 * many handles or clients). A client's handles are closed when it hangs up.
 */
#ifndef _FS_PROTO_H
#define _FS_PROTO_H

#include <stdint.h>
#include <ipc.h>

#define FS_SERVICE "fs"

#define FS_PATH_MAX 256           /* with the NUL */
#define FS_NAME_MAX 63            /* one component */

#define FS_M_BASE (IPC_M_LIBC + 0x100)
#define FS_M_OPEN (FS_M_BASE + 1)
#define FS_M_CLOSE (FS_M_BASE + 2)
#define FS_M_MKDIR (FS_M_BASE + 3)
#define FS_M_UNLINK (FS_M_BASE + 4)
#define FS_M_RMDIR (FS_M_BASE + 5)
#define FS_M_RENAME (FS_M_BASE + 6)
#define FS_M_TRUNCATE (FS_M_BASE + 7)
#define FS_M_INFO (FS_M_BASE + 8)

/* args[2] of IPC_M_DATA_WRITE / IPC_M_DATA_READ. */
#define FS_DW_PATH 1
#define FS_DW_PATH2 2
#define FS_DW_FILE 3
#define FS_DR_FILE 4
#define FS_DR_STAT 5
#define FS_DR_READDIR 6

#define FS_OFF_APPEND UINT64_MAX  /* DATA_WRITE offset: at the end */
#define FS_STAGED UINT64_MAX      /* FS_DR_STAT handle: the staged path */

/* Node types (fs_stat_t.type, fs_dirent_t.type). */
#define FS_TYPE_FILE 1
#define FS_TYPE_DIR 2

typedef struct fs_stat {
	uint64_t size;
	uint32_t type;            /* FS_TYPE_* */
	uint32_t mode;            /* permission bits (0444 in the initrd) */
	uint64_t ino;             /* unique while the node exists */
	uint32_t nlink;
	uint32_t readonly;        /* 1 outside /tmp */
} fs_stat_t;

typedef struct fs_dirent {
	uint64_t ino;
	uint32_t type;
	char name[FS_NAME_MAX + 1];
} fs_dirent_t;

#endif
