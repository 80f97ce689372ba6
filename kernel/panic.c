/*
 * panic(): claim the panic, stop every other CPU with an NMI, print the
 * message and a backtrace without taking locks, dump the flight recorder
 * to the dump port (prof_panic_dump), then halt, or under ktest tell the
 * test machine that we failed.
 */
#include <arch/cpu.h>
#include <kernel/ksym.h>
#include <kernel/platform.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/prof.h>
#include <kernel/smp.h>
#include <lib/fmt.h>
#include <stdarg.h>

static volatile int panicking = -1;

/* Enter panic state; a second CPU panicking at the same time just stops. */
void panic_begin(void)
{
	int me = cpu_current() ? (int)cpu_id() : 0;
	int expected = -1;

	irq_disable();
	if (!__atomic_compare_exchange_n(&panicking, &expected, me, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (expected != me)
			for (;;)
				cpu_halt();
		platform_fail_stop();     /* panicked inside panic */
	}
	smp_stop_others();
}

void panic_end(void)
{
	prof_panic_dump();
	printk_unlocked("panic: %u other CPUs stopped by NMI; system halted\n",
			smp_cpus_stopped());
	platform_fail_stop();
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	uintptr_t bt[16];

	panic_begin();
	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk_unlocked("panic: %s\n", buf);
	size_t n = backtrace_here(bt, 16);
	backtrace_print(bt, n, false);
	panic_end();
}
