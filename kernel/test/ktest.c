/* The ktest runner: TAP on the console, verdict through the platform. */
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/smp.h>

extern const ktest_t __ktest_start[], __ktest_end[];

void ktest_run(void)
{
	size_t n = (size_t)(__ktest_end - __ktest_start);
	size_t failed = 0;

	printk("1..%zu\n", n);
	for (size_t i = 0; i < n; i++) {
		bool ok = __ktest_start[i].fn();
		printk("%s %zu - %s\n", ok ? "ok" : "not ok", i + 1, __ktest_start[i].name);
		failed += !ok;
	}
	printk("ktest: %zu passed, %zu failed\n", n - failed, failed);
	platform_test_exit(failed == 0);
}

static __noinline void ktest_panic_victim(void *arg)
{
	volatile uint64_t local = 7;
	*(volatile uint64_t *)arg = local;   /* NULL write, nobody catching */
}

static void ktest_panic_on_last_cpu(void *arg)
{
	if (cpu_id() == cpus_online - 1)
		ktest_panic_victim(NULL);
}

/*
 * "ktest.panic": fault on purpose (on the last CPU) so the harness can
 * check the panic path: report, backtrace, other CPUs stopped by NMI.
 */
void ktest_panic(void)
{
	printk("ktest: faulting on purpose on CPU %u\n", cpus_online - 1);
	smp_call_all(ktest_panic_on_last_cpu, NULL);
	panic("ktest: the deliberate fault did not panic");
}
