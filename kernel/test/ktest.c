/* The ktest runner: TAP on the console, verdict through the platform. */
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/printk.h>

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
