; SYSCALL entry. The CPU left the user RIP in rcx and RFLAGS in r11, masked
; IF/DF/TF/AC (SFMASK) and did not switch stacks. We swap to the kernel GS,
; park the user RSP, load this thread's kernel stack, and build the same
; int_frame_t an interrupt from user mode would have (vector SYSCALL_VECTOR),
; so the rest of the kernel sees one kind of user frame.
;
; Return: SYSRET when the frame still holds a canonical user RIP, the user
; code selector and the syscall's RFLAGS rules allow it; a non-canonical
; RIP never reaches SYSRET (it would #GP in ring 0 on Intel with the user
; RSP loaded): syscall_bad_return() kills the task instead.
;
; The cycle accounting's edges (kernel/acct.c): the TSC goes to the CPU's
; edge.entry right after swapgs and to edge.exit right before the user RSP
; comes back (rax and rdx parked in edge.scratch meanwhile), so the entry
; and exit code is charged to the kernel; the 3 instructions each way
; outside are user time.

; The CPU_* offsets from GS, FRAME_RIP and SYSCALL_VECTOR come from C
; (arch/x86_64/asm-offsets.c).

section .text
extern syscall_dispatch, syscall_bad_return

%include "asm-offsets.inc"
%include "arch/regs.inc"

; The TSC into [gs:%1]; every register kept (rax, rdx parked per CPU).
%macro STAMP_TSC 1
	mov [gs:CPU_STAMP_RAX], rax
	mov [gs:CPU_STAMP_RDX], rdx
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov [gs:%1], rax
	mov rax, [gs:CPU_STAMP_RAX]
	mov rdx, [gs:CPU_STAMP_RDX]
%endmacro

global syscall_entry:function
syscall_entry:
	swapgs
	STAMP_TSC CPU_EDGE_ENTRY
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_KERNEL_RSP]
	push 0x23			; ss
	push qword [gs:CPU_USER_RSP]	; rsp
	push r11			; rflags
	push 0x2b			; cs
	push rcx			; rip
	push 0				; error
	push SYSCALL_VECTOR		; vector
	PUSH_REGS
	cld
	mov rdi, rsp
	push qword [rsp + FRAME_RIP]	; fake frame for backtraces
	push rbp
	mov rbp, rsp
	call syscall_dispatch		; enables interrupts after the accounting
	cli
	pop rbp				; the fake frame off; rbp the user's again,
	add rsp, 8			; not a frame below rsp (a sample here walks on)
	; canonical user RIP? (bits 63..47 all zero)
	mov rax, [rsp + FRAME_RIP]
	shr rax, 47
	jnz .bad
	POP_REGS
	add rsp, 16			; vector, error
	mov rcx, [rsp]			; rip
	mov r11, [rsp + 16]		; rflags
	STAMP_TSC CPU_EDGE_EXIT
	mov rsp, [rsp + 24]		; user rsp
	swapgs
	o64 sysret
.bad:
	mov rdi, rsp
	call syscall_bad_return		; never returns
	ud2
