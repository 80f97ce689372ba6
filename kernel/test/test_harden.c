/*
 * ktest: hardening. SMEP/SMAP/UMIP are on exactly when every CPU's
 * CPUID reports them (and, on fake mixed feature sets, only what all
 * have is chosen); under SMAP the kernel faults on a user address touched outside
 * the copy routine (without SMAP the same read works: the fallback), the
 * copy routine works either way and leaves access closed; the stack
 * protector catches a smashed canary; the canary's TSC fallback varies.
 */
#include <abi/harden.h>
#include <abi/syscall.h>
#include <arch/harden.h>
#include <kernel/fault.h>
#include <kernel/harden.h>
#include <kernel/ksym.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define HT_FEATURES (HARDEN_SMEP | HARDEN_SMAP | HARDEN_UMIP)
#define HT_BYTE 0x5a
#define HT_TSC_DRAWS 8

static unsigned ht_on[MAX_CPUS], ht_cpuid[MAX_CPUS];

static void ht_collect(void *arg)
{
	unsigned id = cpu_current()->id;

	(void)arg;
	ht_on[id] = arch_harden_flags() & HT_FEATURES;
	ht_cpuid[id] = arch_harden_cpuid() & HT_FEATURES;
}

KTEST(harden_features, "harden: SMEP, SMAP and UMIP are on exactly when every CPU's CPUID has them")
{
	unsigned n = smp_call_all(ht_collect, NULL);

	KT_CHECK(n == cpu_count, "%u of %u CPUs ran the call", n, cpu_count);
	unsigned common = harden_common(ht_cpuid, cpu_count);
	for (unsigned i = 0; i < cpu_count; i++)
		KT_CHECK(ht_on[i] == common, "cpu %u: on %#x, CPUID reports %#x, all CPUs %#x",
			 i, ht_on[i], ht_cpuid[i], common);
	KT_CHECK((harden_flags() & HT_FEATURES) == ht_on[0], "sysinfo bits %#lx",
		 harden_flags());
	printk("# SMEP %s, SMAP %s, UMIP %s\n", (ht_on[0] & HARDEN_SMEP) ? "on" : "absent",
	       (ht_on[0] & HARDEN_SMAP) ? "on" : "absent",
	       (ht_on[0] & HARDEN_UMIP) ? "on" : "absent");
	return true;
}

/*
 * The decision for mixed CPUs, on fake feature sets: a feature one CPU
 * lacks (SMAP on the second, or on the boot CPU) is on nowhere, so no
 * CPU runs stac/clac where they are #UD; RDRAND and the like are no part
 * of it; no CPUs, nothing.
 */
KTEST(harden_mixed_cpus, "harden: on mixed CPUs only what every CPU has is turned on")
{
	const unsigned all = HT_FEATURES | HARDEN_RDRAND | HARDEN_RDSEED;
	const unsigned ap_no_smap[] = { all, all & ~HARDEN_SMAP, all };
	const unsigned bsp_no_smap[] = { HARDEN_SMEP | HARDEN_UMIP, all };
	const unsigned split[] = { HARDEN_SMEP | HARDEN_SMAP, HARDEN_SMAP | HARDEN_UMIP };

	KT_CHECK(harden_common(ap_no_smap, 3) == (HARDEN_SMEP | HARDEN_UMIP),
		 "an AP without SMAP: %#x", harden_common(ap_no_smap, 3));
	KT_CHECK(harden_common(bsp_no_smap, 2) == (HARDEN_SMEP | HARDEN_UMIP),
		 "a boot CPU without SMAP: %#x", harden_common(bsp_no_smap, 2));
	KT_CHECK(harden_common(split, 2) == HARDEN_SMAP, "split: %#x", harden_common(split, 2));
	KT_CHECK(harden_common(ap_no_smap, 1) == HT_FEATURES, "one CPU: %#x",
		 harden_common(ap_no_smap, 1));
	KT_CHECK(harden_common(ap_no_smap, 0) == 0, "no CPU: %#x", harden_common(ap_no_smap, 0));
	return true;
}

/* A plain C read of a user address: what SMAP forbids outside the copy routine. */
static void ht_raw_read(void *arg)
{
	uintptr_t *a = arg;
	a[1] = *(volatile uint8_t *)a[0];
}

/* Copies through the helpers in the user window; false (with a diagnostic) on a mismatch. */
static bool ht_copies(uintptr_t a)
{
	uint8_t in = 0, out = 0xa5;

	KT_CHECK(copy_from_user(&in, (const void *)a, 1) == EOK && in == HT_BYTE,
		 "copy_from_user gave %#x", in);
	KT_CHECK(!arch_uaccess_allowed(), "user access left open after copy_from_user");
	KT_CHECK(copy_to_user((void *)(a + 1), &out, 1) == EOK, "copy_to_user failed");
	KT_CHECK(!arch_uaccess_allowed(), "user access left open after copy_to_user");
	KT_CHECK(copy_from_user(&in, (const void *)(a + 64 * PAGE_SIZE), 1) == EFAULT,
		 "copy from an unmapped address did not give EFAULT");
	KT_CHECK(!arch_uaccess_allowed(), "user access left open after a faulting copy");
	return true;
}

KTEST(harden_smap, "harden: a kernel read of user memory faults outside the copy helpers under SMAP")
{
	uintptr_t a, arg[2] = { 0, 0 };
	vm_space_t *s = vm_space_create();
	uint8_t byte = HT_BYTE, back = 0;
	fault_catch_t fc = { .quiet = true };

	KT_CHECK(s && vm_space_map_anon(s, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, &a) == EOK &&
		 vm_space_write(s, a, &byte, 1) == EOK, "no user page");
	bool smap = arch_harden_flags() & HARDEN_SMAP;
	arg[0] = a;
	preempt_disable();
	paddr_t prev = arch_user_window_enter(s->root);
	bool copies = ht_copies(a);
	bool faulted = fault_catch_run(&fc, ht_raw_read, arg);
	arch_user_window_leave(prev);
	preempt_enable();
	vm_space_read(s, a + 1, &back, 1);
	vm_space_put(s);
	KT_CHECK(copies, "the copy helpers failed in the user window");
	KT_CHECK(back == 0xa5, "copy_to_user's byte reads back as %#x", back);
	if (smap) {
		KT_CHECK(faulted, "SMAP is on but a plain read of user address %#lx worked", a);
		KT_CHECK(fc.vector == 14 && fc.addr == a, "vector %u at %#lx", fc.vector, fc.addr);
		KT_CHECK((fc.error & 5) == 1, "error code %#lx: not a kernel-mode protection fault",
			 fc.error);
	} else {
		KT_CHECK(!faulted && arg[1] == HT_BYTE, "without SMAP the read gave fault %d, %#lx",
			 faulted, arg[1]);
	}
	printk("# %s\n", smap ? "SMAP on: the plain read faulted" :
	       "no SMAP: the plain read worked (fallback path)");
	return true;
}

/* With user access opened by hand: read the user page, then fault on NULL. */
static void ht_open_then_fault(void *arg)
{
	uintptr_t *a = arg;

	arch_test_uaccess_open();
	a[1] = *(volatile uint8_t *)a[0];
	a[2] = *(volatile uint8_t *)NULL;
}

KTEST(harden_entry_clac, "harden: exception entry closes user access (SMAP) that the interrupted code had open")
{
	uintptr_t a, arg[3] = { 0, 0, 0 };
	vm_space_t *s = vm_space_create();
	uint8_t byte = HT_BYTE;
	fault_catch_t fc = { .quiet = true };

	KT_CHECK(s && vm_space_map_anon(s, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, &a) == EOK &&
		 vm_space_write(s, a, &byte, 1) == EOK, "no user page");
	if (!(arch_harden_flags() & HARDEN_SMAP)) {
		vm_space_put(s);
		KT_SKIP("no SMAP on this CPU");
	}
	arg[0] = a;
	preempt_disable();
	paddr_t prev = arch_user_window_enter(s->root);
	bool faulted = fault_catch_run(&fc, ht_open_then_fault, arg);
	bool open_after = arch_uaccess_allowed();     /* iretq gave the fault's AC back */
	arch_test_uaccess_close();
	arch_user_window_leave(prev);
	preempt_enable();
	vm_space_put(s);
	KT_CHECK(faulted && fc.vector == 14 && fc.addr == 0, "the NULL read gave vector %u at %#lx",
		 fc.vector, fc.addr);
	KT_CHECK(arg[1] == HT_BYTE, "with access open the user page read %#lx", arg[1]);
	KT_CHECK(!fc.handler_uaccess, "the page-fault handler ran with user access open");
	KT_CHECK(open_after, "the return from the handler did not restore the interrupted AC");
	KT_CHECK(!arch_uaccess_allowed(), "user access still open at the end");
	return true;
}

/*
 * Writes n bytes from its local array upwards: past the array's end and up
 * to (not including) the saved frame pointer, which covers the canary.
 */
static __noinline void ht_smash(void *arg)
{
	volatile uint8_t buf[16];
	size_t n = *(size_t *)arg;

	if (n == SIZE_MAX)
		n = (size_t)((uint8_t *)__builtin_frame_address(0) - (uint8_t *)buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = 0x41;
}

KTEST(harden_stack_protector, "harden: the stack protector catches a smashed canary")
{
	fault_catch_t fc = { .quiet = true };
	size_t fits = 16, over = SIZE_MAX;
	uintptr_t guard = harden_stack_guard();
	uint64_t off;

	KT_CHECK(guard != 0 && (guard & 0xff) == 0, "canary %s", guard ? "has a nonzero low byte" : "is 0");
	KT_CHECK(!fault_catch_run(&fc, ht_smash, &fits), "a write within the array was caught");
	KT_CHECK(fault_catch_run(&fc, ht_smash, &over), "the smashed canary went unnoticed");
	KT_CHECK(fc.vector == FAULT_STACK_SMASH, "caught as vector %u", fc.vector);
	const char *name = ksym_lookup_pc(fc.pc, true, &off);   /* a return address */
	KT_CHECK(name && !strcmp(name, "ht_smash"), "reported in %s", name ? name : "?");
	KT_CHECK(cpu_current()->fault_catch == NULL, "catch left armed");
	return true;
}

KTEST(harden_tsc_random, "harden: the canary's TSC fallback gives a different value each draw")
{
	uint64_t v[HT_TSC_DRAWS];
	unsigned how;

	for (int i = 0; i < HT_TSC_DRAWS; i++)
		v[i] = arch_random64_tsc();
	for (int i = 0; i < HT_TSC_DRAWS; i++)
		for (int j = i + 1; j < HT_TSC_DRAWS; j++)
			KT_CHECK(v[i] != v[j], "draws %d and %d are equal", i, j);
	arch_random64(&how);
	unsigned hw = arch_harden_cpuid() & (HARDEN_RDRAND | HARDEN_RDSEED);
	KT_CHECK(hw ? (how & hw) != 0 : how == 0, "source %#x with hardware %#x", how, hw);
	KT_CHECK(!!(harden_flags() & HARDEN_CANARY_HW) == !!hw, "canary source flag wrong");
	printk("# random source: %s\n", how == HARDEN_RDSEED ? "RDSEED" :
	       how == HARDEN_RDRAND ? "RDRAND" : "TSC mix");
	return true;
}
