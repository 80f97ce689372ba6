; Copies between kernel and user memory. A page fault inside the copy is
; first offered to the task's address space (demand-zero pages); if the
; address is bad, the fault handler resumes at uaccess_fixup, which returns
; nonzero instead of crashing the kernel.

section .text
global arch_copy_user:function, uaccess_start, uaccess_end, uaccess_fixup

; int arch_copy_user(void *dst, const void *src, size_t n)
arch_copy_user:
uaccess_start:
	mov rcx, rdx
	rep movsb
	xor eax, eax
	ret
uaccess_fixup:
	mov eax, 1
	ret
uaccess_end:
