/*
 * The file service protocol (/bin/fs, registered as "fs"). libc's file
 * calls (<fcntl.h>, <unistd.h>, <sys/stat.h>, <dirent.h>) speak it; most
 * programs never see it.
 *
 * The name space: the initrd, read-only, at "/" (/bin, /etc...), a
 * writable tmpfs at "/tmp" and the pipes in "/pipe" (below). Paths are absolute, at most FS_PATH_MAX - 1
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
 *   DATA_READ(buf, len, FS_DR_USAGE, 0, first)         an fs_usage_t: the
 *       totals and limits, and the task trees holding connections from
 *       the first'th on (at most FS_USAGE_TREES; fewer bytes if len is short)
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
 *                             all clients, initrd mounted (0/1), pipes alive]
 *   FS_M_MKPIPE              a new anonymous pipe [its id]
 *
 * Pipes: FS_M_MKPIPE makes a FIFO with a ring buffer of FS_PIPE_BUF
 * bytes, named "/pipe/ID" (ID in decimal) in the read-only directory
 * "/pipe", whose readdir lists the live pipes. The name lasts until a
 * task of the maker's tree unlinks it or the connection that made the
 * pipe hangs up; the pipe lasts while its name or a handle of it does. Open
 * the name O_RDONLY for a read end or O_WRONLY for a write end (O_APPEND
 * is ignored; O_RDWR, O_CREAT, O_EXCL, O_TRUNC: EINVAL; O_DIRECTORY:
 * ENOTDIR). stat gives FS_TYPE_PIPE and size the bytes buffered.
 * Offsets are ignored:
 *
 *   DATA_READ FS_DR_FILE on a read end answers at once with up to len of
 *       the buffered bytes; 0 bytes (end of file) when none are, no write
 *       end is open and one has been or the name is gone. Otherwise the
 *       call waits until one of those holds.
 *   DATA_WRITE FS_DW_FILE on a write end takes as many bytes as there is
 *       room for (args[1], maybe fewer than len; args[2] is 0) at once,
 *       or waits while the buffer is full. EPIPE when no read end is open
 *       and one has been or the name is gone (also for a waiting call).
 *
 * Calls wait in arrival order, at most FS_PIPE_WAITING of each kind per
 * pipe (ELIMIT beyond). A waiting call ends with EINVAL if its handle is
 * closed and EHANGUP if its connection hangs up. Reading a write end or
 * writing a read end: EPERM; FS_M_TRUNCATE of a pipe: EINVAL.
 *
 * Errors: ENOENT, EEXIST, EISDIR, ENOTDIR, EPERM (writing outside /tmp,
 * or through a handle not opened for it), EINVAL (bad path, flags or
 * handle), ENOSPC (the tmpfs is full: its bytes are bounded, pipes'
 * buffers included), ELIMIT (too many handles, connections or pipes for
 * the calling task or its task tree, or in all: FS_DR_USAGE tells the
 * limits), EPIPE. A client's handles are closed when it hangs up.
 *
 * Quotas: connections (with state: from their first call), handles
 * (pipe ends included) and named pipes count for the task that made the
 * first call on the connection and for its task tree, its
 * task_quota_root() (<tasktree.h>; the trees of orphans, tasks whose
 * parent ended, count as one, FS_TREE_ORPHANS). A pipe belongs to its
 * maker's tree: only tasks in it (task_in_tree of the maker's quota root)
 * may open or unlink its name (EPERM otherwise).
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
#define FS_M_MKPIPE (FS_M_BASE + 9)

/* args[2] of IPC_M_DATA_WRITE / IPC_M_DATA_READ. */
#define FS_DW_PATH 1
#define FS_DW_PATH2 2
#define FS_DW_FILE 3
#define FS_DR_FILE 4
#define FS_DR_STAT 5
#define FS_DR_READDIR 6
#define FS_DR_USAGE 7

#define FS_OFF_APPEND UINT64_MAX  /* DATA_WRITE offset: at the end */
#define FS_STAGED UINT64_MAX      /* FS_DR_STAT handle: the staged path */

#define FS_PIPE_DIR "/pipe"
#define FS_PIPE_BUF (16 * 1024)   /* bytes a pipe buffers */
#define FS_PIPE_WAITING 16        /* waiting reads (and writes) per pipe */

/* Node types (fs_stat_t.type, fs_dirent_t.type). */
#define FS_TYPE_FILE 1
#define FS_TYPE_DIR 2
#define FS_TYPE_PIPE 3

typedef struct fs_stat {
	uint64_t size;
	uint32_t type;            /* FS_TYPE_* */
	uint32_t mode;            /* permission bits (0444 in the initrd) */
	uint64_t ino;             /* unique while the node exists */
	uint32_t nlink;
	uint32_t readonly;        /* 1 outside /tmp */
} fs_stat_t;

/*
 * Quotas (see above; the totals are in FS_DR_USAGE). An unprivileged
 * tree cannot leave its permissions, so it reaches at most its own
 * tree's and the orphans' bounds: 384 handles and 48 connections of
 * fs's 1024 and 256, which leaves room for the shell's tree and others.
 */
#define FS_TASK_CONNS 8           /* connections with state per task */
#define FS_TREE_CONNS 24          /* ... per task tree */
#define FS_TASK_HANDLES 128       /* handles per task (all its connections) */
#define FS_TREE_HANDLES 192       /* ... per task tree */
#define FS_TREE_PIPES 32          /* named pipes per task tree */

#define FS_TREE_ORPHANS 0        /* fs_usage_tree_t.root of orphans' trees */
#define FS_USAGE_TREES 16         /* trees per FS_DR_USAGE answer */

/* One task tree's usage (FS_DR_USAGE). */
typedef struct fs_usage_tree {
	uint64_t root;            /* its quota root task, or FS_TREE_ORPHANS */
	uint32_t tasks;           /* client tasks */
	uint32_t conns, handles, pipes;
	uint32_t refused;         /* ELIMITs its tasks got (while it is known) */
} fs_usage_tree_t;

/* FS_DR_USAGE: the totals, the limits and tree[0..count-1]. */
typedef struct fs_usage {
	uint64_t tmp_used, tmp_limit;  /* tmpfs bytes (pipes' rings included) */
	uint32_t conns, conns_max;     /* connections with state, in all */
	uint32_t handles, handles_max; /* open handles, in all */
	uint32_t task_conns_max, tree_conns_max;
	uint32_t task_handles_max, tree_handles_max;
	uint32_t tree_pipes_max, pipes; /* pipes alive (named or open) */
	uint32_t trees;                /* trees known (count of them follow) */
	uint32_t count;
	fs_usage_tree_t tree[FS_USAGE_TREES];
} fs_usage_t;

typedef struct fs_dirent {
	uint64_t ino;
	uint32_t type;
	char name[FS_NAME_MAX + 1];
} fs_dirent_t;

#endif
