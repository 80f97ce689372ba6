/*
 * IPC for user programs (the kernel model is in <abi/ipc.h>): typed
 * wrappers for the six IPC system calls, synchronous calls, data transfer
 * helpers, the naming-service protocol and a dispatch loop for servers.
 *
 * Like <vernier.h>, every fallible function returns an errno_t (EOK or a
 * positive abi/errno.h code) and delivers results through pointers that
 * may be NULL when the result is not wanted.
 *
 * Threads: every helper here waits only for the answer to its own call
 * (IPC_WAIT_ANSWER) or only for calls (IPC_WAIT_CALLS), so several threads
 * of a task may make synchronous calls and serve calls at the same time.
 * Do not wait with IPC_WAIT_ALL in a task whose other threads make calls:
 * it would take their answers.
 */
#ifndef _IPC_H
#define _IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/ipc.h>
#include <abi/task.h>

/* ------------------------------------------------------ system calls */

/* Send msg on phone; the call id (for waiting) goes to *id. */
errno_t sys_ipc_call(int phone, const ipc_msg_t *msg, ipc_callid_t *id);
/*
 * Send msg on phone and wait (timeout_ns, 0 = forever) for its answer
 * (SYS_IPC_CALL_SYNC, see abi/ipc.h): EOK, *id 0 and the answer event in
 * *ev; EOK and the call id in *id when the call was made but its answer
 * is still to be waited for (the wait failed); else the error of sending.
 */
errno_t sys_ipc_call_sync(int phone, const ipc_msg_t *msg, ipc_event_t *ev,
			  uint64_t timeout_ns, ipc_callid_t *id);
/*
 * The same with the message in registers (SYS_IPC_CALL_SHORT): msg's
 * method and args 0..2 (args 3 and 4 go as 0); EOK, *id 0 and the answer
 * in *answer; EOK and the call id in *id (the wait failed); else the
 * error of sending. *answer (which may be msg) holds the registers' words
 * on the way in: without an answer they are not one. ipc_call_sync uses
 * it when args 3 and 4 are 0.
 */
errno_t sys_ipc_call_short(int phone, const ipc_msg_t *msg, ipc_msg_t *answer,
			   uint64_t timeout_ns, ipc_callid_t *id);
/*
 * Wait for an event (flags: IPC_WAIT_ALL, IPC_WAIT_CALLS or
 * IPC_WAIT_ANSWER with callid, optionally | IPC_WAIT_NONBLOCK) for at most
 * timeout_ns (0: forever). ETIMEOUT, EAGAIN (non-blocking, nothing there),
 * EINTR (the task is being killed).
 */
errno_t sys_ipc_wait(ipc_event_t *ev, uint64_t timeout_ns, unsigned flags,
		     ipc_callid_t callid);
/*
 * Answer call callid with answer (answer->method is the errno_t result).
 * Answering IPC_M_CONNECT_TO_ME with EOK connects a new phone of ours to
 * the caller; its index goes to *phone (may be NULL; 0 for other calls,
 * -1 on error).
 * EFAULT: our data buffer was bad, the call is still ours to answer.
 * EIO: the caller's data buffer was bad; the caller got EFAULT.
 * ENOENT: no such unanswered call.
 */
errno_t sys_ipc_answer(ipc_callid_t callid, const ipc_msg_t *answer,
		       int *phone);
/*
 * Answer call callid of a user method (>= IPC_M_USER: words only) with
 * answer, then wait as sys_ipc_wait (no call id) into ev, in one system
 * call (SYS_IPC_ANSWER_WAIT, see abi/ipc.h). *answered (may be NULL) says
 * whether the answer went; the result is the answer's error when it did
 * not (EINVAL: a system method's call, ENOENT, EFAULT), else the wait's.
 */
errno_t sys_ipc_answer_wait(ipc_callid_t callid, const ipc_msg_t *answer, ipc_event_t *ev,
			    uint64_t timeout_ns, unsigned flags, bool *answered);
/*
 * Pass call callid on through phone; with method != 0 the call's method
 * becomes method and its args[0] arg0. The answer goes to the original
 * caller. On error the call is still ours.
 */
errno_t sys_ipc_forward(ipc_callid_t callid, int phone, uint64_t method,
			uint64_t arg0);
/*
 * The permissions (PERM_*) of the task that made call callid, a call we
 * received and have not answered (for a forwarded call, the original
 * caller's): EOK and *perms, or ENOENT. Servers check their clients'
 * rights with it instead of using their own.
 */
errno_t sys_ipc_caller_perms(ipc_callid_t callid, uint32_t *perms);
/* Disconnect phone; the other side gets an IPC_M_PHONE_HUNGUP notification. */
errno_t sys_ipc_hangup(int phone);
/*
 * Connect a phone to task's kernel answerbox (KBOX_* methods); needs task
 * to be our child, or PERM_PROFILE. The phone goes to *phone.
 */
errno_t sys_ipc_connect_kbox(task_id_t task, int *phone);

/* ------------------------------------------------------ calls */

/*
 * Send method(a0..a4) on phone and wait for its answer, which goes to
 * *answer (if not NULL; answer->method holds the callee's result). Returns
 * the error of sending or waiting, else the callee's result.
 */
errno_t ipc_call_sync(int phone, uint64_t method, uint64_t a0, uint64_t a1,
		      uint64_t a2, uint64_t a3, uint64_t a4, ipc_msg_t *answer);
/* Send method(a0..a4) on phone without waiting; the call id goes to *id. */
errno_t ipc_call_async(int phone, uint64_t method, uint64_t a0, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, ipc_callid_t *id);
/*
 * Wait (timeout_ns, 0 = forever) for the answer to call id sent earlier;
 * as ipc_call_sync, the error of waiting, else the callee's result.
 */
errno_t ipc_wait_answer(ipc_callid_t id, uint64_t timeout_ns, ipc_msg_t *answer);
/* Answer call callid with retval and a0..a4. */
errno_t ipc_answer(ipc_callid_t callid, errno_t retval, uint64_t a0,
		   uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4);
/* Answer call callid with retval alone. */
errno_t ipc_answer_0(ipc_callid_t callid, errno_t retval);
/*
 * ipc_answer() as an ipc_server_loop() handler's last act for the call it
 * handles (a user method's): EOK at once, and the loop sends the answer
 * with its next wait, in one system call (SYS_IPC_ANSWER_WAIT). The
 * caller gets it only when the handler returns, so nothing after it may
 * wait (for the caller above all) or exit. Elsewhere, or for another
 * call, it is ipc_answer().
 */
errno_t ipc_answer_last(ipc_callid_t callid, errno_t retval, uint64_t a0,
			uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4);

/* ------------------------------------------------------ data transfer */

/*
 * Client side: copy len bytes (at most IPC_DATA_MAX) of buf to the server
 * behind phone (IPC_M_DATA_WRITE) and wait. The server may accept fewer
 * bytes; their count goes to *done (if not NULL).
 */
errno_t ipc_data_write(int phone, const void *buf, size_t len);
errno_t ipc_data_write_n(int phone, const void *buf, size_t len, size_t *done);
/*
 * Client side: ask the server behind phone for up to len bytes
 * (IPC_M_DATA_READ) into buf and wait; the count copied goes to *got.
 */
errno_t ipc_data_read(int phone, void *buf, size_t len, size_t *got);
/*
 * Server side: accept the IPC_M_DATA_WRITE call ev into dst (at most
 * maxlen bytes); the count received goes to *len. The event, not just its
 * call id, is needed to know the caller's size. EINVAL: ev is not a
 * DATA_WRITE call (nothing answered). EFAULT: dst is bad, the call is
 * still ours to answer. EIO: the caller's buffer was bad (it got EFAULT).
 */
errno_t ipc_data_write_accept(const ipc_event_t *ev, void *dst, size_t maxlen,
			      size_t *len);
/*
 * Server side: answer the IPC_M_DATA_READ call ev with len bytes of src
 * (the caller gets min(len, its size)). Errors as ipc_data_write_accept.
 */
errno_t ipc_data_read_answer(const ipc_event_t *ev, const void *src, size_t len);

/* ------------------------------------------------------ naming service */

/*
 * Service names travel in the five argument words of IPC_M_CONNECT_TO_ME
 * and IPC_M_CONNECT_ME_TO sent on phone 0 (IPC_NS_PHONE): byte i of the
 * name is bits 8*(i%8)..8*(i%8)+7 of args[i/8] (little-endian bytes),
 * followed by zero bytes up to byte 39. A name has 1..IPC_NAME_MAX bytes,
 * none of them NUL, so byte 39 is always zero.
 */
#define IPC_NAME_MAX 39

/*
 * Methods from IPC_M_LIBC up are reserved for libc protocols; programs'
 * own protocols use IPC_M_USER .. IPC_M_LIBC - 1.
 */
#define IPC_M_LIBC (1ull << 48)
/*
 * The naming service sends this call once on each phone it gets from a
 * registration and never expects it answered: when the server dies the
 * kernel answers it EHANGUP, and the naming service forgets the server.
 * ipc_server_loop() keeps it away from handlers; servers with their own
 * loop should leave it unanswered too.
 */
#define NS_M_WATCH (IPC_M_LIBC + 1)
/* To the naming service: give up my registration of the name in the args. */
#define NS_M_RELEASE (IPC_M_LIBC + 2)
/* To the naming service: NS_M_STATUS(task), see ns_status(). */
#define NS_M_STATUS (IPC_M_LIBC + 3)

/* The naming service's usage as one task sees it (NS_M_STATUS). */
typedef struct ns_status {
	unsigned used;             /* slots taken (held names too) */
	unsigned task_names;       /* names the task serves */
	unsigned tree_names;       /* names (held ones too) of its tree */
	task_id_t tree;            /* the tree's root (task_quota_root) */
	unsigned room;             /* slots the task's tree may still take */
} ns_status_t;
/* The naming service's usage for task (0: the caller) into *st. */
errno_t ns_status(task_id_t task, ns_status_t *st);

/* Pack name into args as above; EINVAL if it is empty or too long. */
errno_t ipc_name_pack(const char *name, uint64_t args[IPC_ARGS]);
/*
 * Unpack a name from args into out (IPC_NAME_MAX + 1 bytes); EINVAL if the
 * words do not hold a well-formed name.
 */
errno_t ipc_name_unpack(const uint64_t args[IPC_ARGS], char *out);

/*
 * Register the calling task as the server of name with the naming service
 * (which then forwards IPC_M_CONNECT_ME_TO calls for name to this task).
 * EEXIST: a live task already serves name; ENOENT: no naming service;
 * EPERM: its server died without releasing it and we may not take it
 * over; ELIMIT: we serve LIMIT_NS_NAMES names already, or ns is full.
 */
errno_t service_register(const char *name);
/* Give up our registration of name (anyone may take it then). ENOENT: not ours. */
errno_t service_release(const char *name);
/*
 * Connect a new phone to the server of name; its index goes to *phone.
 * ENOENT: nobody serves name (or there is no naming service).
 */
errno_t service_connect(const char *name, int *phone);
/*
 * service_connect, retrying while the name is not registered, for up to
 * timeout_ns (0: forever); ETIMEOUT if it never appeared.
 */
errno_t service_connect_wait(const char *name, uint64_t timeout_ns, int *phone);

/* ------------------------------------------------------ servers */

/*
 * A server's event handler: ev is an IPC_EV_CALL (answer it, now or later,
 * with ipc_answer & co., or forward it) or an IPC_EV_NOTIFY (do not answer;
 * IPC_M_PHONE_HUNGUP has the connection id in args[0] and the task that
 * hung up in args[1]). Return 0 to go on, anything else to end the loop.
 */
typedef int (*ipc_handler_t)(void *ctx, const ipc_event_t *ev);

/*
 * Wait for calls and notifications (IPC_WAIT_CALLS) and hand each to
 * handler(ctx, ev). A server accepts clients by answering the
 * IPC_M_CONNECT_ME_TO calls the naming service forwards with EOK.
 * Returns EOK when the handler asks to stop, or the error that ended the
 * wait (EINTR: the task is being killed). Several threads may run it on
 * the same task: each call goes to one of them. A handler's
 * ipc_answer_last() of its call goes with the loop's next wait
 * (SYS_IPC_ANSWER_WAIT: one system call for both); up to 8 loops at once
 * do so, more answer at once.
 */
errno_t ipc_server_loop(ipc_handler_t handler, void *ctx);

#endif
