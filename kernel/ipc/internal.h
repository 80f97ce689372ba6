/*
 * Inside kernel/ipc: the call structure and the box and call helpers that
 * the IPC core (ipc.c) and the kernel answerbox (kbox.c) share.
 */
#ifndef KERNEL_IPC_INTERNAL_H
#define KERNEL_IPC_INTERNAL_H

#include <kernel/ipc.h>
#include <kernel/origin.h>
#include <kernel/task.h>

typedef struct call {
	list_node_t node;
	ipc_callid_t id;
	uint32_t type;              /* IPC_EV_CALL or IPC_EV_NOTIFY */
	task_t *caller;             /* referenced; NULL for notifications */
	int phone;                  /* the caller's phone */
	bool taking;                /* dispatched, its waiter not done with it (box lock) */
	const struct thread *by;    /* the calling thread: compared, never followed */
	task_t *kbox_of;            /* calls to a kbox: whose */
	uint64_t conn;
	task_id_t sender;
	ipc_msg_t msg;
	ipc_msg_t answer;
	origin_t origin;            /* whose work it is (referenced; origin.h); last */
} call_t;

/* The one box behind every task's kbox, served by the kbox thread (kbox.c). */
extern answerbox_t kbox_server;

/* An empty, open box owned by owner. */
void box_init(answerbox_t *b, task_t *owner);

/*
 * Append c to one of b's lists and wake its waiters, to (if not NULL; or
 * WAITQ_FIRST) with a hand-off (waitq_wake_all_locked_to): its waker is
 * about to block. EOK, EHANGUP (the box is closed) or ELIMIT (limited, c
 * is a call and the box is full).
 */
errno_t box_put(answerbox_t *b, list_t *which_of_box, call_t *c, bool limited,
		const struct thread *to);

/* One call fewer held by b (box locked). */
void box_uncount(answerbox_t *b);

/* A new call from caller's phone (a notification if caller is NULL); NULL: no memory. */
call_t *call_new(task_t *caller, int phone, const ipc_msg_t *msg);

/* Free c and drop its task references. */
void call_free(call_t *c);

/* Give c's answer to its caller (or drop it if the caller is gone). */
void call_deliver_answer(call_t *c);

/*
 * A kbox connection's hang-up notice, made when it is connected so that
 * hanging up never needs memory; NULL: no memory.
 */
call_t *kbox_bye_new(void);

/*
 * Tell the kbox thread, with the notice bye (kbox_bye_new), that
 * connection conn (hung up by task by) is gone: queued behind the
 * connection's earlier calls, so it is served after them.
 */
void kbox_hangup(call_t *bye, uint64_t conn, task_id_t by);

#endif
