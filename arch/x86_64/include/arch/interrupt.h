/*
 * x86-64 interrupt frames and vectors.
 *
 * Vectors: 0-31 exceptions, 0x20-0x2f ISA IRQs through the IOAPIC,
 * 0xf0 and up local APIC sources and IPIs.
 */
#ifndef ARCH_INTERRUPT_H
#define ARCH_INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VEC_DE 0
#define VEC_DB 1
#define VEC_NMI 2
#define VEC_BP 3
#define VEC_UD 6
#define VEC_DF 8
#define VEC_GP 13
#define VEC_PF 14
#define VEC_MC 18
#define VEC_IRQ_BASE 0x20
#define VEC_TIMER 0xf0
#define VEC_IPI_CALL 0xf1
#define VEC_IPI_RESCHED 0xf2
#define VEC_IPI_PROF 0xf3           /* profiler: the rtc source's rebroadcast */
#define VEC_PROF_PROBE 0xf4         /* profiler: timing an empty self-interrupt */
#define VEC_LAPIC_CAL 0xf5          /* the local APIC timer's calibration */
#define VEC_APIC_ERROR 0xfe
#define VEC_SPURIOUS 0xff

#define IST_NMI 1
#define IST_DF 2
#define IST_MC 3
#define IST_COUNT 3

#define SEL_KCODE 0x08
#define SEL_KDATA 0x10
#define SEL_UCODE32 0x18
#define SEL_UDATA 0x20
#define SEL_UCODE 0x28
#define SEL_TSS 0x30

/* Saved state on every interrupt, exception and NMI (see isr.asm). */
typedef struct int_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
} int_frame_t;

typedef void (*irq_handler_t)(int_frame_t *f);

/* True if the frame was taken from user mode. */
static inline int frame_from_user(const int_frame_t *f)
{
	return (f->cs & 3) != 0;
}

/* Install the handler for a vector >= 32; replaces any previous one. */
void irq_set_handler(unsigned vector, irq_handler_t fn);
/* The handler installed for vector (NULL if none). */
irq_handler_t irq_get_handler(unsigned vector);

/*
 * The interrupts the generic kernel installs handlers for, by name (it
 * never sees a vector number).
 */
static inline void arch_set_timer_handler(irq_handler_t fn)
{
	irq_set_handler(VEC_TIMER, fn);
}

static inline void arch_set_call_handler(irq_handler_t fn)
{
	irq_set_handler(VEC_IPI_CALL, fn);
}

static inline void arch_set_resched_handler(irq_handler_t fn)
{
	irq_set_handler(VEC_IPI_RESCHED, fn);
}

/* The vector of ISA line irq (for handlers and routing). */
static inline unsigned arch_irq_vector(unsigned irq)
{
	return VEC_IRQ_BASE + irq;
}

/* The ISA line of an interrupt taken on arch_irq_vector(irq). */
static inline unsigned arch_irq_line(const int_frame_t *f)
{
	return (unsigned)(f->vector - VEC_IRQ_BASE);
}

/* Load the shared IDT on this CPU (the first call builds it). */
void idt_load(void);

/* Build this CPU's GDT and TSS (IST stacks from ist_tops) and load them. */
struct cpu;
void gdt_init_cpu(struct cpu *c, const uint64_t ist_tops[IST_COUNT]);

/* C entry from isr.asm for every vector. */
void interrupt_dispatch(int_frame_t *f);

/*
 * The C entry of every interrupt, exception and NMI, for the call
 * profiler: its calls are top-level paths wherever they interrupt.
 */
#define ARCH_IRQ_ENTRY_FN ((uintptr_t)interrupt_dispatch)

/* System call frames (SYSCALL_VECTOR): number and arguments, result. */
#define SYSCALL_VECTOR 0x80

static inline uint64_t syscall_nr(const int_frame_t *f)
{
	return f->rax;
}

static inline void syscall_args(const int_frame_t *f, uint64_t a[6])
{
	a[0] = f->rdi;
	a[1] = f->rsi;
	a[2] = f->rdx;
	a[3] = f->r10;
	a[4] = f->r8;
	a[5] = f->r9;
}

static inline void syscall_set_result(int_frame_t *f, int64_t v)
{
	f->rax = (uint64_t)v;
}

/*
 * Six words a system call returns beside its result (SYS_IPC_CALL_SHORT's
 * answer), in the argument registers: into the user frame at the top of
 * the calling thread's kernel stack (kstack_top), which the exit loads
 * back (syscall_entry.asm). The current thread's, in its system call.
 */
static inline void syscall_set_words(uintptr_t kstack_top, const uint64_t w[6])
{
	int_frame_t *f = (int_frame_t *)(kstack_top - sizeof(int_frame_t));

	f->rdi = w[0];
	f->rsi = w[1];
	f->rdx = w[2];
	f->r10 = w[3];
	f->r8 = w[4];
	f->r9 = w[5];
}

/* The instruction pointer of the interrupted code. */
static inline uint64_t frame_pc(const int_frame_t *f)
{
	return f->rip;
}

/* Set up SYSCALL/SYSRET on this CPU. */
void syscall_init_cpu(void);

/*
 * The name of vector v into buf ("#PF page fault", "IRQ 4", "local APIC
 * timer"); whether the vector is in use (an exception, a named vector or
 * one with a handler).
 */
bool arch_vector_name(unsigned v, char *buf, size_t size);

#endif
