/*
 * SYS_IOPORT_ALLOW: per-task I/O port permissions. PERM_IO alone opens no
 * port; a task holding it asks for the ranges it drives (the console:
 * COM1, the PS/2 controller, VGA; a com2 sink: COM2), and only ranges the
 * platform lets user space have (platform_ioport_grantable) are given.
 * Bits are only ever set: the bitmap is part of task_t, so it is bounded
 * and freed with the task.
 */
#include <abi/syscall.h>
#include <abi/task.h>
#include <arch/cpu.h>
#include <arch/thread.h>
#include <kernel/platform.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>

/* Set t's bits for [port, port + count) (already checked against the limit). */
static void ioport_set(task_t *t, unsigned port, unsigned count)
{
	for (unsigned p = port; p < port + count; p++)
		__atomic_or_fetch(&t->ioports[p / 8], (uint8_t)(1u << (p % 8)), __ATOMIC_RELAXED);
	__atomic_store_n(&t->ioports_any, true, __ATOMIC_RELEASE);
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

	if (a1 == 0 || a0 > 0xffff || a1 > 0x10000 - a0)
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
