; Process entry point of every user program.
;
; Entry state (the contract with the kernel's ELF loader):
;   rsp   16-byte aligned, pointing at argc (8 bytes), followed by
;         argv[0..argc-1] (pointers), a NULL, then envp (a NULL-terminated
;         array; empty for now, so just a NULL), then the strings.
;   rip   _start (the ELF entry point); every other register is undefined.
;   The loader has zeroed .bss; SSE is enabled (the kernel saves the FPU
;   state per thread with FXSAVE) and MXCSR/x87 control words have their
;   reset defaults (round to nearest, exceptions masked).
;
; _start clears rbp (terminating frame-pointer backtraces), realigns the
; stack and calls __libc_start(argc, argv, envp), which runs the
; constructors, calls main and exits with its result. It never returns.

section .text.start progbits alloc exec nowrite align=16
global _start
extern __libc_start

_start:
	xor ebp, ebp
	mov rdi, [rsp]                  ; argc
	lea rsi, [rsp + 8]              ; argv
	lea rdx, [rsi + rdi * 8 + 8]    ; envp: past argv's NULL
	and rsp, -16
	call __libc_start
	ud2

section .note.GNU-stack noalloc noexec nowrite progbits
