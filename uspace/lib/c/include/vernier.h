/*
 * Typed wrappers over every Vernier system call (abi/syscall.h). Calls
 * that can fail return an errno_t (EOK or a positive abi/errno.h code)
 * and deliver results through pointers, which may be NULL when the result
 * is not wanted; they do not touch errno.
 */
#ifndef _VERNIER_H
#define _VERNIER_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/syscall.h>
#include <abi/sysinfo.h>
#include <abi/task.h>

/*
 * The raw system call (arch/x86_64/syscall.asm): number n, six arguments;
 * returns the kernel's result, >= 0 or -errno.
 */
long __vernier_syscall(long n, long a1, long a2, long a3, long a4, long a5,
		       long a6);
/*
 * A system call whose six argument words come from w and whose argument
 * registers come back into w (SYS_IPC_CALL_SHORT's answer); returns rax.
 */
long __vernier_syscall_words(long n, unsigned long w[6]);

/* Do nothing in the kernel (measures the entry cost). */
errno_t sys_null(void);
/* Write len bytes of buf to the kernel console (all of them, or an error). */
errno_t sys_console_write(const char *buf, size_t len);
/* End the calling task with status; never returns. */
__attribute__((noreturn)) void sys_exit(int status);
/* Id of the calling task / thread. */
task_id_t sys_task_id(void);
thread_id_t sys_thread_id(void);
/* CPUs online (SYS_SYSTEM_STATS), 1 if the call fails or says none. */
uint32_t sys_cpus_online(void);

/*
 * Start the program at path (e.g. "/bin/hello") as a child task with argv
 * (NULL-terminated, argv[0] included; NULL means just { path }) and perms
 * (a subset of the caller's). The child's id goes to *id.
 */
errno_t sys_spawn(const char *path, const char *const *argv, uint32_t perms,
		  task_id_t *id);
/* sys_spawn with a spawn_args_t prepared by the caller. */
errno_t sys_spawn_args(const spawn_args_t *args, task_id_t *id);
/*
 * Wait for child task id (WAIT_ANY: any child) to end; its exit status
 * (see TASK_STATUS_KILLED) goes to *status and its id to *waited. flags:
 * WAIT_NOHANG returns EAGAIN at once if no such child has ended yet.
 */
errno_t sys_wait(task_id_t id, int *status, unsigned flags,
		 task_id_t *waited);
/* Kill task id (needs PERM_KILL unless it is a child). */
errno_t sys_kill(task_id_t id);

/*
 * Start a thread in this task at entry with arg in rdi and rsp = stack_top;
 * entry must never return (it ends with sys_thread_exit). Prefer
 * thread_start() from <thread.h>, which provides the stack and that.
 */
errno_t sys_thread_create(void (*entry)(void *), void *arg, void *stack_top,
			  thread_id_t *id);
/* End the calling thread with value (for sys_thread_join); never returns. */
__attribute__((noreturn)) void sys_thread_exit(long value);
/* Wait for thread id of this task to end; its value goes to *value. */
errno_t sys_thread_join(thread_id_t id, long *value);
/* Give up the CPU to another ready thread. */
void sys_yield(void);
/* Sleep for at least ns nanoseconds. */
errno_t sys_sleep_ns(uint64_t ns);
/*
 * Nanoseconds on clock (CLOCK_MONOTONIC: since boot; CLOCK_REALTIME:
 * since 1970-01-01 UTC); 0 if the clock does not exist.
 */
uint64_t sys_clock_ns(unsigned clock);

/*
 * Map len bytes (rounded up to pages) of zeroed memory with prot
 * (PROT_READ | PROT_WRITE | PROT_EXEC), near hint if not NULL; the
 * address goes to *addr.
 */
errno_t sys_map(void *hint, size_t len, unsigned prot, void **addr);
/*
 * Unmap the whole regions inside [addr, addr + len) (addr page aligned),
 * of any kind: sys_map memory, the initrd (SYS_INITRD_MAP), device
 * memory, even the program's image or stack. EINVAL if there was none.
 */
errno_t sys_unmap(void *addr, size_t len);
/* Fill *info about task id. */
errno_t sys_task_info(task_id_t id, task_info_t *info);

/*
 * sysinfo (see abi/sysinfo.h). keys and data: the bytes copied go to
 * *got; a buffer too small gives ENOMEM with the size needed in *got.
 */
errno_t sys_sysinfo_keys(const char *path, void *buf, size_t size, size_t *got);
/* The node's SYSINFO_* type into *type; ENOENT if there is none. */
errno_t sys_sysinfo_type(const char *path, unsigned *type);
errno_t sys_sysinfo_int(const char *path, uint64_t *value);
errno_t sys_sysinfo_data(const char *path, void *buf, size_t size, size_t *got);
/* Restrict thread (0: the caller) to the CPUs whose bits are set in mask. */
errno_t sys_set_affinity(thread_id_t thread, uint64_t mask);
/*
 * Power off (POWEROFF_HALT) or end a test run (POWEROFF_TEST_PASS/FAIL);
 * needs PERM_SYSTEM. Returns only on failure.
 */
errno_t sys_poweroff(unsigned how);
/*
 * Open I/O ports [port, port + count) to the calling task (<sys/io.h>):
 * needs PERM_IO, and only ports the kernel lets user space drive (serial,
 * PS/2, VGA) are given (else EPERM); EINVAL for an empty or too long range.
 */
errno_t sys_ioport_allow(unsigned port, unsigned count);
/*
 * Close I/O ports [port, port + count) again (PERM_IO, else EPERM; EINVAL
 * as above): on return an in/out on them faults in every thread of the
 * task, on every CPU.
 */
errno_t sys_ioport_revoke(unsigned port, unsigned count);

#endif
