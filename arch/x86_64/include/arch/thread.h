/* x86-64 per-thread state: saved kernel stack pointer and FPU/SSE area. */
#ifndef ARCH_THREAD_H
#define ARCH_THREAD_H

#include <stdint.h>

#define FPU_AREA_SIZE 512   /* FXSAVE format */

typedef struct arch_thread {
	uint64_t rsp;                       /* saved by arch_context_switch */
	uint8_t fpu[FPU_AREA_SIZE] __attribute__((aligned(16)));
} arch_thread_t;

struct thread;

/* Prepare t's kernel stack so the first switch to it runs thread_bootstrap(). */
void arch_thread_setup(struct thread *t);

/*
 * Switch from prev to next: FPU state, TSS/syscall stack, address space,
 * registers. Returns when prev is switched back in. Interrupts off.
 */
void arch_thread_switch(struct thread *prev, struct thread *next);

struct cpu;

/*
 * The kernel stack top the next entry from user mode lands on in c (a
 * system call or an interrupt): the running thread's. c is this CPU.
 */
void arch_cpu_set_kernel_stack(struct cpu *c, uintptr_t top);

struct task;

/*
 * Load t's I/O port bitmap into this CPU's TSS (none for a task that was
 * given no ports). Interrupts or preemption off; t runs on this CPU.
 */
void arch_ioports_load(const struct task *t);

/* Drop to user mode at entry with stack and arg in rdi. Never returns. */
void arch_enter_user(uintptr_t entry, uintptr_t stack, uintptr_t arg) __attribute__((noreturn));

/* Boot: enable SSE for user code and capture the initial FPU state. */
void arch_fpu_init(void);

/* Give t a clean FPU state. */
void arch_fpu_reset(struct thread *t);

#endif
