/*
 * System calls for the user-space console server: the screen's
 * description, device memory, the kernel log, and taking the consoles over.
 */
#include <abi/syscall.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

int64_t sys_map_device(SYSCALL_ARGS)
{
	vm_space_t *s = vm_space_current();
	uintptr_t addr;

	if (!(task_current()->perms & PERM_IO))
		return -EPERM;
	if (!s)
		return -EINVAL;
	errno_t rc = vm_space_map_device(s, a0, a1, &addr);
	return rc == EOK ? (int64_t)addr : -rc;
}

int64_t sys_fb_info(SYSCALL_ARGS)
{
	const boot_fb_t *fb = &boot_info.fb;
	fb_info_t info;

	if (fb->type == BOOT_FB_NONE)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	info.addr = fb->addr;
	info.pitch = fb->pitch;
	info.width = fb->width;
	info.height = fb->height;
	info.bpp = fb->bpp;
	info.type = fb->type;
	info.red_pos = fb->red_pos;
	info.red_size = fb->red_size;
	info.green_pos = fb->green_pos;
	info.green_size = fb->green_size;
	info.blue_pos = fb->blue_pos;
	info.blue_size = fb->blue_size;
	return copy_to_user((void *)a0, &info, sizeof(info)) == EOK ? 0 : -EFAULT;
}

/*
 * SYS_KLOG_READ: the kernel log holds every task's fault reports (with
 * addresses): it needs PERM_IO (the console server copies it) or
 * PERM_SYSTEM, else EPERM.
 */
int64_t sys_klog_read(SYSCALL_ARGS)
{
	char buf[512];
	uint64_t pos;

	if (!(task_current()->perms & (PERM_IO | PERM_SYSTEM)))
		return -EPERM;

	if (copy_from_user(&pos, (const void *)a2, sizeof(pos)) != EOK)
		return -EFAULT;
	if (!user_range_ok(a0, a1))
		return -EFAULT;
	size_t n = klog_read(buf, MIN(a1, sizeof(buf)), &pos, a3);
	if (n && copy_to_user((void *)a0, buf, n) != EOK)
		return -EFAULT;
	if (copy_to_user((void *)a2, &pos, sizeof(pos)) != EOK)
		return -EFAULT;
	return (int64_t)n;
}

int64_t sys_console_claim(SYSCALL_ARGS)
{
	task_t *me = task_current();

	if (!(me->perms & PERM_IO))
		return -EPERM;
	return -console_claim(a0 ? me : NULL, me);
}
