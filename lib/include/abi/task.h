/* Tasks and threads as user space sees them: permissions, spawn, status. */
#ifndef ABI_TASK_H
#define ABI_TASK_H

#include <stdint.h>

typedef uint64_t task_id_t;
typedef uint64_t thread_id_t;

/*
 * Permissions. A task passes a subset of its own to each child; init holds
 * them all.
 */
#define PERM_IO (1u << 0)        /* I/O port access */
#define PERM_IRQ (1u << 1)       /* IRQ subscription */
#define PERM_PROFILE (1u << 2)   /* profile other tasks or the whole system */
#define PERM_KILL (1u << 3)      /* kill tasks that are not its children */
#define PERM_SYSTEM (1u << 4)    /* power off, reboot */
#define PERM_ALL 0x1fu

#define SPAWN_MAX_ARGS 64
#define SPAWN_MAX_ARGLEN 4096    /* all argument strings together */

typedef struct spawn_args {
	const char *path;          /* program, e.g. "/bin/tester" */
	const char *const *argv;   /* NULL-terminated, argv[0] included */
	uint32_t perms;            /* must be a subset of the caller's */
	uint32_t reserved;
} spawn_args_t;

/* SYS_WAIT: task id 0 waits for any child. */
#define WAIT_ANY 0
#define WAIT_NOHANG 1u

/*
 * Exit status as SYS_WAIT reports it: a normal exit gives the value passed
 * to exit() (0..255); a task killed by the kernel or by SYS_KILL gives
 * TASK_STATUS_KILLED | reason.
 */
#define TASK_STATUS_KILLED 0x100
#define KILL_REASON_SIGNAL 1     /* SYS_KILL */
#define KILL_REASON_FAULT 2      /* an unhandled exception */

#define TASK_NAME_MAX 32

typedef struct task_info {
	task_id_t id;
	task_id_t parent;
	char name[TASK_NAME_MAX];
	uint32_t perms;
	uint32_t threads;
} task_info_t;

#endif
