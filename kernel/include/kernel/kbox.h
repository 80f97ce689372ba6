/*
 * The kernel answerbox (kbox): every task has one, reached through
 * SYS_IPC_CONNECT_KBOX, and one kernel thread serves them all. It answers
 * the task methods (KBOX_TASK_*) itself; a subsystem that offers more
 * (the profiler: KBOX_PROF_*) registers a range of methods at boot, so
 * the kbox knows no subsystem by name.
 */
#ifndef KERNEL_KBOX_H
#define KERNEL_KBOX_H

#include <abi/ipc.h>
#include <kernel/types.h>

struct call;
struct task;

typedef struct kbox_methods {
	const char *name;
	uint64_t first, last;               /* the methods [first, last] */
	/* Serve c (a method in range); answer it now or later with kcall_answer. */
	void (*serve)(struct call *c);
	/* Connection conn hung up, after its earlier calls were served (or NULL). */
	void (*closed)(uint64_t conn);
} kbox_methods_t;

/* Register m (static storage) at boot. Panics if the table is full. */
void kbox_register(const kbox_methods_t *m);

/*
 * For the services answering kbox calls: a call's message, calling task,
 * kbox task and connection, and its answer (args: IPC_ARGS words or
 * NULL). The service owns the call until it answers.
 */
const ipc_msg_t *kcall_msg(const struct call *c);
struct task *kcall_caller(const struct call *c);
struct task *kcall_kbox_task(const struct call *c);
uint64_t kcall_conn(const struct call *c);
void kcall_answer(struct call *c, errno_t rc, const uint64_t *args);

/* Start the kernel thread that serves every task's kbox. */
void kbox_init(void);

#endif
