/*
 * Non-local jumps (arch/x86_64/setjmp.asm). The buffer keeps rbx, rbp,
 * r12-r15, rsp and the return address; no signal mask (there are no
 * signals). As C requires, locals changed between setjmp and longjmp must
 * be volatile to have defined values afterwards.
 */
#ifndef _SETJMP_H
#define _SETJMP_H

typedef long jmp_buf[8];

/* Save the calling context; returns 0, then again the longjmp value. */
__attribute__((returns_twice)) int setjmp(jmp_buf env);
/* Resume at the setjmp of env, which then returns val (1 if val is 0). */
__attribute__((noreturn)) void longjmp(jmp_buf env, int val);

#endif
