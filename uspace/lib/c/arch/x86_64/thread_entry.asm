; First code of a thread started by thread_start (src/thread.c).
;
; The kernel starts the thread here (SYS_THREAD_CREATE entry) with rdi =
; the arg given to SYS_THREAD_CREATE, which is a pointer to a
; thread_boot_t { long (*fn)(void *); void *arg; } stored at the top of
; the new stack, and rsp = the stack top (any alignment is tolerated).
; Calls fn(arg) on a 16-byte aligned stack with a terminated frame-pointer
; chain and passes its result to thread_exit, so returning from fn ends
; the thread with that value.

section .text
global __libc_thread_entry
extern thread_exit

__libc_thread_entry:
	xor ebp, ebp
	and rsp, -16
	mov rax, [rdi]          ; fn
	mov rdi, [rdi + 8]      ; arg
	call rax
	mov rdi, rax
	call thread_exit
	ud2

section .note.GNU-stack noalloc noexec nowrite progbits
