/*
 * IPC between tasks (model: HelenOS). A task owns phones; a phone is
 * connected to another task's answerbox. A call carries a method and five
 * argument words; every call is answered with a return value (an errno_t)
 * and five words. Calls are asynchronous: sending returns a call id at
 * once, the answer arrives later as an event on the caller's answerbox.
 *
 * SYS_IPC_CALL_SYNC is SYS_IPC_CALL followed by SYS_IPC_WAIT (with a
 * timeout, 0: none) for that call's answer in one system call (the common
 * synchronous call: one kernel entry fewer, and a server thread waiting
 * on the caller's CPU gets the CPU directly). It returns 0 with the
 * answer event in its buffer; the call id (> 0) when the call was made
 * but the wait failed (ETIMEOUT, EFAULT on the buffer, EINTR), so the
 * answer is still to be waited for by id and nothing is lost; or -errno
 * when no call was made.
 *
 * SYS_IPC_CALL_SHORT is SYS_IPC_CALL_SYNC with the message in registers
 * (phone, method, args 0..2, timeout; args 3 and 4 are 0) and the answer
 * back in them: 0 with the answer's method and args 0..4 in the six
 * argument registers (rdi, rsi, rdx, r10, r8, r9 on x86-64); the call id
 * or -errno as SYS_IPC_CALL_SYNC's, the registers then unchanged. No user
 * memory is read or written.
 *
 * SYS_IPC_ANSWER_WAIT is a server's SYS_IPC_ANSWER of a user method's
 * call (words only: a system method gives EINVAL) followed by a
 * SYS_IPC_WAIT (timeout, flags; no call id) in one system call. It
 * returns 0 with the next event in its buffer; -errno when nothing was
 * answered (no wait either); errno (> 0) when the answer went and the
 * wait failed.
 *
 * Forwarding may change a user method (>= IPC_M_USER) into another user
 * method, never into or out of a system method (EPERM).
 *
 * Every task is born with phone 0 connected to the naming service (if one
 * runs). Servers register with IPC_M_CONNECT_TO_ME; clients get connected
 * with IPC_M_CONNECT_ME_TO, which the naming service forwards to the server.
 */
#ifndef ABI_IPC_H
#define ABI_IPC_H

#include <abi/task.h>
#include <stdint.h>

#define IPC_ARGS 5
#define IPC_MAX_PHONES 64          /* per task */
#define IPC_PHONE_LIMIT 64         /* outstanding calls per phone (ELIMIT beyond) */
#define IPC_DATA_MAX (64 * 1024)   /* one DATA_WRITE / DATA_READ */
#define IPC_NS_PHONE 0

typedef uint64_t ipc_callid_t;

typedef struct ipc_msg {
	uint64_t method;               /* for answers: the return value */
	uint64_t args[IPC_ARGS];
} ipc_msg_t;

/* What SYS_IPC_WAIT delivers. */
#define IPC_EV_CALL 1              /* a call to answer (callid) */
#define IPC_EV_ANSWER 2            /* the answer to our call callid */
#define IPC_EV_NOTIFY 3            /* a notification: no answer expected */

typedef struct ipc_event {
	uint32_t type;                 /* IPC_EV_* */
	uint32_t reserved;
	ipc_callid_t callid;
	task_id_t sender;              /* calls: the (original) calling task */
	uint64_t conn;                 /* calls: id of the connection it came on */
	ipc_msg_t msg;                 /* calls: method+args; answers: retval+args */
} ipc_event_t;

/* SYS_IPC_WAIT filters (flags). */
#define IPC_WAIT_ALL 0             /* anything */
#define IPC_WAIT_CALLS 1           /* calls and notifications only */
#define IPC_WAIT_ANSWER 2          /* only the answer to the callid given */
#define IPC_WAIT_NONBLOCK 0x100    /* EAGAIN instead of sleeping */

/* System methods (below IPC_M_USER). */
#define IPC_M_PHONE_HUNGUP 1       /* notify: the caller hung up conn */
#define IPC_M_CONNECT_TO_ME 2      /* register: answer EOK → the receiver gets a phone to us (SYS_IPC_ANSWER's result) */
#define IPC_M_CONNECT_ME_TO 3      /* connect: answer EOK → caller gets a phone (answer args[4]) */
#define IPC_M_DATA_WRITE 4         /* args: src, size; answer EOK with args dst, size */
#define IPC_M_DATA_READ 5          /* args: dst, size; answer EOK with args src, size */
#define IPC_M_IRQ 6                /* notify: args[0] = irq, args[1] = count */
#define IPC_M_USER 1024

/* kbox methods (calls to a task's kernel answerbox). */
#define KBOX_TASK_INFO (IPC_M_USER + 1)   /* answer: args id, threads, perms, parent */
#define KBOX_TASK_START (IPC_M_USER + 2)  /* start a task spawned with SPAWN_F_STOPPED (EINVAL if not stopped) */

#endif
