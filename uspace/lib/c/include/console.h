/*
 * The terminal protocol of the console server (/bin/console, registered
 * as "console") and its client API.
 *
 * One terminal, shared by every client. Methods (IPC_M_USER and up):
 *
 *   IPC_M_DATA_WRITE(bytes)   output; answered at once with the count
 *                             taken (it may take fewer bytes, and waits
 *                             while the serial port's ring is full)
 *   CONSOLE_M_WRITE(len)      wait until this phone's bytes (every
 *                             DATA_WRITE before it) have left the serial
 *                             port: EOK, args[0] = len. Sent after the
 *                             DATA_WRITE, so a client whose DATA_WRITE
 *                             failed has nothing left to wait for.
 *   IPC_M_DATA_READ(size)     read input; the answer waits until there is
 *                             some: in cooked mode one line (up to size
 *                             bytes, with its '\n'), or 0 bytes for end of
 *                             file (Ctrl-D at the start of a line); in raw
 *                             mode every byte typed so far, unechoed
 *   CONSOLE_M_SET_MODE(mode)  CONSOLE_MODE_COOKED or CONSOLE_MODE_RAW;
 *                             answer args[0] = the previous mode
 *   CONSOLE_M_GET_SIZE        answer args[0] = rows, args[1] = columns
 *   CONSOLE_M_SET_FG(task, how)  the foreground (who reads, whose Ctrl-C):
 *                             how = CONSOLE_FG_SET: task's tree is the
 *                             foreground job (0: none) and the caller holds
 *                             the terminal alone; CONSOLE_FG_ADD: task joins
 *                             the job (a pipeline's other members);
 *                             CONSOLE_FG_HAND: task's tree holds the
 *                             terminal, no job (init to the shell). Ctrl-C
 *                             in cooked mode kills the job's tasks (instead
 *                             of being delivered). Answer args[0] = the
 *                             job's previous first task. EPERM unless the
 *                             caller is in the foreground (the holder, an
 *                             ancestor of it, or in the job's trees) and
 *                             task is in the caller's own tree, or the
 *                             caller has PERM_KILL; ESRCH: task is not
 *                             running; ELIMIT: CONSOLE_FG_ADD to a full job
 *   CONSOLE_M_STATUS(task)    usage (task 0: the caller): answer args[0] =
 *                             reads queued in all, [1] by task, [2] by its
 *                             tree, [3] the tree's root (task_quota_root),
 *                             [4] the task holding the terminal
 *
 * Input goes only to the foreground: a read from another task waits until
 * its task is in the foreground again (as a Unix background job stops on
 * SIGTTIN) and never gets what was typed for the foreground. Reads queue
 * at most CONSOLE_READS_TASK per task and CONSOLE_READS_TREE per task tree
 * (<tasktree.h>), CONSOLE_READS_MAX in all with CONSOLE_READS_TREE of them
 * kept for the foreground; beyond, that read gets ELIMIT. SET_MODE is EPERM
 * from outside the foreground.
 *
 * Cooked mode: typed bytes are echoed; backspace (0x08 or 0x7f) deletes,
 * left/right arrows (ESC [ D / ESC [ C) move in the line; Enter (CR or
 * LF) delivers the line with a '\n'; Ctrl-D on an empty line is end of
 * file (on a non-empty one it delivers the line without '\n'); Ctrl-U
 * erases the line. The PS/2 keyboard's arrows arrive as the same escape
 * sequences as on the serial line.
 */
#ifndef _CONSOLE_H
#define _CONSOLE_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/ipc.h>
#include <abi/task.h>
#include <sys/types.h>

#define CONSOLE_SERVICE "console"

#define CONSOLE_M_WRITE (IPC_M_USER + 1)
#define CONSOLE_M_SET_MODE (IPC_M_USER + 2)
#define CONSOLE_M_GET_SIZE (IPC_M_USER + 3)
#define CONSOLE_M_SET_FG (IPC_M_USER + 4)
#define CONSOLE_M_STATUS (IPC_M_USER + 5)

#define CONSOLE_FG_SET 0
#define CONSOLE_FG_ADD 1
#define CONSOLE_FG_HAND 2

#define CONSOLE_READS_TASK 4
#define CONSOLE_READS_TREE 8
#define CONSOLE_READS_MAX 64

#define CONSOLE_MODE_COOKED 0
#define CONSOLE_MODE_RAW 1

/* Connect a new phone to the console server; ENOENT if there is none. */
errno_t console_connect(int *phone);
/*
 * Write len bytes of buf to the terminal (all of them, in chunks); returns
 * once they have been sent out of the serial port.
 */
errno_t console_write(int phone, const void *buf, size_t len);
/*
 * Read input into buf (at most len bytes); blocks until there is some. The
 * count goes to *got: 0 means end of file.
 */
errno_t console_read(int phone, void *buf, size_t len, size_t *got);
/* Switch the terminal to mode (CONSOLE_MODE_*); the old one to *old. */
errno_t console_set_mode(int phone, unsigned mode, unsigned *old);
/* Make task the foreground job (0: none) for input and Ctrl-C. */
errno_t console_set_foreground(int phone, task_id_t task);
/* CONSOLE_M_SET_FG with how (CONSOLE_FG_*). */
errno_t console_foreground(int phone, task_id_t task, unsigned how);

/* CONSOLE_M_STATUS's answer. */
typedef struct console_status {
	unsigned reads;            /* queued in all */
	unsigned task_reads;       /* queued by the task asked about */
	unsigned tree_reads;       /* queued by its tree */
	task_id_t tree;            /* the tree's root */
	task_id_t holder;          /* the task holding the terminal */
} console_status_t;
/* The console's usage as task sees it (0: the caller). */
errno_t console_status(int phone, task_id_t task, console_status_t *st);
/* The terminal's size in character cells. */
errno_t console_size(int phone, unsigned *rows, unsigned *cols);
/* The size in cells to draw a full-screen view in: the console's, or
 * CONSOLE_ROWS_DEFAULT x CONSOLE_COLS_DEFAULT when it cannot tell or has
 * fewer than min_rows rows or 2 columns. */
void console_size_or_default(int phone, unsigned min_rows, unsigned *rows, unsigned *cols);
#define CONSOLE_ROWS_DEFAULT 25
#define CONSOLE_COLS_DEFAULT 80
/*
 * The phone the standard streams use (connected on first use; -1 when
 * there is no console server, and then they use SYS_CONSOLE_WRITE).
 */
int console_stdio_phone(void);
/*
 * Keep the standard streams off the console server (the server itself
 * calls it: it must never call itself).
 */
void console_stdio_detach(void);

/*
 * Keys typed on the terminal without waiting for them (what top and the
 * profilers do while they refresh): console_keys_open switches the
 * terminal to raw mode and starts a thread that reads keys (on a
 * connection of its own when it can get one) into a ring, from which
 * console_keys_take hands them out without blocking. The reader stops
 * after a key in stop (e.g. "q\x03"), or at end of input, which it
 * reports as stop[0]. ENOTTY: no console server.
 */
typedef struct console_keys console_keys_t;
errno_t console_keys_open(const char *stop, console_keys_t **out);
/* Up to n keys typed since the last call into buf; their count. */
size_t console_keys_take(console_keys_t *k, char *buf, size_t n);
/*
 * Restore the terminal's mode. The reader is joined (and k freed) if it
 * has stopped; one still waiting for a key ends with the task.
 */
void console_keys_close(console_keys_t *k);

/*
 * libc internals: the start-up hook (start.c) that points stdin, stdout
 * and stderr at the console, and read(0) / write(1 or 2) over the same
 * path (for unistd.c).
 */
void __libc_console_stdio_init(void);
ssize_t __libc_console_fd_read(void *buf, size_t n);
ssize_t __libc_console_fd_write(const void *buf, size_t n);

#endif
