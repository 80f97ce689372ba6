/*
 * The call profiler in the kernel (abi/cprof.h; README "Call profiling").
 *
 * Two halves. kernel/cprof/cprof.c serves SYS_CPROF: processes register
 * their control blocks, get a clock page whose entries the scheduler
 * keeps up to date, and GET/RESET reach every registered table.
 * kernel/cprof/hooks.c is the kernel's own profiling when it is
 * built with -finstrument-functions (make CPROFILE=1): a part per CPU, a
 * call stack per thread (a thread that blocks keeps its calls in
 * progress; the CPU's idle/boot thread uses the CPU's stack). In a kernel
 * built without the hooks nothing calls them and no memory is taken.
 */
#ifndef KERNEL_CPROF_H
#define KERNEL_CPROF_H

#include <abi/cprof.h>
#include <kernel/cpu.h>
#include <kernel/types.h>

struct task;
struct thread;

/* Boot, after heap_init: set up the kernel table if the kernel is instrumented. */
/* Heap bytes the kept tables of exited processes take (any task can fill them). */
size_t cprof_kept_heap_bytes(void);
void cprof_init(void);

/* On each CPU as it comes up (after its per-CPU data): its part and stack. */
void cprof_cpu_init(cpu_t *c);

/* A new thread: its kernel call stack (none if the kernel is not instrumented). */
void cprof_thread_init(struct thread *t);

/* A thread is freed: release its call stack. */
void cprof_thread_fini(struct thread *t);

/*
 * next is being switched in (interrupts off): publish its off-CPU
 * cycles in its clock, if it has one. One line in acct_switch().
 */
void cprof_switch_in(struct thread *next);

/* t's address space is going away: drop its registration and clock page. */
void cprof_task_exited(struct task *t);

/* Is the kernel instrumented (its table exists)? */
bool cprof_kernel_on(void);

/*
 * The kernel table for GET: CPU i's part, or NULL (no such CPU, or no
 * memory for it). Parts stay allocated for the kernel's life.
 */
const cprof_part_t *cprof_kernel_part(uint32_t i);

/* Ask the kernel table to clear (each CPU at its next hook). */
void cprof_kernel_reset(void);

/* Resets asked of the kernel table so far. */
uint32_t cprof_kernel_gen(void);

#endif
