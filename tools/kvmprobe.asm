; tools/kvmprobe.asm - a tiny guest that tells whether an accelerator can
; run what Vernier needs (tools/kvmprobe.sh boots it with QEMU's -kernel).
;
; A multiboot (v1) flat binary loaded at 1 MiB. It prints "probe: ..." lines
; on COM1 and ends QEMU through isa-debug-exit at 0xf4: value 0 (QEMU exit
; code 1) when every step passed, 1 (exit code 3) on an exception. A step
; the hypervisor cannot emulate usually ends QEMU with "KVM internal error"
; instead, so the last "probe: ... start" line names the culprit.
;
; The steps, chosen by letters after "steps=" on the command line (QEMU
; -append; default "cfxauh"), each printing "probe: step X start/ok":
;   c  CPUID: vendor, leaf 1 ECX, leaf 7 EBX/ECX, the hypervisor signature
;      (tells whether QEMU's -cpu model or the host's CPUID answers)
;   t  time 1,000,000 turns of a 2-instruction loop in TSC cycles (tells
;      native execution from instruction emulation; try t, T, pT)
;   f  x87: fninit, fwait
;   x  fxsave64 / fxrstor64 (Vernier's FPU switch)
;   a  SMAP: CR4.SMAP, clac, stac, clac (only when CPUID leaf 7 says SMAP)
;   u  user mode: iretq to CPL 3 (Vernier's GDT, STAR, SFMASK, EFER.SCE,
;      SMEP), SYSCALL, SYSRET back, a second SYSCALL; entry at the low
;      (identity-mapped) address
;   h  the same with LSTAR and the kernel code in the higher half
;      (0xffffffff80000000 + physical, where Vernier's kernel lives)
;   i  user mode by iretq, back by int 0x80 (a DPL 3 gate), iretq again
;   s  the following u/h steps enter user mode with SYSRET, not IRETQ
;   p  the higher half of the following steps is 0xffff800000000000 +
;      physical (PML4 slot 256) instead of 0xffffffff80000000 + physical
;   w  the user code of the following u/h steps spins 1,000,000 times
;      first and reports the TSC cycles that took (r13 in the next line)
;   l  the following steps use Linux's GDT layout (kernel CS 0x10, user
;      CS 0x33, DS 0x2b) instead of Vernier's (0x08; 0x2b, 0x23)
; An upper-case letter runs its step from the higher-half alias of the code
; (e.g. "F": fninit/fwait at 0xffffffff801xxxxx instead of 0x1xxxxx).
; The page tables: the first 2 MiB identity-mapped with 4 KiB pages, all
; supervisor but the user code page (user, executable) and the user stack
; page (user, NX); the same page table again at 0xffffffff80000000.

%define ORG 0x100000
%define KVMA 0xffffffff80000000
%define DMAP 0xffff800000000000
%define COM1 0x3f8
%define EXIT_PORT 0xf4

%define SEL_KCODE 0x08
%define SEL_KDATA 0x10
%define SEL_UCODE32 0x18
%define SEL_UDATA 0x20
%define SEL_UCODE 0x28
%define SEL_TSS 0x30

%define MSR_EFER 0xc0000080
%define MSR_STAR 0xc0000081
%define MSR_LSTAR 0xc0000082
%define MSR_SFMASK 0xc0000084
%define SFMASK_BITS 0x40700		; IF TF DF AC, as arch/x86_64/syscall.c

%define PHYS(x) ((x) - $$ + ORG)

	bits 32
	org ORG

mb_header:
	dd 0x1badb002
	dd 0x00010000
	dd -(0x1badb002 + 0x00010000)
	dd PHYS(mb_header)		; header_addr
	dd ORG				; load_addr
	dd 0				; load_end_addr: the whole file
	dd 0				; bss_end_addr: no bss
	dd PHYS(start32)		; entry_addr

; ---------------------------------------------------------------- 32-bit
start32:
	mov esp, PHYS(kstack_top)
	mov [PHYS(mbi)], ebx
	mov esi, PHYS(msg_start)
	call puts32
	call paging_build
	mov eax, cr4
	or eax, (1 << 5) | (1 << 9) | (1 << 10)	; PAE, OSFXSR, OSXMMEXCPT
	mov cr4, eax
	mov eax, PHYS(pml4)
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)		; LME, NXE
	wrmsr
	mov eax, cr0
	and eax, ~((1 << 2) | (1 << 3))		; EM, TS off
	or eax, (1 << 31) | (1 << 16) | (1 << 1) | 1	; PG, WP, MP, PE
	mov cr0, eax
	lgdt [PHYS(gdtr)]
	jmp SEL_KCODE:PHYS(start64)

; puts32: the NUL-terminated string at esi to COM1.
puts32:
	mov dx, COM1
.next:	lodsb
	test al, al
	jz .done
	out dx, al
	jmp .next
.done:	ret

; paging_build: PT maps 0..2 MiB (supervisor), user pages marked user;
; PD[0], PDPT[0], PML4[0] low; PML4[511] -> PDPT_HI[510] -> the same PD.
paging_build:
	mov edi, PHYS(pt)
	mov eax, 3			; present, writable
	mov ecx, 512
.pte:	mov [edi], eax
	mov dword [edi + 4], 0
	add eax, 4096
	add edi, 8
	loop .pte
	mov eax, PHYS(user_code)
	shr eax, 12
	or dword [PHYS(pt) + eax * 8], 4	; user
	mov eax, PHYS(user_stack)
	shr eax, 12
	or dword [PHYS(pt) + eax * 8], 4
	or dword [PHYS(pt) + eax * 8 + 4], 0x80000000	; NX
	mov dword [PHYS(pd)], PHYS(pt) + 7
	mov dword [PHYS(pdpt)], PHYS(pd) + 7
	mov dword [PHYS(pml4)], PHYS(pdpt) + 7
	mov dword [PHYS(pdpt_hi) + 510 * 8], PHYS(pd) + 3
	mov dword [PHYS(pml4) + 511 * 8], PHYS(pdpt_hi) + 3
	mov dword [PHYS(pml4) + 256 * 8], PHYS(pdpt) + 3
	ret

; ---------------------------------------------------------------- 64-bit
	bits 64
start64:
	mov ax, SEL_KDATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea rdi, [rel gdt + SEL_TSS]
	mov ax, SEL_TSS
	call tss_load
	call idt_build
	lidt [rel idtr]
	lea rsi, [rel msg_long]
	call puts
	call steps_find
.loop:	movzx eax, byte [rsi]
	cmp al, ' '
	jbe .all
	push rsi
	call step_run
	pop rsi
	inc rsi
	jmp .loop
.all:	lea rsi, [rel msg_all]
	call puts
	xor eax, eax
	jmp exit

; exit: isa-debug-exit with eax; halts if QEMU has none.
exit:
	mov dx, EXIT_PORT
	out dx, eax
.halt:	cli
	hlt
	jmp .halt

; steps_find: rsi = the step letters (after "steps=" in the command line,
; or the default list).
steps_find:
	lea rsi, [rel default_steps]
	mov ebx, [rel mbi]
	test dword [rbx], 1 << 2
	jz .done
	mov edi, [rbx + 16]
.scan:	mov al, [rdi]
	test al, al
	jz .done
	cmp dword [rdi], 'step'
	jne .skip
	cmp word [rdi + 4], 's='
	jne .skip
	lea rsi, [rdi + 6]
	ret
.skip:	inc rdi
	jmp .scan
.done:	ret

; step_run: run the step with letter al (an unknown letter fails).
step_run:
	mov [rel step_letter], al
	mov byte [rel step_high], 0
	cmp al, 'A'
	jb .named
	cmp al, 'Z'
	ja .named
	mov byte [rel step_high], 1
	or al, 0x20			; its lower-case step
.named:
	lea rsi, [rel msg_step]
	call puts
	lea rsi, [rel msg_start_s]
	call puts
	lea rdi, [rel step_table]
.find:	mov cl, [rdi]
	test cl, cl
	jz .unknown
	cmp cl, al
	je .found
	add rdi, 16
	jmp .find
.found:	mov rax, [rdi + 8]
	cmp byte [rel step_high], 0
	je .call
	mov rcx, [rel kvma]
	add rax, rcx			; the step's higher-half alias
.call:	call rax
	lea rsi, [rel msg_step]
	call puts
	lea rsi, [rel msg_ok_s]
	jmp puts
.unknown:
	lea rsi, [rel msg_unknown]
	call puts
	mov eax, 1
	jmp exit

; ---------------------------------------------------------------- steps
step_cpuid:
	xor eax, eax
	cpuid
	mov [rel vendor], ebx
	mov [rel vendor + 4], edx
	mov [rel vendor + 8], ecx
	lea rsi, [rel msg_vendor]
	call puts
	lea rsi, [rel vendor]
	call puts
	mov eax, 1
	cpuid
	lea rsi, [rel msg_leaf1]
	mov rax, rcx
	call put_field
	mov eax, 7
	xor ecx, ecx
	cpuid
	mov [rel leaf7_ebx], ebx
	push rcx
	lea rsi, [rel msg_leaf7b]
	mov eax, ebx
	call put_field
	pop rax
	lea rsi, [rel msg_leaf7c]
	call put_field
	mov eax, 0x40000000
	cpuid
	mov [rel vendor], ebx
	mov [rel vendor + 4], ecx
	mov [rel vendor + 8], edx
	push rax
	lea rsi, [rel msg_hv]
	call puts
	lea rsi, [rel vendor]
	call puts
	pop rax
	lea rsi, [rel msg_hvmax]
	call put_field
	jmp newline

; step_time: TSC cycles for 1,000,000 turns of a two-instruction loop
; (native execution: about 1-2 M; an instruction emulator: far more).
step_time:
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov rsi, rax
	mov ecx, 1000000
.spin:	dec ecx
	jnz .spin
	rdtsc
	shl rdx, 32
	or rax, rdx
	sub rax, rsi
	push rax
	lea rsi, [rel msg_time]
	call puts
	lea rax, [rel step_time]
	call puthex
	pop rax
	lea rsi, [rel msg_cycles]
	call put_field
	jmp newline

step_x87:
	fninit
	fwait
	ret

step_fxsave:
	fxsave64 [rel fxarea]
	fxrstor64 [rel fxarea]
	ret

step_smap:
	mov eax, 7
	xor ecx, ecx
	cpuid
	test ebx, 1 << 20
	jz .none
	mov rax, cr4
	or rax, 1 << 21
	mov cr4, rax
	clac
	stac
	clac
	ret
.none:	lea rsi, [rel msg_nosmap]
	jmp puts

step_user_low:
	lea rax, [rel syscall_entry]
	jmp user_round_trip

step_user_high:
	lea rax, [rel syscall_entry]
	lea rdx, [rel .high]
	test rdx, rdx
	js .high			; already there (step H)
	mov rcx, [rel kvma]
	add rax, rcx
	add rdx, rcx
	jmp rdx				; run the rest from the higher half
.high:	jmp user_round_trip

; user_round_trip: LSTAR = rax; STAR, SFMASK, EFER.SCE as Vernier; SMEP;
; iretq to user_code; returns when user code makes syscall 0.
user_round_trip:
	mov rdx, rax
	shr rdx, 32
	mov ecx, MSR_LSTAR
	wrmsr
	mov ecx, MSR_STAR
	xor eax, eax
	movzx edx, word [rel sel_ucode32]
	or edx, 3
	shl edx, 16
	or dx, [rel sel_kcode]
	wrmsr
	mov ecx, MSR_SFMASK
	mov eax, SFMASK_BITS
	xor edx, edx
	wrmsr
	mov ecx, MSR_EFER
	rdmsr
	or eax, 1			; SCE
	wrmsr
	mov eax, 7
	xor ecx, ecx
	cpuid
	test ebx, 1 << 7
	jz .nosmep
	mov rax, cr4
	or rax, 1 << 20			; SMEP, where CPUID has it (as Vernier)
	mov cr4, rax
.nosmep:
	mov r12d, [rel user_spin]
	mov [rel kernel_rsp], rsp
	cmp byte [rel enter_sysret], 0
	jne .sysret
	movzx eax, word [rel sel_udata]
	or eax, 3
	push rax
	push PHYS(user_stack) + 4096
	push 0x002			; IF off: no handlers for IRQs
	movzx eax, word [rel sel_ucode]
	or eax, 3
	push rax
	push qword [rel user_entry]
	iretq
.sysret:
	mov ecx, PHYS(user_code)
	mov r11d, 0x002
	mov esp, PHYS(user_stack) + 4096
	o64 sysret

; step_dmap: the higher-half alias of the following steps is
; 0xffff800000000000 + physical (PML4 slot 256) instead of the top 2 GiB.
step_dmap:
	mov rax, DMAP
	mov [rel kvma], rax
	ret

; step_spin: the user code of the following u/h steps spins 1,000,000
; times before its first SYSCALL (r13 = the TSC cycles it took).
step_spin:
	mov dword [rel user_spin], 1000000
	ret

; step_sysret_entry: the next u/h steps enter user mode with SYSRET.
step_sysret_entry:
	mov byte [rel enter_sysret], 1
	ret

; step_linux_gdt: switch to Linux's GDT layout (kernel CS 0x10, DS 0x18,
; user CS32 0x23, DS 0x2b, CS 0x33, TSS 0x40) for the following steps.
step_linux_gdt:
	mov word [rel sel_kcode], 0x10
	mov word [rel sel_ucode32], 0x20
	mov word [rel sel_udata], 0x28
	mov word [rel sel_ucode], 0x30
	lgdt [rel gdtr_linux]
	lea rax, [rel .reload]
	push 0x10
	push rax
	o64 retf
.reload:
	mov ax, 0x18
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea rdi, [rel gdt_linux + 0x40]
	mov ax, 0x40
	call tss_load
	jmp idt_build			; the gates name the new kernel CS

; syscall_entry: CPL 0 from user_code's SYSCALL. rax 0: back to the step;
; otherwise print and SYSRET.
syscall_entry:
	mov [rel user_rsp], rsp
	mov rsp, [rel kernel_rsp]
	sub rsp, 8
	push rcx
	push r11
	push rax
	lea rsi, [rel msg_syscall]
	call puts
	pop rax
	push rax
	call puthex
	lea rsi, [rel msg_rip]
	mov rax, [rsp + 16]
	call put_field
	lea rsi, [rel msg_rflags]
	mov rax, [rsp + 8]
	call put_field
	pushfq
	pop rax
	lea rsi, [rel msg_kflags]
	call put_field
	lea rsi, [rel msg_r13]
	mov rax, r13
	call put_field
	call newline
	pop rax
	pop r11
	pop rcx
	add rsp, 8
	test rax, rax
	jz .done
	mov rsp, [rel user_rsp]
	o64 sysret
.done:	mov rsp, [rel kernel_rsp]
	ret				; from user_round_trip

; ---------------------------------------------------------------- output
; puts: the NUL-terminated string at rsi to COM1.
puts:
	push rax
	push rdx
	mov dx, COM1
.next:	lodsb
	test al, al
	jz .done
	out dx, al
	jmp .next
.done:	pop rdx
	pop rax
	ret

; put_field: the string at rsi, then rax in hex.
put_field:
	call puts
	; fall through
; puthex: rax as 16 hex digits.
puthex:
	push rcx
	push rdx
	push rax
	mov rcx, 16
	mov dx, COM1
.dig:	rol rax, 4
	push rax
	and eax, 15
	add al, '0'
	cmp al, '9'
	jbe .out
	add al, 'a' - '9' - 1
.out:	out dx, al
	pop rax
	loop .dig
	pop rax
	pop rdx
	pop rcx
	ret

newline:
	push rsi
	lea rsi, [rel msg_nl]
	call puts
	pop rsi
	ret

; ---------------------------------------------------------------- traps
; idt_build: vectors 0-31 to the stubs below (64-bit interrupt gates).
idt_build:
	lea rdi, [rel idt]
	lea rax, [rel trap_stubs]
	mov ecx, 32
.gate:	mov rdx, rax
	mov [rdi], ax
	mov dx, [rel sel_kcode]
	mov [rdi + 2], dx
	mov word [rdi + 4], 0x8e00
	shr rdx, 16
	mov [rdi + 6], dx
	shr rdx, 16
	mov [rdi + 8], edx
	mov dword [rdi + 12], 0
	add rax, 16
	add rdi, 16
	loop .gate
	lea rdi, [rel idt + 0x80 * 16]	; int 0x80 from user mode: DPL 3
	lea rax, [rel int80_entry]
	mov rdx, rax
	mov [rdi], ax
	mov dx, [rel sel_kcode]
	mov [rdi + 2], dx
	mov word [rdi + 4], 0xee00
	mov rdx, rax
	shr rdx, 16
	mov [rdi + 6], dx
	shr rdx, 16
	mov [rdi + 8], edx
	ret

; int80_entry: user_int's int 0x80. rax 0: back to the step; otherwise
; print and iretq.
int80_entry:
	test rax, rax
	jz .done
	push rax
	lea rsi, [rel msg_int80]
	call puts
	pop rax
	call puthex
	lea rsi, [rel msg_rip]
	mov rax, [rsp]
	call put_field
	lea rsi, [rel msg_cs]
	mov rax, [rsp + 8]
	call put_field
	call newline
	iretq
.done:	mov rsp, [rel kernel_rsp]
	ret				; from user_round_trip

; step_int80: user mode by iretq, back to the kernel by int 0x80 twice
; (a DPL 3 interrupt gate), iretq between.
step_int80:
	lea rax, [rel user_int]
	and eax, 0x1fffff		; its identity-mapped address
	mov [rel user_entry], rax
	lea rax, [rel syscall_entry]
	call user_round_trip
	mov qword [rel user_entry], PHYS(user_code)
	ret

; tss_load: the TSS descriptor at rdi (RSP0 = a stack of its own: the
; kernel stack is in use below the frames of the steps), ltr ax.
tss_load:
	push rax
	lea rax, [rel tss]
	lea rdx, [rel trap_stack_top]
	mov [rax + 4], rdx		; rsp0
	mov word [rdi], 103
	mov [rdi + 2], ax
	shr rax, 16
	mov [rdi + 4], al
	mov byte [rdi + 5], 0x89
	mov byte [rdi + 6], 0
	mov [rdi + 7], ah
	shr rax, 16
	mov [rdi + 8], eax
	mov dword [rdi + 12], 0
	pop rax
	ltr ax
	ret

%macro TRAP 1
	align 16
%if (%1 == 8) || (%1 >= 10 && %1 <= 14) || (%1 == 17) || (%1 == 21) || (%1 == 29) || (%1 == 30)
	push byte %1
%else
	push byte 0
	push byte %1
%endif
	jmp trap_common
%endmacro

	align 16
trap_stubs:
%assign v 0
%rep 32
	TRAP v
%assign v v + 1
%endrep

; trap_common: [rsp] vector, error, rip, cs, rflags, rsp, ss. Print, fail.
; (The stubs of vectors without an error code push a zero.)
trap_common:
	lea rsi, [rel msg_trap]
	mov rax, [rsp]
	call put_field
	lea rsi, [rel msg_err]
	mov rax, [rsp + 8]
	call put_field
	lea rsi, [rel msg_rip]
	mov rax, [rsp + 16]
	call put_field
	lea rsi, [rel msg_cs]
	mov rax, [rsp + 24]
	call put_field
	lea rsi, [rel msg_rflags_t]
	mov rax, [rsp + 32]
	call put_field
	lea rsi, [rel msg_rsp_t]
	mov rax, [rsp + 40]
	call put_field
	lea rsi, [rel msg_ss_t]
	mov rax, [rsp + 48]
	call put_field
	lea rsi, [rel msg_cr2]
	mov rax, cr2
	call put_field
	lea rsi, [rel msg_r13]
	mov rax, r13
	call put_field
	call newline
	mov eax, 1
	jmp exit

; ---------------------------------------------------------------- data
	align 8
gdt:	dq 0
	dq 0x00af9a000000ffff		; 0x08 kernel code
	dq 0x00cf92000000ffff		; 0x10 kernel data
	dq 0x00cffa000000ffff		; 0x18 user code 32
	dq 0x00cff2000000ffff		; 0x20 user data
	dq 0x00affa000000ffff		; 0x28 user code
	dq 0, 0				; 0x30 TSS
gdt_end:
gdt_linux:
	dq 0, 0
	dq 0x00af9a000000ffff		; 0x10 kernel code
	dq 0x00cf92000000ffff		; 0x18 kernel data
	dq 0x00cffa000000ffff		; 0x20 user code 32
	dq 0x00cff2000000ffff		; 0x28 user data
	dq 0x00affa000000ffff		; 0x30 user code
	dq 0
	dq 0, 0				; 0x40 TSS
gdt_linux_end:
gdtr_linux:
	dw gdt_linux_end - gdt_linux - 1
	dq PHYS(gdt_linux)
gdtr:	dw gdt_end - gdt - 1
	dq PHYS(gdt)
idtr:	dw 256 * 16 - 1
	dq PHYS(idt)

step_table:
	dq 'c', step_cpuid
	dq 't', step_time
	dq 'f', step_x87
	dq 'i', step_int80
	dq 'x', step_fxsave
	dq 'a', step_smap
	dq 'u', step_user_low
	dq 'h', step_user_high
	dq 's', step_sysret_entry
	dq 'w', step_spin
	dq 'p', step_dmap
	dq 'l', step_linux_gdt
	dq 0, 0

default_steps:	db "cfxauh", 0
msg_start:	db "probe: start (32-bit)", 10, 0
msg_long:	db "probe: long mode", 10, 0
msg_all:	db "probe: all steps ok", 10, 0
msg_step:	db "probe: step "
step_letter:	db "?", 0
msg_start_s:	db " start", 10, 0
msg_ok_s:	db " ok", 10, 0
msg_unknown:	db "probe: unknown step", 10, 0
msg_vendor:	db "probe: cpuid vendor ", 0
msg_leaf1:	db " leaf1.ecx ", 0
msg_leaf7b:	db " leaf7.ebx ", 0
msg_leaf7c:	db " leaf7.ecx ", 0
msg_hv:		db 10, "probe: cpuid 0x40000000 ", 0
msg_hvmax:	db " max ", 0
msg_time:	db "probe: loop at ", 0
msg_cycles:	db " took cycles ", 0
msg_nosmap:	db "probe: no SMAP in CPUID, skipped", 10, 0
msg_syscall:	db "probe: syscall ", 0
msg_rip:	db " rip ", 0
msg_rflags:	db " user rflags ", 0
msg_kflags:	db " kernel rflags ", 0
msg_trap:	db "probe: exception ", 0
msg_err:	db " error ", 0
msg_cs:		db " cs ", 0
msg_rflags_t:	db " rflags ", 0
msg_rsp_t:	db " rsp ", 0
msg_ss_t:	db " ss ", 0
msg_int80:	db "probe: int 0x80 ", 0
msg_r13:	db " r13 ", 0
msg_cr2:	db " cr2 ", 0
msg_nl:		db 10, 0

	align 8
mbi:		dq 0
user_entry:	dq PHYS(user_code)
user_spin:	dq 1
kvma:		dq KVMA
sel_kcode:	dw SEL_KCODE
sel_ucode32:	dw SEL_UCODE32
sel_udata:	dw SEL_UDATA
sel_ucode:	dw SEL_UCODE
enter_sysret:	db 0
	align 8
step_high:	dq 0
kernel_rsp:	dq 0
user_rsp:	dq 0
leaf7_ebx:	dq 0
vendor:		times 16 db 0
tss:		times 104 db 0

; ---------------------------------------------------------------- user
	align 4096
user_code:
	rdtsc				; r13: TSC cycles the spin took
	shl rdx, 32
	or rax, rdx
	mov r13, rax
	mov ecx, r12d			; user_round_trip's spin count
.spin:	dec ecx				; user work before the first SYSCALL
	jnz .spin
	rdtsc
	shl rdx, 32
	or rax, rdx
	sub rax, r13
	mov r13, rax
	mov rax, 1
	syscall
	pushfq				; DF and AC on: SFMASK must clear them
	or qword [rsp], (1 << 10) | (1 << 18)
	popfq
	mov rax, 2
	syscall
	xor eax, eax
	syscall
	ud2
user_int:
	mov rax, 1
	int 0x80
	mov rax, 2
	int 0x80
	xor eax, eax
	int 0x80
	ud2

	align 4096
user_stack:	times 4096 db 0

	align 16
fxarea:		times 512 db 0
	align 4096
idt:		times 4096 db 0
pml4:		times 4096 db 0
pdpt:		times 4096 db 0
pdpt_hi:	times 4096 db 0
pd:		times 4096 db 0
pt:		times 4096 db 0
kstack:		times 4096 db 0
kstack_top:
trap_stack:	times 4096 db 0
trap_stack_top:
