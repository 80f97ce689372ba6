; Thread context switch and the first entry of new threads.

section .text
extern thread_bootstrap

; void arch_context_switch(uint64_t *save_rsp, uint64_t load_rsp)
; Saves the callee-saved registers on the current stack, stores rsp in
; *save_rsp, loads load_rsp and restores the next thread's registers.
global arch_context_switch:function
arch_context_switch:
	push rbp
	mov rbp, rsp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; First code of every new thread (arch_thread_setup pushed its address as
; the return address of arch_context_switch). A null frame ends backtraces.
global thread_start_asm:function
thread_start_asm:
	xor ebp, ebp
	push rbp
	push rbp
	mov rbp, rsp
	call thread_bootstrap
	ud2

; void arch_enter_user(entry, stack, arg): iretq to ring 3.
global arch_enter_user:function
arch_enter_user:
	cli
	mov rax, rdi
	push 0x23			; SS: user data | 3
	push rsi			; RSP
	push 0x202			; RFLAGS: IF
	push 0x2b			; CS: user code | 3
	push rax			; RIP
	mov rdi, rdx
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor edx, edx
	xor esi, esi
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	swapgs
	iretq
