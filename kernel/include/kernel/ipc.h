/*
 * Kernel IPC: answerboxes, phones and calls (see abi/ipc.h for the model).
 *
 * Every task has one answerbox (embedded in task_t) holding incoming calls
 * and notifications, answers to its own calls, and the calls it received
 * but has not answered yet ("dispatched"). A phone holds a reference to the
 * task whose box it reaches, so the box outlives the task's death: calls
 * into a closed box are answered with EHANGUP at once.
 *
 * Lock order: a box lock is never held while taking another box's lock;
 * task->ipc.phones_lock → box lock.
 */
#ifndef KERNEL_IPC_H
#define KERNEL_IPC_H

#include <abi/ipc.h>
#include <kernel/spinlock.h>
#include <kernel/waitq.h>
#include <lib/list.h>

struct task;

typedef struct answerbox {
	waitq_t wq;                 /* wq.lock is the box lock */
	struct task *task;          /* owner (for kboxes: the server task 0) */
	list_t calls;               /* incoming calls and notifications */
	list_t answers;             /* answers to the owner's calls */
	list_t dispatched;          /* received, not yet answered */
	uint32_t ncalls;            /* calls + dispatched (LIMIT_BOX_CALLS) */
	bool closed;
} answerbox_t;

struct call;

typedef struct phone {
	struct task *target;        /* referenced; NULL when free */
	struct task *kbox_of;       /* a kbox phone: whose kernel box */
	struct call *bye;           /* a kbox phone: its hang-up notice, made at connect */
	bool slammed;               /* target died: calls EHANGUP, slot kept until hung up */
	uint32_t outstanding;       /* unanswered calls of this connection */
	uint64_t conn;              /* connection id the callee sees (unique) */
} phone_t;

typedef struct ipc_counters {
	uint64_t calls_sent, calls_received;
	uint64_t answers_sent, answers_received;
	uint64_t irq_notifications, forwarded;
} ipc_counters_t;

typedef struct task_ipc {
	answerbox_t box;
	spinlock_t phones_lock;
	bool dead;                  /* cleaned up: no new phones (phones_lock) */
	uint32_t unread;            /* calls sent, answer not read (phones_lock) */
	phone_t phones[IPC_MAX_PHONES];
	ipc_counters_t counters;
} task_ipc_t;

/* Set up a task's IPC state; phone 0 to the naming service if one runs. */
void ipc_task_init(struct task *t);
/* A dying task: close its box (EHANGUP for pending calls), hang up its phones. */
void ipc_task_cleanup(struct task *t);
/* The task that is the naming service from now on (its children get phone 0). */
void ipc_set_naming_service(struct task *t);

/*
 * System call bodies (kernel/ipc/sys_ipc.c): values >= 0 or -errno.
 * waits: the caller waits for the answer next (SYS_IPC_CALL_SYNC), so a
 * server thread waiting for calls on this CPU gets it by a hand-off
 * (sched_wakeup_sync). ipc_call gives -ELIMIT when the phone has IPC_PHONE_LIMIT calls whose
 * answers are unread, the task LIMIT_BOX_ANSWERS, or the target's box
 * LIMIT_BOX_CALLS calls queued or unanswered.
 */
int64_t ipc_call(int phone, const ipc_msg_t *msg, bool waits);
/*
 * Take the next event (see abi/ipc.h filters) and copy it to the user
 * buffer uev. EOK, EAGAIN, ETIMEOUT, EINTR, or EFAULT when the copy
 * failed: then the event is back at the head of the box, not lost.
 */
errno_t ipc_wait(void *uev, uint64_t timeout_ns, unsigned flags, ipc_callid_t only);
/*
 * SYS_IPC_CALL_SYNC's body: ipc_call(phone, msg, waits), then ipc_wait
 * for its answer into uev. 0: the answer is in uev; the call id (> 0):
 * the call was made, the wait failed; -errno: no call was made.
 */
int64_t ipc_call_wait(int phone, const ipc_msg_t *msg, void *uev, uint64_t timeout_ns);
/*
 * SYS_IPC_CALL_SHORT's body: ipc_call_wait with the answer into the
 * kernel's *ans instead of a user event, so nothing can fault. 0: *ans
 * is the answer; the call id (> 0) or -errno as ipc_call_wait's.
 */
int64_t ipc_call_short(int phone, const ipc_msg_t *msg, uint64_t timeout_ns, ipc_msg_t *ans);
/*
 * SYS_IPC_ANSWER_WAIT's body: ipc_answer_call(id, ans, words only), then
 * ipc_wait(uev, timeout_ns, flags, 0). -errno: nothing answered; else
 * the wait's errno (EOK: the next event is in uev).
 */
int64_t ipc_answer_wait(ipc_callid_t id, const ipc_msg_t *ans, void *uev, uint64_t timeout_ns,
			unsigned flags);
/*
 * Answer call id. EOK (then *result is what SYS_IPC_ANSWER returns: 0, a
 * new phone for CONNECT_TO_ME, -EFAULT when my data buffer was bad and the
 * call is still mine to answer, -EIO when the caller's was), ENOENT, or
 * EINVAL when words_only and the call is a system method (still mine):
 * a user method's answer is its words alone, and *result is then 0.
 */
errno_t ipc_answer_call(ipc_callid_t id, const ipc_msg_t *answer, bool words_only,
			int64_t *result);
errno_t ipc_forward(ipc_callid_t id, int phone, uint64_t method, uint64_t arg0);

/*
 * The permissions of the task that made call id (the original caller of a
 * forwarded call), a call the current task received and has not answered
 * yet: EOK and *perms, or ENOENT (no such call, or a notification).
 */
errno_t ipc_caller_perms(ipc_callid_t id, uint32_t *perms);
errno_t ipc_hangup(int phone);
/*
 * A phone to task task_id's kernel answerbox: the phone, or -ESRCH,
 * -EPERM, -ELIMIT, -EHANGUP, -ENOMEM (its hang-up notice is made now, so
 * that hanging up, which must close the connection after its queued
 * calls, never needs memory).
 */
int64_t ipc_connect_kbox(uint64_t task_id);

/*
 * Queue a notification on t's box (IRQ context allowed). EOK, ENOMEM,
 * EHANGUP, or ELIMIT (the box holds LIMIT_BOX_CALLS calls already).
 */
errno_t ipc_notify(struct task *t, uint64_t method, uint64_t a0, uint64_t a1);

/* Drop t's IRQ subscriptions (masking the lines). */
void irq_task_cleanup(struct task *t);

/* t's usage: calls in its box, its calls with unread answers. */
void ipc_task_usage(struct task *t, uint32_t *box_calls, uint32_t *unread);

#endif
