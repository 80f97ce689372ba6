/*
 * The load average's arithmetic (Linux's calc_load), apart from the
 * sampling thread so that the host unit tests can link it.
 */
#include <abi/sysinfo.h>
#include <kernel/load.h>

/* exp(-5/60), exp(-5/300), exp(-5/900) in SYSINFO_LOAD_SHIFT fixed point. */
static const uint64_t load_exp[3] = { 1884, 2014, 2037 };

void load_fold(uint64_t avg[3], uint32_t n)
{
	uint64_t active = (uint64_t)n << SYSINFO_LOAD_SHIFT;

	for (int i = 0; i < 3; i++) {
		uint64_t next = avg[i] * load_exp[i] +
				active * (SYSINFO_LOAD_ONE - load_exp[i]);
		if (active >= avg[i])         /* round up while rising, as Linux */
			next += SYSINFO_LOAD_ONE - 1;
		avg[i] = next >> SYSINFO_LOAD_SHIFT;
	}
}
