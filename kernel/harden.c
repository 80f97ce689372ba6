/*
 * Stack protector runtime and the hardening report (see <kernel/harden.h>).
 * The kernel is built with -fstack-protector-strong
 * -mstack-protector-guard=global: each function with an array or an
 * address-taken local copies __stack_chk_guard into its frame and calls
 * __stack_chk_fail if the copy changed by its return.
 */
#include <abi/harden.h>
#include <arch/harden.h>
#include <kernel/cpu.h>
#include <kernel/fault.h>
#include <kernel/harden.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/sysinfo.h>
#include <lib/canary.h>

#define LOG_PREFIX "harden"

/* Read by every protected function. */
uintptr_t __stack_chk_guard;
static unsigned harden_canary_source;     /* HARDEN_RDSEED, HARDEN_RDRAND or 0 (TSC) */

void __stack_chk_fail(void) __noreturn;

__attribute__((no_stack_protector)) void harden_stack_guard_init(void)
{
	unsigned how;
	uint64_t r = arch_random64(&how);

	harden_canary_source = how;
	__stack_chk_guard = canary_from(r);
}

unsigned harden_common(const unsigned *features, unsigned n)
{
	unsigned common = HARDEN_SMEP | HARDEN_SMAP | HARDEN_UMIP;

	for (unsigned i = 0; i < n; i++)
		common &= features[i];
	return n ? common : 0;
}

static void harden_enable_cpu(void *arg)
{
	arch_harden_enable(*(const unsigned *)arg);
}

void harden_init(void)
{
	unsigned features[MAX_CPUS], n = 0;

	for (unsigned i = 0; i < cpu_count; i++)
		if (cpus[i] && cpus[i]->online)
			features[n++] = arch_harden_cpu_features(i);
	unsigned common = harden_common(features, n);
	smp_call_all(harden_enable_cpu, &common);
}

void harden_report(void)
{
	uint64_t f = harden_flags();

	printk("harden: SMEP %s, SMAP %s, UMIP %s; stack canary from %s\n",
	       (f & HARDEN_SMEP) ? "on" : "absent", (f & HARDEN_SMAP) ? "on" : "absent",
	       (f & HARDEN_UMIP) ? "on" : "absent",
	       harden_canary_source == HARDEN_RDSEED ? "RDSEED" :
	       harden_canary_source == HARDEN_RDRAND ? "RDRAND" : "TSC mix");
}

uint64_t harden_flags(void)
{
	return arch_harden_flags() | (harden_canary_source ? HARDEN_CANARY_HW : 0);
}

SYSINFO_INT_NODE(hardening, "system.hardening", 150, harden_flags);

uintptr_t harden_stack_guard(void)
{
	return __stack_chk_guard;
}

/*
 * A protected function found its canary changed: the stack is corrupt.
 * Under fault_catch_run() (ktest) the catch gets FAULT_STACK_SMASH and
 * the smashing function's return address; otherwise a panic.
 */
void __stack_chk_fail(void)
{
	uintptr_t where = (uintptr_t)__builtin_return_address(0);
	cpu_t *c = cpu_current();
	fault_catch_t *fc = c ? c->fault_catch : NULL;

	if (fc) {
		fc->vector = FAULT_STACK_SMASH;
		fc->error = 0;
		fc->addr = 0;
		fc->pc = where;
		fc->nbt = 0;
		c->fault_catch = fc->prev;
		kjmp_jump(&fc->jb, 1);
	}
	panic("stack protector: the stack of the function at %#lx was smashed", where);
}
