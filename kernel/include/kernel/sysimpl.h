/* System call handlers implemented outside kernel/syscall.c. */
#ifndef KERNEL_SYSIMPL_H
#define KERNEL_SYSIMPL_H

#include <kernel/types.h>

#define SYSCALL_ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, \
	uint64_t a4, uint64_t a5

int64_t sys_spawn(SYSCALL_ARGS);
int64_t sys_cprof(SYSCALL_ARGS);
int64_t sys_sysinfo_keys(SYSCALL_ARGS);
int64_t sys_sysinfo_type(SYSCALL_ARGS);
int64_t sys_sysinfo_int(SYSCALL_ARGS);
int64_t sys_sysinfo_data(SYSCALL_ARGS);
int64_t sys_wait(SYSCALL_ARGS);
int64_t sys_kill(SYSCALL_ARGS);
int64_t sys_thread_create(SYSCALL_ARGS);
int64_t sys_thread_exit(SYSCALL_ARGS);
int64_t sys_thread_join(SYSCALL_ARGS);
int64_t sys_task_info(SYSCALL_ARGS);
int64_t sys_set_affinity(SYSCALL_ARGS);
int64_t sys_thread_stats(SYSCALL_ARGS);
int64_t sys_system_stats(SYSCALL_ARGS);
int64_t sys_map(SYSCALL_ARGS);
int64_t sys_ipc_call(SYSCALL_ARGS);
int64_t sys_ipc_wait(SYSCALL_ARGS);
int64_t sys_ipc_answer(SYSCALL_ARGS);
int64_t sys_ipc_forward(SYSCALL_ARGS);
int64_t sys_ipc_hangup(SYSCALL_ARGS);
int64_t sys_ipc_caller_perms(SYSCALL_ARGS);
int64_t sys_ipc_connect_kbox(SYSCALL_ARGS);
int64_t sys_irq_subscribe(SYSCALL_ARGS);
int64_t sys_irq_ack(SYSCALL_ARGS);
int64_t sys_map_device(SYSCALL_ARGS);
int64_t sys_fb_info(SYSCALL_ARGS);
int64_t sys_klog_read(SYSCALL_ARGS);
int64_t sys_console_claim(SYSCALL_ARGS);
int64_t sys_ioport_allow(SYSCALL_ARGS);
int64_t sys_ioport_revoke(SYSCALL_ARGS);
int64_t sys_ipc_call_sync(SYSCALL_ARGS);
int64_t sys_ipc_answer_wait(SYSCALL_ARGS);
int64_t sys_ipc_call_short(SYSCALL_ARGS);
int64_t sys_initrd_map(SYSCALL_ARGS);
int64_t sys_unmap(SYSCALL_ARGS);
int64_t sys_profile(SYSCALL_ARGS);
int64_t sys_getprofile(SYSCALL_ARGS);

#endif
