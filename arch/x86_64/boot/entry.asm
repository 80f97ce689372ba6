; Boot entry: the multiboot2 header, the 32-bit entry GRUB jumps to (BIOS
; and UEFI alike), the switch to long mode and the jump to the higher half.
;
; The boot page tables map the first 4 GiB twice: identity (so this code
; and the boot loader's data stay reachable) and at KERNEL_VMA. kmain()
; replaces them with the real kernel tables, which have no identity map.

%define KERNEL_VMA 0xffffffff80000000
%define MB2_MAGIC 0xe85250d6
%define MB2_ARCH_I386 0
%define MB2_BOOT_MAGIC 0x36d76289

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; Console flags: EGA text supported. No framebuffer tag: with one, GRUB
	; would switch BIOS machines to graphics; without it GRUB keeps VGA text
	; under BIOS and still hands over the GOP framebuffer under UEFI.
	align 8
	dw 4, 0
	dd 12
	dd 2
	align 8
	dw 0, 0
	dd 8
mb2_header_end:

section .boot.text
bits 32
global _start
_start:
	cli
	cld
	mov esp, boot32_stack_top
	mov [boot_mb_magic], eax
	mov [boot_mb_info], ebx
	call check_long_mode
	call build_page_tables
	call enter_long_mode
	lgdt [boot_gdt_ptr]
	jmp 0x08:long_entry

; Halt with a message on COM1 when the CPU cannot run us.
check_long_mode:
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no
	mov [boot_nx], edx		; bit 20: NX
	ret
.no:
	mov esi, msg_no_lm
.print:
	lodsb
	test al, al
	jz .halt
	mov dx, 0x3f8
	out dx, al
	jmp .print
.halt:
	hlt
	jmp .halt

; PML4[0] and PML4[511] -> identity 0..4 GiB / KERNEL_VMA -> 0..1 GiB
build_page_tables:
	mov eax, boot_pdpt_low
	or eax, 3
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high
	or eax, 3
	mov [boot_pml4 + 511 * 8], eax
	mov ecx, 0
.pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, 3
	mov [boot_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .pdpt
	mov eax, boot_pd
	or eax, 3
	mov [boot_pdpt_high + 510 * 8], eax
	mov ecx, 0			; 2048 large pages = 4 GiB
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, 0x83			; present, writable, 2 MiB
	mov [boot_pd + ecx * 8], eax
	mov eax, ecx
	shr eax, 11
	mov [boot_pd + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 2048
	jne .pd
	ret

enter_long_mode:
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, 1 << 8			; LME
	test dword [boot_nx], 1 << 20
	jz .nonx
	or eax, 1 << 11			; NXE
.nonx:
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov cr0, eax
	ret

bits 64
long_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half_entry
	jmp rax

section .boot.data
align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
boot_gdt_ptr:
	dw boot_gdt_ptr - boot_gdt - 1
	dq boot_gdt
global boot_mb_magic, boot_mb_info
boot_mb_magic: dd 0
boot_mb_info: dd 0
boot_nx: dd 0
msg_no_lm: db "boot: this CPU has no long mode; Vernier needs x86-64", 13, 10, 0

section .boot.bss nobits
align 4096
boot_pml4: resb 4096
boot_pdpt_low: resb 4096
boot_pdpt_high: resb 4096
boot_pd: resb 4096 * 4
boot32_stack: resb 4096
boot32_stack_top:

; ---------------------------------------------------------------- higher half
section .text
extern kmain, __bss_start, __bss_end
higher_half_entry:
	; GRUB zeroes the .bss it loads; clear it anyway, before using the stack in it
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov rsp, boot_stack_top
	xor ebp, ebp
	push rbp			; fake return address: ends backtraces
	push rbp
	mov rbp, rsp
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .bss
align 4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard: resb 4096		; left unmapped by vm_init()
boot_stack_bottom: resb 16384
boot_stack_top:
