"""test/lib/fakekernel.py - a tiny multiboot2 kernel to test the harness.

It needs no part of Vernier: test/harness.t assembles it (nasm + ld) into
a temp dir, puts it on ISOs with tools/mkiso.sh and boots it with vm.boot.
What it does depends on the start of its command line:

    (empty)    "fake: ..." then, like Vernier, "mm: kernel footprint: ...",
               "boot: 3 ms from kernel entry to smp online" and
               "smp: N CPUs online" (N from QEMU's fw_cfg, 1 elsewhere),
               then halts
    ktest      TAP (3 tests, one skipped) mixed with log lines, then
               isa-debug-exit 0 (QEMU exit code 1)
    ktestfail  TAP with a failing test, isa-debug-exit 1 (exit code 3)
    exit5      isa-debug-exit 5 (exit code 11)
    hang       halts at once (for timeouts)

The first line is always "fake: harness test kernel, cmdline=...".
"""

import os
import subprocess

SOURCE = r"""
; Fake multiboot2 kernel for harness tests.
bits 32
section .text
align 8
mb2:
    dd 0xe85250d6
    dd 0
    dd mb2_end - mb2
    dd -(0xe85250d6 + (mb2_end - mb2))
    dw 0, 0
    dd 8
mb2_end:

global _start
_start:
    mov esp, stack_top
    mov [info], ebx
    ; COM1 115200 8N1
    mov dx, 0x3f9
    xor al, al
    out dx, al
    mov dx, 0x3fb
    mov al, 0x80
    out dx, al
    mov dx, 0x3f8
    mov al, 1
    out dx, al
    mov dx, 0x3f9
    xor al, al
    out dx, al
    mov dx, 0x3fb
    mov al, 3
    out dx, al
    ; find cmdline (tag type 1)
    mov ebx, [info]
    lea esi, [ebx + 8]
.tag:
    mov eax, [esi]
    test eax, eax
    jz .nocmd
    cmp eax, 1
    je .gotcmd
    mov eax, [esi + 4]
    add eax, 7
    and eax, ~7
    add esi, eax
    jmp .tag
.gotcmd:
    add esi, 8
    mov [cmdline], esi
    jmp .go
.nocmd:
    mov dword [cmdline], empty
.go:
    mov esi, s_hello
    call puts
    mov esi, [cmdline]
    call puts
    mov esi, s_nl
    call puts
    mov esi, [cmdline]
    mov edi, k_ktestfail
    call startswith
    jz ktestfail
    mov esi, [cmdline]
    mov edi, k_ktest
    call startswith
    jz ktest
    mov esi, [cmdline]
    mov edi, k_hang
    call startswith
    jz halt
    mov esi, [cmdline]
    mov edi, k_exit
    call startswith
    jz do_exit5
    ; normal boot
    mov esi, s_mm
    call puts
    mov esi, s_boot
    call puts
    ; cpu count from fw_cfg
    mov dx, 0x510
    mov ax, 5
    out dx, ax
    mov dx, 0x511
    in al, dx
    movzx ecx, al
    in al, dx
    movzx eax, al
    shl eax, 8
    or eax, ecx
    cmp eax, 0xffff
    jne .cnt
    mov eax, 1
.cnt:
    push eax
    mov esi, s_smp1
    call puts
    pop eax
    call putdec
    mov esi, s_smp2
    call puts
halt:
    cli
.h: hlt
    jmp .h

ktest:
    mov esi, s_ktest
    call puts
    xor al, al
    out 0xf4, al
    jmp halt
ktestfail:
    mov esi, s_ktestfail
    call puts
    mov al, 1
    out 0xf4, al
    jmp halt
do_exit5:
    mov al, 5
    out 0xf4, al
    jmp halt

; esi = string, edi = prefix; ZF=1 if esi starts with edi
startswith:
.l: mov al, [edi]
    test al, al
    jz .yes
    cmp al, [esi]
    jne .no
    inc esi
    inc edi
    jmp .l
.yes:
    xor eax, eax
    ret
.no:
    or eax, 1
    ret

putc:   ; al
    push edx
    push eax
    mov dx, 0x3fd
.w: in al, dx
    test al, 0x20
    jz .w
    pop eax
    mov dx, 0x3f8
    out dx, al
    pop edx
    ret

puts:   ; esi
.l: lodsb
    test al, al
    jz .d
    call putc
    jmp .l
.d: ret

putdec: ; eax
    mov ecx, 10
    xor ebx, ebx
.d: xor edx, edx
    div ecx
    push edx
    inc ebx
    test eax, eax
    jnz .d
.p: pop eax
    add al, '0'
    call putc
    dec ebx
    jnz .p
    ret

section .rodata
empty: db 0
s_nl: db 10, 0
s_hello: db "fake: harness test kernel, cmdline=", 0
s_mm: db "mm: kernel footprint: 12 KiB text, 4 KiB data", 10, 0
s_boot: db "boot: 3 ms from kernel entry to smp online", 10, 0
s_smp1: db "smp: ", 0
s_smp2: db " CPUs online", 10, 0
k_ktest: db "ktest", 0
k_ktestfail: db "ktestfail", 0
k_hang: db "hang", 0
k_exit: db "exit5", 0
s_ktest: db "1..3", 10, "ok 1 - fake: first", 10, "mm: noise", 10, "# a diagnostic", 10
         db "ok 2 - fake: second", 10, "ok 3 - fake: third # SKIP no such thing", 10, 0
s_ktestfail: db "1..3", 10, "ok 1 - fake: first", 10, "not ok 2 - fake: second", 10, "# failed here", 10, 0

section .bss
align 16
info: resd 1
cmdline: resd 1
stack: resb 4096
stack_top:
"""


def build(outdir):
    """Assemble and link the fake kernel in outdir; returns the ELF path."""
    asm = os.path.join(outdir, "fake.asm")
    obj = os.path.join(outdir, "fake.o")
    elf = os.path.join(outdir, "fake.elf")
    with open(asm, "w") as f:
        f.write(SOURCE)
    subprocess.run(["nasm", "-f", "elf32", asm, "-o", obj], check=True)
    # -N: one RWX segment at 1 MiB (no ELF headers loaded below it).
    subprocess.run(["ld", "-m", "elf_i386", "-N", "-Ttext=0x100000",
                    "-e", "_start", "--no-warn-rwx-segments", "-o", elf, obj],
                   check=True)
    return elf
