; Copies between kernel and user memory. A page fault inside the copy is
; first offered to the task's address space (demand-zero pages); if the
; address is bad, the fault handler resumes at uaccess_fixup, which returns
; nonzero instead of crashing the kernel.
;
; This is the only code that touches user pages through user addresses:
; under SMAP it opens the access (stac) for the copy alone and closes it
; (clac) on both ways out. A fault in the copy enters the kernel with AC
; cleared by the stub; the iretq back to the fixup restores AC = 1, so the
; fixup closes it too.

%include "arch/smap.inc"

section .text
global arch_copy_user:function, uaccess_start, uaccess_end, uaccess_fixup

; int arch_copy_user(void *dst, const void *src, size_t n)
; Eight bytes a step (rep movsq), then the tail byte by byte: an emulator
; (TCG) runs a rep string instruction one element at a time, and an IPC
; round trip copies four 48..80-byte records.
arch_copy_user:
uaccess_start:
	mov rcx, rdx
	shr rcx, 3
	and edx, 7
	SMAP_STAC
	rep movsq
	mov ecx, edx
	rep movsb
	SMAP_CLAC
	xor eax, eax
	ret
uaccess_fixup:
	SMAP_CLAC
	mov eax, 1
	ret
uaccess_end:
