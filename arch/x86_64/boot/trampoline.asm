; Application processor start-up code. smp.c copies it to a free page below
; 1 MiB, fills in the data at its end and sends INIT-SIPI-SIPI to every AP
; at once; each AP starts here in real mode at CS:0 = page:0, goes through
; protected mode into long mode with a temporary page table (identity for
; this page plus the kernel half), finds its own slot (stack, cpu_t) by its
; APIC id and jumps to ap_entry() on that stack. The code writes nothing
; and uses no stack before the slot's, so all APs can run it together.

section .rodata
align 16
global smp_trampoline_start, smp_trampoline_end
global tr_gdtr, tr_pm_ptr, tr_lm_ptr, tr_gdt, tr_pm, tr_lm
global tr_cr3, tr_efer, tr_slots, tr_nslots, tr_entry

; smp.c's ap_slot_t
SLOT_APIC_ID equ 0
SLOT_STACK equ 8
SLOT_CPU equ 16
SLOT_SIZE equ 24

bits 16
smp_trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4			; linear address of this page
	lgdt [tr_gdtr - smp_trampoline_start]
	mov eax, cr0
	or eax, 1
	mov cr0, eax
	o32 jmp far [tr_pm_ptr - smp_trampoline_start]

bits 32
tr_pm:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, [ebx + (tr_cr3 - smp_trampoline_start)]
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER: LME (+ NXE like the boot CPU)
	rdmsr
	or eax, [ebx + (tr_efer - smp_trampoline_start)]
	wrmsr
	mov eax, cr0
	or eax, 0x80010001		; PG, WP, PE
	mov cr0, eax
	jmp far [ebx + (tr_lm_ptr - smp_trampoline_start)]

bits 64
tr_lm:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov r12d, ebx			; page (CPUID clobbers ebx)
	xor eax, eax			; APIC id: CPUID 0Bh EDX (x2APIC id)
	cpuid				; when leaf 0Bh exists and is valid,
	cmp eax, 0xb			; else CPUID 1 EBX[31:24]
	jb .initial_id
	mov eax, 0xb
	xor ecx, ecx
	cpuid
	test ebx, ebx
	jz .initial_id
	mov r13d, edx
	jmp .find_slot
.initial_id:
	mov eax, 1
	cpuid
	shr ebx, 24
	mov r13d, ebx
.find_slot:
	mov rsi, [r12 + (tr_slots - smp_trampoline_start)]
	mov rcx, [r12 + (tr_nslots - smp_trampoline_start)]
.next_slot:
	test rcx, rcx
	jz .no_slot
	cmp [rsi + SLOT_APIC_ID], r13d
	je .slot_found
	add rsi, SLOT_SIZE
	dec rcx
	jmp .next_slot
.no_slot:				; not ours to start: stay halted
	cli
	hlt
	jmp .no_slot
.slot_found:
	mov rsp, [rsi + SLOT_STACK]
	mov rdi, [rsi + SLOT_CPU]
	xor ebp, ebp
	push rbp			; null return address ends backtraces
	mov rax, [r12 + (tr_entry - smp_trampoline_start)]
	jmp rax

align 16
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code
	dq 0x00cf92000000ffff		; 0x10: data
	dq 0x00af9a000000ffff		; 0x18: 64-bit code
tr_gdtr:
	dw 31
	dd 0				; patched: page + tr_gdt
tr_pm_ptr:
	dd 0				; patched: page + tr_pm
	dw 0x08
tr_lm_ptr:
	dd 0				; patched: page + tr_lm
	dw 0x18
align 8
tr_cr3: dq 0
tr_efer: dq 0
tr_slots: dq 0				; ap_slot_t array (kernel address)
tr_nslots: dq 0
tr_entry: dq 0
smp_trampoline_end:
