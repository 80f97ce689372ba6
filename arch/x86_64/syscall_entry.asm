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
; edge.entry right after swapgs (rax and rdx parked per CPU for it; the
; frame takes them from there) and to edge.exit once every register but
; rax and rdx is back (the two come from the frame after it), so the entry
; and exit code is charged to the kernel; the 4 instructions up to the
; entry's rdtsc and the 9 after the exit's are user time (test/groundtruth.t
; counts them here to compare the accounting with samples). The exit stamp
; also closes the return's interrupts-off section (lat.last_close; the
; dispatcher opened it with irqlat_ret_begin).
;
; The frame is the call frame: its error slot holds the user rbp, right
; below the saved rip, and rbp points there. C keeps rbx, rbp and r12-r15,
; and nothing but the result changes a system call's frame, so the exit
; loads only the registers C may clobber.

; The CPU_* offsets from GS, the FRAME_* offsets and SYSCALL_VECTOR come
; from C (arch/x86_64/asm-offsets.c).

section .text
extern syscall_dispatch, syscall_bad_return

%include "asm-offsets.inc"
%include "arch/regs.inc"

; rdx:rax = the TSC, into [gs:%1] (rax and rdx are overwritten).
%macro STAMP_TSC 1
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov [gs:%1], rax
%endmacro

global syscall_entry:function
syscall_entry:
	swapgs
	mov [gs:CPU_STAMP_RAX], rax
	mov [gs:CPU_STAMP_RDX], rdx
	STAMP_TSC CPU_EDGE_ENTRY
	mov [gs:CPU_USER_RSP], rsp
	mov rsp, [gs:CPU_KERNEL_RSP]
	push 0x23			; ss
	push qword [gs:CPU_USER_RSP]	; rsp
	push r11			; rflags
	push 0x2b			; cs
	push rcx			; rip
	push rbp			; error: the user rbp, a frame with the rip
	push SYSCALL_VECTOR		; vector
	push qword [gs:CPU_STAMP_RAX]	; PUSH_REGS, with rax and rdx parked
	push rbx
	push rcx
	push qword [gs:CPU_STAMP_RDX]
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	lea rbp, [rsp + FRAME_ERROR]	; the call frame backtraces walk on
	call syscall_dispatch		; enables interrupts after the accounting
	cli
	; canonical user RIP? (bits 63..47 all zero)
	mov rax, [rsp + FRAME_RIP]
	shr rax, 47
	jnz .bad
	; C kept rbx, rbp and r12-r15 (rbp is the frame's: the user's below);
	; the registers it may clobber come from the frame.
	mov rbp, [rsp + FRAME_RBP]	; a sample here walks on from the user's
	mov r10, [rsp + FRAME_R10]
	mov r9, [rsp + FRAME_R9]
	mov r8, [rsp + FRAME_R8]
	mov rdi, [rsp + FRAME_RDI]
	mov rsi, [rsp + FRAME_RSI]
	mov rcx, [rsp + FRAME_RIP]
	mov r11, [rsp + FRAME_RFLAGS]
	STAMP_TSC CPU_EDGE_EXIT
	mov [gs:CPU_LAST_CLOSE], rax	; the return's interrupts-off section ends
	mov rax, [rsp + FRAME_RAX]
	mov rdx, [rsp + FRAME_RDX]
	mov rsp, [rsp + FRAME_RSP]	; user rsp
	swapgs
	o64 sysret
.bad:
	mov rdi, rsp
	call syscall_bad_return		; never returns
	ud2
