/*
 * Threads: kernel and user. Every thread has a kernel stack (with a guard
 * page), saved context, a state, a priority, a CPU and an affinity mask.
 *
 * States: READY (on a run queue or about to be), RUNNING (on a CPU),
 * SLEEPING (on a wait queue and/or a timer), ZOMBIE (exited and lingering
 * until switched away for good and joined).
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <abi/task.h>
#include <abi/wait.h>
#include <arch/thread.h>
#include <kernel/cpu.h>
#include <kernel/spinlock.h>
#include <kernel/ktimer.h>
#include <kernel/origin.h>
#include <kernel/types.h>
#include <kernel/waitq.h>
#include <lib/list.h>

#define THREAD_PRIO_LEVELS 16
#define THREAD_PRIO_DEFAULT 8
#define THREAD_KSTACK_PAGES 4
#define THREAD_NAME_MAX 32

typedef enum {
	THREAD_READY,
	THREAD_RUNNING,
	THREAD_SLEEPING,
	THREAD_ZOMBIE,
} thread_state_t;

struct task;
struct waitq;

/* Per-thread accounting (monitoring reads these; cycles of the TSC). */
typedef struct thread_acct {
	uint64_t user_cycles;
	uint64_t kernel_cycles;
	uint64_t last_switch_in;     /* TSC when it last got a CPU */
	uint64_t switches;           /* times it was switched in */
	uint64_t sys_in;             /* 1 + the syscall in progress; 0: none */
	uint64_t sys_k0;             /* kernel_cycles when it began */
	uint64_t off_cycles;         /* cycles switched out (from its first switch-in) */
	uint64_t off_by[WAIT_WHY_COUNT];  /* the same by the reason (wait_why) */
	uint64_t last_switch_out;    /* TSC when it last lost its CPU; 0: never */
} thread_acct_t;

typedef struct thread {
	thread_id_t id;
	char name[THREAD_NAME_MAX];
	struct task *task;
	spinlock_t lock;             /* state, on_cpu, wait fields */
	volatile thread_state_t state;
	volatile bool on_cpu;        /* still executing (switch not finished) */
	bool kernel;                 /* kernel thread: never enters user mode */
	uint8_t priority;            /* 0 lowest .. 15 highest */
	uint32_t cpu;                /* CPU it runs on or last ran on */
	int32_t rq_cpu;              /* run queue it waits on, -1 if none */
	uint64_t affinity;           /* allowed CPUs, bit per CPU id */
	uint32_t slice;              /* ticks left in its time slice */
	uint32_t failinj_hits;       /* failures injected into its calls (failinj.c) */
	uintptr_t kstack_top;
	arch_thread_t arch;          /* saved context, FPU state */
	list_node_t rq_node;         /* run queue */
	list_node_t task_node;       /* task's thread list */
	list_node_t all_node;        /* global thread list */
	list_node_t wait_node;       /* wait queue */
	struct waitq *waiting_on;
	errno_t wake_reason;         /* EOK, ETIMEOUT, EINTR */
	uint8_t wait_why;            /* WAIT_WHY_* of its wait now or its last one */
	uint64_t wait_task, wait_method;  /* WAIT_WHY_IPC: the callee and method */
	uint64_t call_id, call_task, call_method;  /* the last call it made (ipc_call) */
	/*
	 * Asleep in an IPC wait (ipc.c box_wait; its box locked): the
	 * filter (IPC_WAIT_* mode, the call id for ANSWER), and the call or
	 * answer a direct transfer handed it instead of queueing it.
	 */
	uint8_t ipc_wait_mode;
	bool ipc_handed_answer;
	uint64_t ipc_wait_only;
	struct call *ipc_handed;
	ktimer_t timer;              /* sleep / wait timeout */
	void (*entry)(void *);       /* kernel threads */
	void *arg;
	uintptr_t user_entry, user_stack, user_arg;
	long exit_value;
	volatile bool exited;        /* thread_exit() done; exit_value valid */
	uint32_t refs;               /* 1 while not reaped + 1 while joinable */
	bool join_claimed;           /* detached, or a joiner is on it */
	waitq_t joiners;             /* threads in thread_join() */
	thread_acct_t acct;
	origin_serve_t serve;        /* the IPC call it serves (origin.h) */
	struct cprof_stack *cprof_stack;  /* its kernel calls (kernel call profiling) */
	struct cprof_clock *cprof_clock;  /* its clock in its process's clock page */
} thread_t;

/*
 * Create a kernel thread running entry(arg) in the kernel task. It starts
 * READY on some CPU. Returns EOK and *out (may be NULL if the caller does
 * not want it; then the thread is detached), or ENOMEM.
 */
errno_t thread_create_kernel(const char *name, void (*entry)(void *), void *arg,
			     thread_t **out);

/* The same with a priority and an affinity mask set before it can run. */
errno_t thread_create_kernel_on(const char *name, void (*entry)(void *), void *arg,
				int priority, uint64_t affinity, thread_t **out);

/*
 * Create a user thread in task starting at entry with stack and arg (in rdi).
 * Returns EOK and *out, or ENOMEM/EINVAL, or ELIMIT (the task holds
 * LIMIT_THREADS thread structures, unjoined ones included).
 */
errno_t thread_create_user(struct task *task, uintptr_t entry, uintptr_t stack,
			   uintptr_t arg, thread_t **out);

/* As thread_create_user, but the thread is not started: sched_wakeup() it. */
errno_t thread_prepare_user(struct task *task, uintptr_t entry, uintptr_t stack,
			    uintptr_t arg, thread_t **out);

/* End the calling thread with value. Never returns. */
void thread_exit(long value) __noreturn;

/*
 * Wait for t (of the caller's task) to exit; *value gets its exit value.
 * Returns EOK, ESRCH (no such thread / already joined), EINVAL (itself),
 * or EINTR (the caller's task was killed).
 */
errno_t thread_join(thread_t *t, long *value);

/* Find a thread of task by id (no reference counting: task lock held). */
thread_t *thread_find(struct task *task, thread_id_t id);

/* The running thread of this CPU. */
static inline thread_t *thread_current(void)
{
	return cpu_current()->current;
}

/* Sleep at least ns nanoseconds. Returns EOK or EINTR (task killed). */
errno_t thread_sleep(uint64_t ns);

/*
 * Free a finished thread's stack and memory (scheduler, after switch,
 * interrupts off); the task's last thread queues the task for the reaper
 * (<kernel/reaper.h>), which frees its space with interrupts on.
 */
void thread_reap(thread_t *t);

/* Take a reference to t (join: held while waiting). */
void thread_ref(thread_t *t);

/* Drop a reference of t (task teardown, join); the last one frees it. */
void thread_unref(thread_t *t);

/*
 * Call fn for every thread (kernel and user) with the thread list locked
 * and interrupts off: fn must not sleep or take the thread list lock.
 */
void thread_foreach(void (*fn)(thread_t *t, void *ctx), void *ctx);

/* Nobody will join t: drop the joinable reference. */
void thread_detach(thread_t *t);

/* First code of every new thread (arch entry stub calls it). */
void thread_bootstrap(void) __noreturn;

/* Boot: make the running boot code thread 0 of the kernel task on CPU id. */
void thread_init_boot(uint32_t cpu);

#endif
