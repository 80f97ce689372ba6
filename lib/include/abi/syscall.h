/*
 * System call numbers and calling convention, shared by the kernel and
 * user space.
 *
 * x86-64: the SYSCALL instruction with the number in rax and up to six
 * arguments in rdi, rsi, rdx, r10, r8, r9. The result comes back in rax:
 * a value >= 0 on success, or -errno (an abi/errno.h code) on failure.
 * rcx and r11 are clobbered; every other register is preserved.
 *
 * Pointers: a bad user pointer (NULL, kernel, unmapped, or read-only where
 * the kernel writes) gives -EFAULT and the call has no effect; output
 * pointers are checked before anything is consumed (a wait that fails
 * with EFAULT reaps nothing). Where noted, NULL means "not wanted".
 */
#ifndef ABI_SYSCALL_H
#define ABI_SYSCALL_H

#define SYS_NULL 0            /* () -> 0; for measuring entry cost */
#define SYS_EXIT 1            /* (int status) task exit, never returns */
#define SYS_CONSOLE_WRITE 2   /* (const char *buf, size_t len) -> len */
#define SYS_TASK_ID 3         /* () -> id of the calling task */
#define SYS_THREAD_ID 4       /* () -> id of the calling thread */
#define SYS_SPAWN 5           /* (const spawn_args_t *) -> new task id; argv NULL or a path with a control character: EINVAL */
#define SYS_WAIT 6            /* (task_id, int *status or NULL, unsigned flags) -> task id */
#define SYS_KILL 7            /* (task_id) -> 0 */
#define SYS_THREAD_CREATE 8   /* (entry, arg, stack_top 16-aligned) -> thread id; EINVAL if not user */
#define SYS_THREAD_EXIT 9     /* (long value) never returns */
#define SYS_THREAD_JOIN 10    /* (thread_id, long *value or NULL) -> 0 */
#define SYS_YIELD 11          /* () -> 0 */
#define SYS_SLEEP 12          /* (uint64_t ns) -> 0 */
#define SYS_CLOCK 13          /* (clock_id) -> ns (CLOCK_* below) */
#define SYS_MAP 14            /* (void *hint or NULL, len, prot) -> address; a bad hint is ignored */
#define SYS_UNMAP 15          /* (void *addr, size_t len) -> 0 */
#define SYS_TASK_INFO 16      /* (task_id, task_info_t *) -> 0 */
#define SYS_SET_AFFINITY 17   /* (thread_id or 0, uint64_t cpu_mask) -> 0 */
#define SYS_POWEROFF 18       /* (unsigned how) -> never returns (needs PERM_SYSTEM) */
#define SYS_THREAD_STATS 19   /* (thread_id or 0, thread_stats_t *) -> 0 */
#define SYS_SYSTEM_STATS 20   /* (system_stats_t *) -> 0 */
#define SYS_IPC_CALL 21       /* (phone, const ipc_msg_t *) -> call id */
#define SYS_IPC_WAIT 22       /* (ipc_event_t *, timeout_ns or 0, flags, callid) -> 0 */
#define SYS_IPC_ANSWER 23     /* (callid, const ipc_msg_t *) -> 0 or new phone (CONNECT_TO_ME) */
#define SYS_IPC_FORWARD 24    /* (callid, phone, method or 0, arg0) -> 0 */
#define SYS_IPC_HANGUP 25     /* (phone) -> 0 */
#define SYS_IPC_CONNECT_KBOX 26 /* (task_id) -> phone to that task's kernel answerbox */
#define SYS_IRQ_SUBSCRIBE 27  /* (irq, method) -> 0; needs PERM_IRQ */
#define SYS_IRQ_ACK 28        /* (irq) -> 0: unmask after serving a notification */
#define SYS_MAP_DEVICE 29     /* (paddr, len) -> address; PERM_IO; never RAM */
#define SYS_FB_INFO 30        /* (fb_info_t *) -> 0; ENOENT without a screen */
#define SYS_KLOG_READ 31      /* (buf, len, uint64_t *pos, timeout_ns) -> bytes */
#define SYS_CONSOLE_CLAIM 32  /* (bool) -> 0; PERM_IO: the kernel stops writing to its consoles */
#define SYS_INITRD_MAP 33     /* (const void **base, size_t *size) -> 0: the initrd, read-only */
#define SYS_SYSINFO_KEYS 34   /* (path, buf, size, size_t *needed) -> bytes; see abi/sysinfo.h */
#define SYS_SYSINFO_TYPE 35   /* (path) -> SYSINFO_NONE/INT/DATA */
#define SYS_SYSINFO_INT 36    /* (path, uint64_t *value) -> 0 */
#define SYS_SYSINFO_DATA 37   /* (path, buf, size, size_t *needed) -> bytes */
#define SYS_PROFILE 38        /* (task_id or 0, start, end, interval) -> 0; see abi/profil.h */
#define SYS_GETPROFILE 39     /* (struct profil_data *) -> 0: the current or last profile */
#define SYS_CPROF 40          /* (op, a1, a2, a3) call profiler; see abi/cprof.h */
#define SYS_IPC_CALLER_PERMS 41 /* (callid) -> PERM_* of the task that made that unanswered call */
#define SYS_IOPORT_ALLOW 42   /* (port, count) -> 0; PERM_IO: open those ports to this task */
#define SYS_IOPORT_REVOKE 43  /* (port, count) -> 0; PERM_IO: close those ports again */
#define SYS_IPC_CALL_SYNC 44  /* (phone, const ipc_msg_t *, ipc_event_t *, timeout_ns or 0) -> 0, callid or -errno; see abi/ipc.h */
#define SYS_IPC_ANSWER_WAIT 45 /* (callid, const ipc_msg_t *, ipc_event_t *, timeout_ns or 0, flags) -> 0, errno or -errno; see abi/ipc.h */
#define SYS_IPC_CALL_SHORT 46 /* (phone, method, a0, a1, a2, timeout_ns or 0) -> 0 (answer in the argument registers), callid or -errno; see abi/ipc.h */
#define SYS_COUNT 47

/* SYS_FB_INFO: the screen the boot loader set up. */
typedef struct fb_info {
	unsigned long long addr;   /* physical */
	unsigned int pitch, width, height;   /* bytes per line; pixels or text cells */
	unsigned char bpp, type;   /* type: 1 RGB, 2 EGA text */
	unsigned char red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
} fb_info_t;

/* SYS_CLOCK clocks. */
#define CLOCK_MONOTONIC 0     /* ns since boot */
#define CLOCK_REALTIME 1      /* ns since 1970-01-01 UTC (CMOS RTC at boot) */
#define CLOCK_PROCESS_CPUTIME_ID 2 /* ns of CPU (user + kernel) used by the task's threads */
#define CLOCK_THREAD_CPUTIME_ID 3  /* ns of CPU (user + kernel) used by the calling thread */

/* SYS_MAP protection bits. */
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define PROT_GUARD 8          /* the lowest MAP_GUARD_SIZE bytes never map (a stack guard) */
#define MAP_GUARD_SIZE 16384

/* SYS_POWEROFF modes. */
#define POWEROFF_HALT 0
#define POWEROFF_TEST_PASS 1  /* end a test run: QEMU exits "pass" */
#define POWEROFF_TEST_FAIL 2  /* end a test run: QEMU exits "fail" */
#define POWEROFF_OFF 3        /* ACPI S5: the machine turns off (QEMU exits) */
#define POWEROFF_REBOOT 4     /* restart */

#endif
