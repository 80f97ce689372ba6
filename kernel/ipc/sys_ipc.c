/* IPC system calls: argument copying and validation around kernel/ipc. */
#include <abi/syscall.h>
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
	return ipc_call((int)a0, &m);
}

int64_t sys_ipc_wait(SYSCALL_ARGS)
{
	ipc_event_t ev;
	unsigned flags = (unsigned)a2;

	if ((flags & 0xff) > IPC_WAIT_ANSWER || (flags & ~0x1ffu))
		return -EINVAL;
	memset(&ev, 0, sizeof(ev));
	if (copy_to_user((void *)a0, &ev, sizeof(ev)) != EOK)
		return -EFAULT;             /* a bad buffer fails before any wait */
	return -ipc_wait((void *)a0, a1, flags, a3);
}

int64_t sys_ipc_answer(SYSCALL_ARGS)
{
	ipc_msg_t m;
	int64_t result;

	if (copy_from_user(&m, (const void *)a1, sizeof(m)) != EOK)
		return -EFAULT;
	errno_t rc = ipc_answer_call(a0, &m, &result);
	return rc == EOK ? result : -rc;
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
