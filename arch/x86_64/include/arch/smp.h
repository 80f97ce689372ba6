/* x86-64 hooks behind kernel/smp.c. */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <kernel/cpu.h>

/* C entry of an AP from the trampoline. */
void ap_entry(cpu_t *c) __noreturn;

/* Find the CPUs in the firmware tables and start each one. */
void arch_smp_boot(void);
/* Fixed-vector IPI to one CPU / to all others. */
void arch_send_ipi(cpu_t *c, unsigned vector);
void arch_send_ipi_others(unsigned vector);
/* The scheduler's reschedule IPI to c. */
static inline void arch_send_resched(cpu_t *c)
{
	arch_send_ipi(c, VEC_IPI_RESCHED);
}

/* The smp_call_all IPI to every other CPU. */
static inline void arch_send_call_others(void)
{
	arch_send_ipi_others(VEC_IPI_CALL);
}

/* The smp_call_all IPI to c alone (sent again to a silent CPU). */
static inline void arch_send_call(cpu_t *c)
{
	arch_send_ipi(c, VEC_IPI_CALL);
}

/* NMI IPI to one CPU / to all others. Any context. */
void arch_send_nmi(cpu_t *c);
void arch_send_nmi_others(void);
/* Halt this CPU for good (interrupts off). */
void arch_cpu_stop(void) __noreturn;
/* Enable interrupts and halt until the next one, atomically. */
static inline void arch_idle(void)
{
	irqlat_off_end();
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* Set up this CPU's local timer for hz ticks per second. */
void arch_timer_init_cpu(unsigned hz);

#endif
