/* The system call layer: dispatch and the work done before returning to user mode. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include <arch/interrupt.h>
#include <kernel/types.h>

typedef int64_t (*syscall_fn_t)(uint64_t a0, uint64_t a1, uint64_t a2,
				uint64_t a3, uint64_t a4, uint64_t a5);

/* SYSCALL entry (arch) → here, interrupts on. Result goes into the frame. */
void syscall_dispatch(int_frame_t *f);

/* The hooks on every system call, one bit each (syscall_hook_set). */
#define SYSCALL_HOOK_TRACE 1u          /* trace events at entry and exit */
#define SYSCALL_HOOK_FAILINJ 2u        /* injected failures armed */

/*
 * Turn a hook of every system call on or off: the dispatcher tests them
 * all at once (one byte), the hooked path each one as before. Any context.
 */
void syscall_hook_set(unsigned hook, bool on);

/* The name of syscall nr ("ipc_call"), or NULL if there is none. */
const char *syscall_name(uint64_t nr);

/*
 * Last steps before any return to user mode (syscall, interrupt,
 * exception): exit if the task was killed, reschedule if asked, charge
 * the kernel time. Interrupts off on return.
 */
void user_return_work(int_frame_t *f);
/*
 * A hardware interrupt from user mode has been handled: with nothing to
 * do before the return (not killed, no reschedule due) one accounting
 * charge ends it (acct_irq_exit_user; the arch's interrupt return closes
 * the gate's interrupts-off section), else acct_irq_exit and
 * user_return_work. Irqs off, as it returns.
 */
void user_return_from_irq(int_frame_t *f, unsigned vector);

/* The syscall return found a non-canonical RIP: kill the task. */
void syscall_bad_return(int_frame_t *f) __noreturn;

/*
 * Report a user fault in one line, the task's name and symbol escaped
 * (str_escape_ctrl), and kill the task (exception path).
 */
void user_fault(int_frame_t *f, const char *what, uint64_t addr);

#endif
