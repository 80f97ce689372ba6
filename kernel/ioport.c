/*
 * SYS_IOPORT_ALLOW and SYS_IOPORT_REVOKE: per-task I/O port permissions.
 * PERM_IO alone opens no port; a task holding it asks for the ranges it
 * drives (the console: COM1, the PS/2 controller, VGA; a com2 sink: COM2),
 * and only ranges the platform lets user space have
 * (platform_ioport_grantable) are given. A task closes ports again with
 * SYS_IOPORT_REVOKE: its bits are cleared and every CPU running one of
 * its threads reloads its TSS bitmap before the call returns (other CPUs
 * load the bits on their next switch to the task anyway). The bitmap is
 * part of task_t, so it is bounded and freed with the task.
 */
#include <abi/syscall.h>
#include <abi/task.h>
#include <arch/cpu.h>
#include <arch/thread.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/smp.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/thread.h>

/* Set t's bits for [port, port + count) (already checked against the limit). */
static void ioport_set(task_t *t, unsigned port, unsigned count)
{
	for (unsigned p = port; p < port + count; p++)
		__atomic_or_fetch(&t->ioports[p / 8], (uint8_t)(1u << (p % 8)), __ATOMIC_RELAXED);
	__atomic_store_n(&t->ioports_any, true, __ATOMIC_RELEASE);
}

/* Clear t's bits for [port, port + count) (ports at or past the limit have none). */
static void ioport_clear(task_t *t, unsigned port, unsigned count)
{
	unsigned end = port + count < IOPORT_USER_LIMIT ? port + count : IOPORT_USER_LIMIT;

	for (unsigned p = port; p < end; p++)
		__atomic_and_fetch(&t->ioports[p / 8], (uint8_t)~(1u << (p % 8)), __ATOMIC_RELAXED);
}

/* A bad range: empty, or past port 65535. */
static bool ioport_range_bad(uint64_t port, uint64_t count)
{
	return count == 0 || port > 0xffff || count > 0x10000 - port;
}

/* Under smp_call_all: a CPU running a thread of arg's task reloads its bitmap. */
static void ioport_reload(void *arg)
{
	thread_t *cur = cpu_current()->current;

	if (cur && cur->task == arg)
		arch_ioports_load(arg);
}

/*
 * SYS_IOPORT_ALLOW (port, count): 0, -EINVAL for an empty range or one
 * past port 65535, -EPERM without PERM_IO or for ports the platform keeps.
 * The calling thread may use the ports on return; the task's other
 * threads from their next switch.
 */
int64_t sys_ioport_allow(SYSCALL_ARGS)
{
	task_t *t = task_current();

	if (ioport_range_bad(a0, a1))
		return -EINVAL;
	if (!(t->perms & PERM_IO) || !platform_ioport_grantable(a0, a1) ||
	    a0 + a1 > IOPORT_USER_LIMIT)
		return -EPERM;
	ioport_set(t, a0, a1);
	uint64_t f = irq_save();
	arch_ioports_load(t);
	irq_restore(f);
	return 0;
}

/*
 * SYS_IOPORT_REVOKE (port, count): 0, -EINVAL for an empty range or one
 * past port 65535, -EPERM without PERM_IO. On return no thread of the
 * task can use those ports: an in/out faults (#GP).
 */
int64_t sys_ioport_revoke(SYSCALL_ARGS)
{
	task_t *t = task_current();

	if (ioport_range_bad(a0, a1))
		return -EINVAL;
	if (!(t->perms & PERM_IO))
		return -EPERM;
	ioport_clear(t, a0, a1);
	smp_call_all(ioport_reload, t);
	return 0;
}
