/* x86-64 thread plumbing: initial stacks, switches, FPU/SSE state. */
#include <arch/cpu.h>
#include <arch/thread.h>
#include <kernel/cpu.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define CR0_MP (1ul << 1)
#define CR0_EM (1ul << 2)
#define CR0_TS (1ul << 3)
#define CR4_OSFXSR (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)

void arch_context_switch(uint64_t *save_rsp, uint64_t load_rsp);
void thread_start_asm(void);

static uint8_t fpu_initial[FPU_AREA_SIZE] __aligned(16);

void arch_thread_setup(thread_t *t)
{
	uint64_t *sp = (uint64_t *)t->kstack_top;

	*--sp = 0;                              /* alignment: rsp ≡ 8 at entry */
	*--sp = (uint64_t)thread_start_asm;     /* return address */
	for (int i = 0; i < 6; i++)             /* rbp rbx r12 r13 r14 r15 */
		*--sp = 0;
	t->arch.rsp = (uint64_t)sp;
}

static void fpu_save(thread_t *t)
{
	__asm__ volatile("fxsave64 %0" : "=m"(t->arch.fpu));
}

static void fpu_restore(thread_t *t)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(t->arch.fpu));
}

/* Enable SSE on this CPU (user code uses it; the kernel never does). */
static void fpu_enable_cpu(void)
{
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
}

void arch_fpu_init(void)
{
	fpu_enable_cpu();
	/* MXCSR is 0x1f80 after reset; fninit gives x87 control word 0x37f. */
	__asm__ volatile("fninit; fxsave64 %0" : "=m"(fpu_initial) : : "memory");
}

void arch_fpu_reset(thread_t *t)
{
	memcpy(t->arch.fpu, fpu_initial, FPU_AREA_SIZE);
}

/*
 * The TSS map (0 = allowed) holds the inverse of the task's bits for the
 * ports below IOPORT_USER_LIMIT; every byte above stays 0xff (gdt.c).
 */
void arch_ioports_load(const task_t *t)
{
	cpu_t *c = cpu_current();

	if (!__atomic_load_n(&t->ioports_any, __ATOMIC_ACQUIRE)) {
		c->arch.tss.iopb = TSS_NO_IOMAP;
		return;
	}
	for (size_t i = 0; i < sizeof(t->ioports); i++)
		c->arch.iomap[i] = (uint8_t)~__atomic_load_n(&t->ioports[i], __ATOMIC_RELAXED);
	c->arch.tss.iopb = sizeof(tss_t);
}

/* Interrupts from user mode land on the TSS's rsp0, SYSCALL on kernel_rsp. */
void arch_cpu_set_kernel_stack(cpu_t *c, uintptr_t top)
{
	c->arch.tss.rsp[0] = top;
	c->arch.kernel_rsp = top;
}

static paddr_t thread_root(thread_t *t)
{
	vm_space_t *s = t->task->space;
	return s ? s->root : vm_kernel_root();
}

void arch_thread_switch(thread_t *prev, thread_t *next)
{
	cpu_t *c = cpu_current();

	if (!prev->kernel)
		fpu_save(prev);
	if (!next->kernel)
		fpu_restore(next);
	arch_ioports_load(next->task);
	arch_cpu_set_kernel_stack(c, next->kstack_top);
	if (thread_root(prev) != thread_root(next))
		write_cr3(thread_root(next));
	arch_context_switch(&prev->arch.rsp, next->arch.rsp);
}
