/* IPC system calls: argument copying and validation around kernel/ipc. */
#include <abi/syscall.h>
#include <arch/interrupt.h>
#include <kernel/ipc.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

int64_t sys_ipc_call(SYSCALL_ARGS)
{
	ipc_msg_t m;

	if (copy_from_user(&m, (const void *)a1, sizeof(m)) != EOK)
		return -EFAULT;
	return ipc_call((int)a0, &m, false);
}

/*
 * SYS_IPC_CALL_SYNC (phone, msg, ev, timeout_ns): SYS_IPC_CALL, then
 * SYS_IPC_WAIT for its answer into ev, in one system call; the call hands the
 * CPU to a server thread waiting on this CPU (ipc_call's waits). 0: the
 * answer is in ev; the call id (> 0): the call was made but the wait
 * failed (ETIMEOUT, EFAULT, EINTR), its answer is to be waited for by id (a bad
 * ev ends there: the same as SYS_IPC_CALL and a SYS_IPC_WAIT into it);
 * -errno: no call was made.
 */
int64_t sys_ipc_call_sync(SYSCALL_ARGS)
{
	ipc_msg_t m;

	if (copy_from_user(&m, (const void *)a1, sizeof(m)) != EOK)
		return -EFAULT;
	return ipc_call_wait((int)a0, &m, (void *)a2, a3);
}

_Static_assert(sizeof(ipc_msg_t) == 6 * sizeof(uint64_t), "an answer is six words: the registers of syscall_set_words");

/*
 * SYS_IPC_CALL_SHORT (phone, method, a0, a1, a2, timeout_ns): SYS_IPC_CALL_SYNC
 * with the message in registers (args 3 and 4 are 0) and no user memory
 * touched. 0: the answer's method (its return value) and its five words
 * come back in the six argument registers (syscall_set_words); the call
 * id (> 0): the call was made, the wait failed (ETIMEOUT, EINTR), its
 * answer is to be waited for by id; -errno: no call was made. The
 * registers are the caller's own unless it returns 0.
 */
int64_t sys_ipc_call_short(SYSCALL_ARGS)
{
	ipc_msg_t m = { .method = a1, .args = { a2, a3, a4 } }, ans;

	if (a0 >= IPC_MAX_PHONES)
		return -EINVAL;
	int64_t r = ipc_call_short((int)a0, &m, a5, &ans);
	if (r == 0)
		syscall_set_words(thread_current()->kstack_top, (const uint64_t *)&ans);
	return r;
}

int64_t sys_ipc_wait(SYSCALL_ARGS)
{
	static const ipc_event_t none;
	unsigned flags = (unsigned)a2;

	if ((flags & 0xff) > IPC_WAIT_ANSWER || (flags & ~0x1ffu))
		return -EINVAL;
	if (copy_to_user((void *)a0, &none, sizeof(none)) != EOK)
		return -EFAULT;             /* a bad buffer fails before any wait */
	return -ipc_wait((void *)a0, a1, flags, a3);
}

int64_t sys_ipc_answer(SYSCALL_ARGS)
{
	ipc_msg_t m;
	int64_t result;

	if (copy_from_user(&m, (const void *)a1, sizeof(m)) != EOK)
		return -EFAULT;
	errno_t rc = ipc_answer_call(a0, &m, false, &result);
	return rc == EOK ? result : -rc;
}

/*
 * SYS_IPC_ANSWER_WAIT (callid, answer, ev, timeout_ns, flags): answer a
 * call of a user method, then SYS_IPC_WAIT into ev (seL4's ReplyRecv: a
 * server's loop in one kernel entry a call). 0: answered, the next event
 * in ev; -errno: nothing answered and no wait (a bad answer or event
 * buffer, no such call, EINVAL for a system method or bad flags); errno
 * (> 0): answered, the wait failed (ETIMEOUT, EAGAIN, EINTR, EFAULT).
 */
int64_t sys_ipc_answer_wait(SYSCALL_ARGS)
{
	static const ipc_event_t none;
	ipc_msg_t m;
	unsigned flags = (unsigned)a4;

	if ((flags & 0xff) > IPC_WAIT_ANSWER || (flags & ~0x1ffu))
		return -EINVAL;
	if (copy_from_user(&m, (const void *)a1, sizeof(m)) != EOK ||
	    copy_to_user((void *)a2, &none, sizeof(none)) != EOK)
		return -EFAULT;             /* bad buffers fail before any effect */
	return ipc_answer_wait(a0, &m, (void *)a2, a3, flags);
}

int64_t sys_ipc_forward(SYSCALL_ARGS)
{
	return -ipc_forward(a0, (int)a1, a2, a3);
}

/* SYS_IPC_CALLER_PERMS (callid): the caller's PERM_* bits, or -ENOENT. */
int64_t sys_ipc_caller_perms(SYSCALL_ARGS)
{
	uint32_t perms;
	errno_t rc = ipc_caller_perms(a0, &perms);

	return rc == EOK ? (int64_t)perms : -(int64_t)rc;
}

int64_t sys_ipc_hangup(SYSCALL_ARGS)
{
	return -ipc_hangup((int)a0);
}

int64_t sys_ipc_connect_kbox(SYSCALL_ARGS)
{
	return ipc_connect_kbox(a0);
}
