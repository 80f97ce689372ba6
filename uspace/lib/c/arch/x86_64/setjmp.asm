; setjmp/longjmp (see setjmp.h). jmp_buf layout, 8 bytes each:
;   0 rbx, 1 rbp, 2 r12, 3 r13, 4 r14, 5 r15, 6 rsp (after return), 7 rip.
; Only the callee-saved registers are kept, like glibc: MXCSR and the x87
; control word are not restored. Position independent (also built for the
; host unit tests).

section .text
global setjmp, longjmp, _setjmp, _longjmp

; int setjmp(jmp_buf env): returns 0 now, later the value passed to longjmp.
setjmp:
_setjmp:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]
	mov [rdi + 48], rax
	mov rax, [rsp]
	mov [rdi + 56], rax
	xor eax, eax
	ret

; void longjmp(jmp_buf env, int val): setjmp returns val (1 if val is 0).
longjmp:
_longjmp:
	mov eax, esi
	test eax, eax
	jnz .nonzero
	inc eax
.nonzero:
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	jmp [rdi + 56]

section .note.GNU-stack noalloc noexec nowrite progbits
