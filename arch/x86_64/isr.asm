; Interrupt, exception and NMI entry stubs. Each pushes an error code (0
; when the CPU pushes none) and its vector, then saves the registers into
; an int_frame_t and calls interrupt_dispatch().
;
; GS: ordinary vectors swap GS only when they came from user mode (CS&3).
; NMI, #DF and #MC can arrive anywhere, even between a kernel entry and
; its swapgs, so they decide from the GS base itself: a negative (kernel)
; base means the kernel GS is already active (user space can never load a
; negative GS base). These never rely on the interrupted stack or GS.
;
; SMAP: an interrupt keeps RFLAGS.AC, so a stub entered from user mode (AC
; is the user's to set) or from the kernel's user-copy routine clears it
; (SMAP_CLAC); the iretq restores the interrupted AC.

; MSR_GS_BASE, FRAME_RIP and FRAME_CS come from C (arch/x86_64/asm-offsets.c).

section .text
extern interrupt_dispatch

%include "asm-offsets.inc"
%include "arch/regs.inc"
%include "arch/smap.inc"

; The TSC into the per-CPU word at offset %1 (rax and rdx are in the
; frame: POP_REGS restores them). The interrupts-off section of a gate
; taken with IF set runs from the stub's entry to its iretq, so that a
; timer sample it held back is charged to it (irqlat_late_site), not to
; the instruction after the iretq. isr_common's return closes the section
; still open then (the handler's, unless it closed it: the maximum and the
; last section, as irqlat_off_end does) or moves the closed one's end to
; the iretq. isr_paranoid's vectors close theirs in interrupt_dispatch.
%macro IRQOFF_STAMP 1
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov [gs:%1], rax
%endmacro

; A fake call frame (interrupted RIP, interrupted RBP) so backtraces walk
; from the handler into the interrupted code. rdi = the int_frame_t. It
; comes off with rbp the interrupted code's again: a sample (NMI) on the
; way out then walks from there, not from a dead frame below rsp.
%macro CALL_DISPATCH 0
	mov rdi, rsp
	push qword [rsp + FRAME_RIP]
	push rbp
	mov rbp, rsp
	call interrupt_dispatch
	pop rbp
	add rsp, 8
%endmacro


global isr_common:function, isr_paranoid:function
isr_common:
	PUSH_REGS
	cld
	SMAP_CLAC
	test byte [rsp + FRAME_CS], 3
	jz .kernel_in
	swapgs
.kernel_in:
	test dword [rsp + FRAME_RFLAGS], RFLAGS_IF
	jz .dispatch
	IRQOFF_STAMP CPU_IRQOFF_SINCE	; the gate opened a section: it starts here
.dispatch:
	CALL_DISPATCH
	test dword [rsp + FRAME_RFLAGS], RFLAGS_IF
	jz .no_close
	mov rcx, [gs:CPU_IRQOFF_SINCE]
	test rcx, rcx
	jnz .close
	IRQOFF_STAMP CPU_LAST_CLOSE	; the closed section ends at the iretq
	jmp .no_close
.close:					; the open one ends here (irqlat_off_end's work)
	mov [gs:CPU_LAST_OPEN], rcx
	mov rdx, [gs:CPU_IRQOFF_SITE]
	mov [gs:CPU_LAST_SITE], rdx
	mov qword [gs:CPU_IRQOFF_SINCE], 0
	IRQOFF_STAMP CPU_LAST_CLOSE
	sub rax, rcx
	cmp rax, [gs:CPU_IRQOFF_MAX]
	jbe .no_close
	mov [gs:CPU_IRQOFF_MAX], rax
.no_close:
	test byte [rsp + FRAME_CS], 3
	jz .kernel_out
	swapgs
.kernel_out:
	POP_REGS
	add rsp, 16
	iretq

isr_paranoid:
	PUSH_REGS
	cld
	SMAP_CLAC
	xor ebx, ebx
	mov ecx, MSR_GS_BASE
	rdmsr
	test edx, edx
	js .gs_ok
	swapgs
	mov ebx, 1
.gs_ok:
	CALL_DISPATCH
	test ebx, ebx
	jz .out
	swapgs
.out:
	POP_REGS
	add rsp, 16
	iretq

%macro ISR 1
isr_%1:
%if (%1 = 8) || (%1 = 10) || (%1 = 11) || (%1 = 12) || (%1 = 13) || (%1 = 14) || (%1 = 17) || (%1 = 21) || (%1 = 29) || (%1 = 30)
%else
	push 0
%endif
	push %1
%if (%1 = 2) || (%1 = 8) || (%1 = 18)
	jmp isr_paranoid
%else
	jmp isr_common
%endif
%endmacro

%assign i 0
%rep 256
	align 16
	ISR i
%assign i i + 1
%endrep

section .rodata
align 8
global isr_table
isr_table:
%assign i 0
%rep 256
	dq isr_ %+ i
%assign i i + 1
%endrep
