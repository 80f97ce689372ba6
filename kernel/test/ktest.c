/* The ktest runner: TAP on the console, verdict through the platform. */
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/cmdline.h>
#include <kernel/printk.h>
#include <lib/string.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <lib/fmt.h>
#include <stdarg.h>

#define KTEST_SKIP_MAX 160

extern const ktest_t __ktest_start[], __ktest_end[];

static char ktest_skip_why[KTEST_SKIP_MAX];     /* the running test's; "" = not skipped */

void ktest_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(ktest_skip_why, sizeof(ktest_skip_why), fmt, ap);
	va_end(ap);
	if (!ktest_skip_why[0])
		fmt_snprintf(ktest_skip_why, sizeof(ktest_skip_why), "no reason given");
}

/* Run test i (0-based) and print its TAP line; 0 passed, 1 failed, 2 skipped. */
static int ktest_one(size_t i)
{
	ktest_skip_why[0] = '\0';
	bool ok = __ktest_start[i].fn();
	if (ok && ktest_skip_why[0]) {
		printk("ok %zu - %s # SKIP %s\n", i + 1, __ktest_start[i].name, ktest_skip_why);
		return 2;
	}
	printk("%s %zu - %s\n", ok ? "ok" : "not ok", i + 1, __ktest_start[i].name);
	return ok ? 0 : 1;
}

void ktest_run(void)
{
	size_t n = (size_t)(__ktest_end - __ktest_start);
	size_t count[3] = { 0, 0, 0 };

	printk("1..%zu\n", n);
	for (size_t i = 0; i < n; i++)
		count[ktest_one(i)]++;
	printk("ktest: %zu passed, %zu failed, %zu skipped\n", count[0], count[1], count[2]);
	platform_test_exit(count[1] == 0);
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

static volatile uint64_t ktest_recurse_limit = UINT64_MAX;

static __noinline uint64_t ktest_recurse(uint64_t depth)
{
	volatile uint64_t pad[32];
	pad[0] = depth;
	if (depth == ktest_recurse_limit)
		return pad[0];
	return ktest_recurse(depth + 1) + pad[0];
}

/* "ktest.panic=late": the fault a few seconds after boot, from its own thread. */
static void ktest_panic_later(void *arg)
{
	(void)arg;
	thread_sleep(KTEST_PANIC_LATE_NS);
	printk("ktest: faulting on purpose on CPU %u, late\n", cpus_online - 1);
	smp_call_all(ktest_panic_on_last_cpu, NULL);
	panic("ktest: the deliberate fault did not panic");
}

/*
 * "ktest.panic" faults on purpose (on the last CPU) so the harness can
 * check the panic path: report, backtrace, other CPUs stopped by NMI.
 * "ktest.panic=stack" overflows the kernel stack into its guard page: the
 * page fault cannot be delivered on that stack, so the CPU raises a double
 * fault, which runs on its own IST stack. "ktest.panic=late" returns and
 * faults KTEST_PANIC_LATE_NS later, once user space has run (the flight
 * recorder's dump at a panic has something to hold).
 */
void ktest_panic(void)
{
	char how[16] = "";

	cmdline_get("ktest.panic", how, sizeof(how));
	if (!strcmp(how, "late") &&
	    thread_create_kernel("panic", ktest_panic_later, NULL, NULL) == EOK)
		return;
	if (!strcmp(how, "stack")) {
		printk("ktest: overflowing the kernel stack on purpose\n");
		ktest_recurse(0);
	}
	printk("ktest: faulting on purpose on CPU %u\n", cpus_online - 1);
	smp_call_all(ktest_panic_on_last_cpu, NULL);
	panic("ktest: the deliberate fault did not panic");
}
