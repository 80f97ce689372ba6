/* SYS_MAP and SYS_UNMAP: anonymous memory for user tasks. */
#include <kernel/sysimpl.h>
#include <kernel/vm_space.h>

int64_t sys_map(SYSCALL_ARGS)
{
	vm_space_t *s = vm_space_current();
	uintptr_t addr;

	if (!s)
		return -EINVAL;
	errno_t rc = vm_space_map_anon(s, a0, a1, (unsigned)a2, &addr);
	return rc == EOK ? (int64_t)addr : -rc;
}

int64_t sys_unmap(SYSCALL_ARGS)
{
	vm_space_t *s = vm_space_current();
	return s ? -vm_space_unmap(s, a0, a1) : -EINVAL;
}
