/* TEMPORARY (replaced by the real sources): `timer` at the scheduler tick only. */
#include <arch/prof.h>
#include <abi/profile.h>
#include <kernel/prof.h>
#include <kernel/smp.h>

volatile bool prof_tmp_on;

void arch_prof_init(void)
{
}

bool arch_prof_have(unsigned source, const char **why)
{
	if (why)
		*why = "not yet";
	return source == PROF_SRC_TIMER;
}

errno_t arch_prof_start(unsigned source, unsigned hz, unsigned *hz_out)
{
	if (source != PROF_SRC_TIMER)
		return ENOTSUP;
	*hz_out = timer_hz();
	prof_tmp_on = true;
	return EOK;
}

void arch_prof_stop(void)
{
	prof_tmp_on = false;
}

bool arch_prof_nmi(struct int_frame *f, bool prof_ipi)
{
	return false;
}
