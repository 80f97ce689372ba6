/*
 * The kernel's setjmp/longjmp (kjmp.asm), for fault_catch_run(): the
 * callee-saved registers, the stack pointer and the resume address.
 */
#ifndef ARCH_KJMP_H
#define ARCH_KJMP_H

#include <kernel/types.h>

typedef struct kjmp_buf {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
} kjmp_buf_t;

/* Save the caller's context in b; returns 0, or v when kjmp_jump(b, v) resumes it. */
int kjmp_set(kjmp_buf_t *b) __attribute__((returns_twice));

/* Resume the context saved in b, kjmp_set returning v (v != 0). */
void kjmp_jump(kjmp_buf_t *b, int v) __noreturn;

#endif
