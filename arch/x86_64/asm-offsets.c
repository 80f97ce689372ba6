/*
 * The offsets and constants the kernel's assembly takes from C, the one
 * source of $(BUILD)/gen/asm-offsets.inc. Never linked: the Makefile
 * compiles this file with -S and tools/asm-offsets.py turns each
 * ASM_OFFSET marker of the output into a NASM %define (the .inc says it
 * is generated). A new one: an ASM_OFFSET line below, then
 * %include "asm-offsets.inc" in the .asm file and use the name there
 * (docs/ARCHITECTURE.md, "Per-CPU data"; test/structure.t's gsoff rule
 * rejects any other per-CPU offset in assembly).
 */
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <kernel/cpu.h>
#include <stddef.h>

/*
 * One marker line in the assembler output: "@asm-offset NAME VALUE EXPR".
 * The "i" constraint makes a value that is not a compile-time constant
 * an error; %p prints it bare (%c refuses a constant wider than 32 bits).
 */
#define ASM_OFFSET(name, value)                                              \
	__asm__ volatile("\n.ascii \"@asm-offset " #name " %p0 " #value "\"" \
			 : : "i"((long)(value)))

void asm_offsets(void);

/* Never called: the markers its body leaves in the -S output are the product. */
void asm_offsets(void)
{
	/* syscall_entry.asm: the stacks and the accounting's edges, GS-relative. */
	ASM_OFFSET(CPU_KERNEL_RSP, offsetof(cpu_t, arch.kernel_rsp));
	ASM_OFFSET(CPU_USER_RSP, offsetof(cpu_t, arch.user_rsp));
	ASM_OFFSET(CPU_STAMP_RAX, offsetof(cpu_t, arch.stamp_save[0]));
	ASM_OFFSET(CPU_STAMP_RDX, offsetof(cpu_t, arch.stamp_save[1]));
	ASM_OFFSET(CPU_EDGE_ENTRY, offsetof(cpu_t, edge.entry));
	ASM_OFFSET(CPU_EDGE_EXIT, offsetof(cpu_t, edge.exit));
	/* isr.asm: the interrupts-off section the gate opens and the iretq ends. */
	ASM_OFFSET(CPU_IRQOFF_SINCE, offsetof(cpu_t, lat.irqoff_since));
	ASM_OFFSET(CPU_LAST_CLOSE, offsetof(cpu_t, lat.last_close));
	ASM_OFFSET(CPU_LAST_OPEN, offsetof(cpu_t, lat.last_open));
	ASM_OFFSET(CPU_LAST_SITE, offsetof(cpu_t, lat.last_site));
	ASM_OFFSET(CPU_IRQOFF_SITE, offsetof(cpu_t, lat.irqoff_site));
	ASM_OFFSET(CPU_IRQOFF_MAX, offsetof(cpu_t, lat.irqoff_max));

	/* isr.asm and syscall_entry.asm: the int_frame_t the stubs build. */
	ASM_OFFSET(FRAME_RIP, offsetof(int_frame_t, rip));
	ASM_OFFSET(FRAME_CS, offsetof(int_frame_t, cs));
	ASM_OFFSET(FRAME_RFLAGS, offsetof(int_frame_t, rflags));
	ASM_OFFSET(FRAME_RSP, offsetof(int_frame_t, rsp));
	ASM_OFFSET(FRAME_RAX, offsetof(int_frame_t, rax));
	ASM_OFFSET(FRAME_RDX, offsetof(int_frame_t, rdx));
	ASM_OFFSET(FRAME_RSI, offsetof(int_frame_t, rsi));
	ASM_OFFSET(FRAME_RDI, offsetof(int_frame_t, rdi));
	ASM_OFFSET(FRAME_RBP, offsetof(int_frame_t, rbp));
	ASM_OFFSET(FRAME_R8, offsetof(int_frame_t, r8));
	ASM_OFFSET(FRAME_R9, offsetof(int_frame_t, r9));
	ASM_OFFSET(FRAME_R10, offsetof(int_frame_t, r10));
	ASM_OFFSET(FRAME_ERROR, offsetof(int_frame_t, error));
	ASM_OFFSET(RFLAGS_IF, RFLAGS_IF);
	ASM_OFFSET(SYSCALL_VECTOR, SYSCALL_VECTOR);
	ASM_OFFSET(MSR_GS_BASE, MSR_GS_BASE);
}
