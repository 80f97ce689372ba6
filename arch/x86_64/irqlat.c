/*
 * Per-CPU latency maxima for sysinfo system.cpus: the longest section
 * with interrupts off and the longest NMI handler since boot, in TSC
 * cycles.
 *
 * An interrupts-off section opens when IF goes from 1 to 0 through
 * irq_save()/irq_disable() (spin_lock_irqsave() too) or through an
 * interrupt or exception gate taken with IF set (interrupt_dispatch), and
 * closes just before IF goes back to 1 through irq_restore()/irq_enable(),
 * the return from that interrupt, the return to user mode
 * (user_return_work, a new thread's first entry) or the idle loop's
 * sti; hlt. Not covered: the few instructions of the entry and exit
 * stubs (isr.asm, syscall_entry.asm: SYSCALL masks IF until its sti) and
 * NMIs (they do not touch the section; their own maximum is nmi_max).
 * A section that ends another way leaves no false value: a close with
 * nothing open does nothing, and the next open overwrites a stale one.
 *
 * The open and close are inline in arch/cpu.h (GS-relative, no call):
 * one RDTSC and two stores per open (the time and the site, the PC of the
 * code it is inlined in); a load, a test, and when a section is open one
 * RDTSC, two more loads, five stores and a compare per close (the last
 * closed section's open, close and site stay for irqlat_late_site, so a
 * timer sample the section held back is charged to it); plus a PUSHF/POP
 * in irq_disable. README "Soak" gives the measured cost. A system call's
 * return opens its section as the last one (irqlat_ret_begin) and its
 * exit stamp closes it (syscall_entry.asm); the next entry from user mode
 * folds it into the maximum (irqlat_ret_fold, kernel/cpu.h).
 *
 * Not instrumented for the call profiler (the NMI path must not call it).
 */
#include <arch/cpu.h>
#include <kernel/cpu.h>

/* Record an NMI handler that started at TSC start. NMI context: lock-free. */
void irqlat_nmi_end(uint64_t start)
{
	cpu_lat_t *l = &cpu_current()->lat;
	uint64_t d = rdtsc() - start;

	if (d > l->nmi_max)
		__atomic_store_n(&l->nmi_max, d, __ATOMIC_RELAXED);
}

uint64_t irqlat_late_site(uint64_t due)
{
	const cpu_lat_t *l = &cpu_current()->lat;

	if ((int64_t)(due - l->last_open) < 0 || (int64_t)(l->last_close - due) <= 0)
		return 0;
	return l->last_site;
}
