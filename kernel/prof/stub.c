/*
 * Stand-in for the generic profiler (kernel/prof/) so the arch sample
 * sources link and can be tested on their own: prof_hit() only counts
 * and remembers the PC. To be replaced by the real kernel/prof/.
 */
#include <arch/interrupt.h>
#include <kernel/prof.h>

volatile uint64_t prof_hits[MAX_CPUS][PROF_SRC_COUNT];
volatile uint64_t prof_last_pc[MAX_CPUS];

/* Count a sample of f on this CPU. NMI-safe: no locks, two stores. */
void prof_hit(const struct int_frame *f, unsigned source)
{
	uint32_t cpu = cpu_id();

	if (source < PROF_SRC_COUNT)
		prof_hits[cpu][source]++;
	prof_last_pc[cpu] = frame_pc(f);
}
