; The raw system call (see abi/syscall.h for the convention):
;   long __vernier_syscall(long n, long a1, long a2, long a3, long a4,
;                          long a5, long a6)
; returns the kernel's rax: a value >= 0, or -errno. The SysV argument
; registers are shifted into the SYSCALL ones (number in rax, the fourth
; argument in r10 rather than rcx, which SYSCALL overwrites); a6 comes from
; the stack. rcx and r11 are clobbered, which the SysV ABI allows.

section .text
global __vernier_syscall

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

section .note.GNU-stack noalloc noexec nowrite progbits
