/*
 * ktest, x86: exceptions caught by fault_catch_run are reported with their
 * vector, error code and a symbolized backtrace (a page fault, and a divide
 * error, which needs a DIV instruction: C division by zero is undefined).
 */
#include <kernel/cpu.h>
#include <kernel/fault.h>
#include <kernel/ksym.h>
#include <kernel/ktest.h>
#include <lib/string.h>

static volatile int ktest_zero;

/*
 * GCC drops the frame of a leaf function that never touches the stack
 * (even with -fno-omit-frame-pointer); the volatile local keeps this one's
 * frame so the backtrace can show its caller.
 */
static __noinline void ktest_fault_victim(void *arg)
{
	volatile uint64_t local = 42;
	*(volatile uint64_t *)arg = local;   /* NULL: page fault */
}

static __noinline void ktest_fault_caller(void *arg)
{
	ktest_fault_victim(arg);
	__asm__ volatile("" ::: "memory");   /* keep the frame */
}

static __noinline void ktest_div0(void *arg)
{
	uint32_t q = 1, d = ktest_zero;
	/* C division by zero is undefined and GCC rewrites it; divide in asm. */
	__asm__ volatile("xor %%edx, %%edx; divl %1" : "+a"(q) : "r"(d) : "rdx");
	*(volatile uint32_t *)arg = q;
}

static bool bt_has(const fault_catch_t *fc, size_t i, const char *name)
{
	uint64_t off;
	const char *s = i < fc->nbt ? ksym_lookup_pc(fc->bt[i], i > 0, &off) : NULL;
	return s && !strcmp(s, name);
}

KTEST(fault_backtrace, "fault: NULL write is reported with a symbolized backtrace")
{
	fault_catch_t fc = { 0 };

	KT_CHECK(fault_catch_run(&fc, ktest_fault_caller, NULL), "no fault");
	KT_CHECK(fc.vector == 14, "vector %u", fc.vector);
	KT_CHECK(fc.addr == 0, "fault address %#lx", fc.addr);
	KT_CHECK((fc.error & 2) != 0, "error code %#lx lacks the write bit", fc.error);
	KT_CHECK(bt_has(&fc, 0, "ktest_fault_victim"), "frame 0 is not ktest_fault_victim");
	KT_CHECK(bt_has(&fc, 1, "ktest_fault_caller"), "frame 1 is not ktest_fault_caller");
	KT_CHECK(cpu_current()->fault_catch == NULL, "catch left armed");
	return true;
}

KTEST(fault_div0, "fault: divide error is caught and names its function")
{
	fault_catch_t fc = { 0 };
	int sink;

	KT_CHECK(fault_catch_run(&fc, ktest_div0, &sink), "no fault");
	KT_CHECK(fc.vector == 0, "vector %u", fc.vector);
	KT_CHECK(bt_has(&fc, 0, "ktest_div0"), "frame 0 is not ktest_div0");
	return true;
}

