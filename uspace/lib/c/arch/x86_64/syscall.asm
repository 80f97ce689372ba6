; The raw system call (see abi/syscall.h for the convention):
;   long __vernier_syscall(long n, long a1, long a2, long a3, long a4,
;                          long a5, long a6)
; returns the kernel's rax: a value >= 0, or -errno. The SysV argument
; registers are shifted into the SYSCALL ones (number in rax, the fourth
; argument in r10 rather than rcx, which SYSCALL overwrites); a6 comes from
; the stack. rcx and r11 are clobbered, which the SysV ABI allows.

section .text
global __vernier_syscall, __vernier_syscall_words

__vernier_syscall:
	mov rax, rdi
	mov rdi, rsi
	mov rsi, rdx
	mov rdx, rcx
	mov r10, r8
	mov r8, r9
	mov r9, [rsp + 8]
	syscall
	ret

; long __vernier_syscall_words(long n, unsigned long w[6])
; The six argument words from w, and back into w from the same registers
; after the call (a system call that returns words beside rax:
; SYS_IPC_CALL_SHORT). A frame of its own keeps w across the call.
__vernier_syscall_words:
	push rbp
	mov rbp, rsp
	push rsi
	mov rax, rdi
	mov rdi, [rsi]
	mov rdx, [rsi + 16]
	mov r10, [rsi + 24]
	mov r8, [rsi + 32]
	mov r9, [rsi + 40]
	mov rsi, [rsi + 8]
	syscall
	mov rcx, [rbp - 8]
	mov [rcx], rdi
	mov [rcx + 8], rsi
	mov [rcx + 16], rdx
	mov [rcx + 24], r10
	mov [rcx + 32], r8
	mov [rcx + 40], r9
	leave
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
