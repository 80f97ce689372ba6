; Non-local jumps inside the kernel, used to recover from expected faults
; (fault_catch_run) without unwinding through the exception handler.
;   int kjmp_set(kjmp_buf_t *b)          returns 0, or v from kjmp_jump
;   void kjmp_jump(kjmp_buf_t *b, int v)  never returns (v != 0)

section .text
global kjmp_set, kjmp_jump
kjmp_set:
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

kjmp_jump:
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	mov eax, esi
	jmp [rdi + 56]
