/*
 * The in-kernel self-test suite. With "ktest" on the command line the
 * kernel runs every KTEST() after boot, prints TAP on the console and
 * ends the machine with a pass/fail status (QEMU isa-debug-exit).
 *
 *   KTEST(frame_exhaustion, "frame: exhaustion and recovery")
 *   {
 *           KT_CHECK(x == 1, "x is %d", x);
 *           return true;
 *   }
 *
 * A test whose subject this machine or kernel lacks ends with
 * KT_SKIP("reason") after checking what it can (that the absence is
 * reported properly); it prints "ok N - desc # SKIP reason", and the
 * summary counts it apart from the passes.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <kernel/printk.h>
#include <kernel/types.h>

typedef struct ktest {
	const char *name;
	bool (*fn)(void);
} ktest_t;

#define KTEST(fn_, desc)                                                   \
	static bool kt_##fn_(void);                                        \
	static const ktest_t ktest_##fn_                                   \
		__attribute__((used, section(".ktest"), aligned(8))) = {   \
			desc, kt_##fn_ };                                  \
	static bool kt_##fn_(void)

/* Fail the current test with a TAP diagnostic unless cond holds. */
#define KT_CHECK(cond, fmt, ...)                                           \
	do {                                                               \
		if (!(cond)) {                                             \
			printk("# %s:%d: %s: " fmt "\n", __FILE__, __LINE__, \
			       #cond, ##__VA_ARGS__);                      \
			return false;                                      \
		}                                                          \
	} while (0)

/*
 * Skip the current test: ok with a TAP "# SKIP reason" directive. Only as
 * a test's last word, once it has checked what it could.
 */
#define KT_SKIP(fmt, ...)                                                  \
	do {                                                               \
		ktest_skip(fmt, ##__VA_ARGS__);                            \
		return true;                                               \
	} while (0)

/* Record why the running test is skipped (printf format; thread context). */
void ktest_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Deliberately fault on the last CPU ("ktest.panic"): exercises panic.
 * Returns only for "ktest.panic=late", which faults KTEST_PANIC_LATE_NS
 * later from a thread of its own.
 */
#define KTEST_PANIC_LATE_NS (4000ull * 1000 * 1000)
void ktest_panic(void);

/* Run every test, print TAP, end the machine. */
void ktest_run(void) __noreturn;

#endif
