/*
 * Tasks: an address space, a name, a 64-bit id that is never reused,
 * threads, a parent, an exit status and permissions. Task 0 is the kernel
 * (its threads are the idle threads and kernel workers).
 *
 * Lock order: task_table_lock → task->lock → thread->lock.
 */
#ifndef KERNEL_TASK_H
#define KERNEL_TASK_H

#include <abi/task.h>
#include <kernel/ipc.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/waitq.h>
#include <lib/list.h>

struct vm_space;
struct binary;

typedef enum {
	TASK_ALIVE,
	TASK_ZOMBIE,     /* every thread gone; status waits for the parent */
} task_state_t;

/* Per-task accounting, folded in from exited threads (monitoring). */
typedef struct task_acct {
	uint64_t user_cycles;
	uint64_t kernel_cycles;
	uint64_t imposed_cycles;     /* others served its calls (origin.h; atomic) */
	uint64_t served_cycles;      /* it served others' calls (atomic) */
} task_acct_t;

/* Ports a task can be given are below this (platform_ioport_grantable()). */
#define IOPORT_USER_LIMIT 0x400

typedef struct task {
	task_id_t id;
	char name[TASK_NAME_MAX];
	spinlock_t lock;
	task_state_t state;
	uint32_t perms;
	struct task *parent;
	list_t children;
	list_node_t child_node;
	list_node_t all_node;
	list_node_t reap_node;       /* on the reaper's queue (reaper.c) */
	list_t threads;
	uint32_t nthreads;          /* threads not yet exited */
	uint32_t thread_structs;    /* thread structures held (LIMIT_THREADS) */
	struct task *tree;          /* root of its task tree (referenced; itself for a root) */
	uint32_t tree_tasks;        /* a root: tasks of its tree not yet freed */
	uint32_t nunreaped;         /* threads not yet reaped (switched out for good) */
	struct vm_space *space;     /* NULL for the kernel task */
	struct binary *binary;      /* the program it runs (symbols) */
	struct binquota *binq;      /* its quota tree's program cache charge (referenced) */
	struct thread *stopped;     /* SPAWN_F_STOPPED: main thread not yet started */
	volatile bool killed;
	int status;                 /* exit status (abi/task.h encoding) */
	waitq_t child_exit;         /* parent waits here for children */
	uint32_t refs;              /* references besides the table's */
	task_acct_t acct;
	task_ipc_t ipc;
	struct cprof_task *cprof;   /* call profiler registration (cprof_lock) */
	/* Ports opened by SYS_IOPORT_ALLOW, 1 bit = allowed (set and cleared atomically). */
	uint8_t ioports[IOPORT_USER_LIMIT / 8];
	bool ioports_any;           /* some bit is set: load them on a switch */
	/* Unprivileged console text (syscall.c, ucon_lock): window start (ns), bytes in it. */
	uint64_t ucon_window, ucon_used;
} task_t;

extern task_t kernel_task;

/* Initialise the task table with the kernel task. */
void task_init(void);

/* What task_spawn() starts. */
typedef struct task_spawn_req {
	const char *path;            /* program name; the initrd file if no image */
	const char *const *argv;     /* NULL-terminated */
	const char *const *envp;     /* NULL-terminated, or NULL for none */
	const void *image;           /* a kernel copy of the ELF file, or NULL */
	size_t image_size;
	uint32_t perms;              /* a subset of the parent's */
	uint32_t flags;              /* SPAWN_F_* */
} task_spawn_req_t;

/*
 * Start a task running req's program with its arguments and environment
 * as a child of parent (NULL: the kernel). The image is checked and its
 * symbols cached (see binary.h); the caller keeps ownership of
 * req->image. Returns EOK and the id, EPERM (perms not the parent's),
 * ENOENT, ENOEXEC, E2BIG, ENOMEM or ELIMIT (the tree is full).
 */
errno_t task_spawn(const task_spawn_req_t *req, task_t *parent, task_id_t *id);

/*
 * Call fn for every task in the table, with the table locked and
 * interrupts off: fn must not sleep or take the table lock (it may take
 * the task's lock).
 */
void task_foreach(void (*fn)(task_t *t, void *ctx), void *ctx);

/*
 * t's user and kernel cycles: its exited threads' and its live ones',
 * not counting idle threads (their time is the CPUs' idle time).
 */
void task_cycles(task_t *t, uint64_t *user, uint64_t *kernel);

/* The calling thread's task. */
static inline task_t *task_current(void)
{
	return thread_current()->task;
}

/*
 * Look a task up by id and take a reference (task_unref() releases it).
 * Returns NULL if there is none (or it has been reaped).
 */
task_t *task_get(task_id_t id);

/* Take a reference to t (the caller already holds one, or the table lock). */
static inline void task_ref(task_t *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

/* Drop a reference; the last one (after reaping) frees t. */
void task_unref(task_t *t);

/*
 * The id of t's parent (0 for the kernel task), read with the table
 * locked: unlocked, the parent may be reaped and freed under the reader.
 * Takes task_table_lock, so not from task_foreach's fn.
 */
task_id_t task_parent_id(task_t *t);

/*
 * Kill t: every thread exits at its next kernel exit or wake-up. status is
 * the exit status to report. Returns EOK, or ESRCH if t was already
 * dead (a zombie: its status is left as it was).
 */
errno_t task_kill(task_t *t, int status);

/* Start the main thread of a task spawned stopped. EOK, or EINVAL if it is not stopped. */
errno_t task_start(task_t *t);

/*
 * Wait for a child of parent to finish (id, or WAIT_ANY): returns EOK with
 * its id and status and reaps it; ESRCH if no such child; EAGAIN with
 * WAIT_NOHANG when none has finished; EINTR if the caller was killed.
 */
errno_t task_wait(task_t *parent, task_id_t id, unsigned flags,
		  task_id_t *out_id, int *status);

/* End the calling task with status (SYS_EXIT). Never returns. */
void task_exit(int status) __noreturn;

/* A reference to t's address space (vm_space_put() it), or NULL if gone. */
struct vm_space *task_space_get(task_t *t);

/*
 * Free t's space and its IPC, profiler and console state, then make it a
 * zombie and wake its parent (an orphan is freed). The reaper thread
 * calls it, interrupts on, once t's last thread was switched away for
 * good; no lock held.
 */
void task_release_space(task_t *t);

/* t's tree's root and the number of tasks in the tree. */
void task_tree_usage(task_t *t, uint64_t *root_id, uint32_t *tasks);
/* Number of live tasks (tests). */
size_t task_count(void);

#endif
