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

#define SPAWN_MAX_ARGS 64       /* argv entries; envp has as many */
#define SPAWN_MAX_ARGLEN 8192    /* all argument and environment strings */
#define SPAWN_MAX_IMAGE (16u << 20)  /* an ELF image passed by memory */

/*
 * SYS_SPAWN. The program comes from image (an ELF file the caller has read,
 * e.g. through the file service) when it is not NULL, else from the initrd
 * at path. path names the program either way (the task's name is its last
 * component). The new task's stack holds argc, argv and envp as on SysV.
 */
typedef struct spawn_args {
	const char *path;          /* program, e.g. "/bin/tester" */
	const char *const *argv;   /* NULL-terminated, argv[0] included */
	const char *const *envp;   /* NULL-terminated "NAME=value", or NULL */
	const void *image;         /* ELF image in the caller's memory, or NULL */
	uint64_t image_size;       /* its size in bytes (<= SPAWN_MAX_IMAGE) */
	uint32_t perms;            /* must be a subset of the caller's */
	uint32_t flags;            /* SPAWN_F_*; other bits must be 0 */
} spawn_args_t;

/*
 * Create the task stopped: its first thread starts only when someone
 * allowed to profile it (its parent) calls KBOX_TASK_START on its kbox,
 * so a profiler can open a session before the program runs.
 */
#define SPAWN_F_STOPPED 1u

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

/* SYS_THREAD_STATS: one thread of the caller's task (0 = itself). */
typedef struct thread_stats {
	thread_id_t id;
	uint32_t cpu;              /* CPU it runs on or last ran on */
	uint32_t priority;
	uint64_t user_ns;          /* time in user mode */
	uint64_t kernel_ns;        /* time in the kernel on its behalf */
	uint64_t switches;         /* times it was given a CPU */
} thread_stats_t;

/* SYS_SYSTEM_STATS: a few system-wide counts (monitoring has more). */
typedef struct system_stats {
	uint64_t frames_total;     /* usable RAM, 4 KiB frames */
	uint64_t frames_free;
	uint32_t cpus_online;
	uint32_t tasks;
	uint64_t tsc_hz;           /* cycle counter frequency */
} system_stats_t;

/* The main thread's stack: [USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_TOP). */
#define USER_STACK_TOP 0x00007fff00000000ul
#define USER_STACK_SIZE (8ul << 20)

#endif
