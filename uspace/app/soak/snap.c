/*
 * soak: reading the kernel's counters: the profiler's totals and each
 * CPU's latency maxima (the leak check is libc's <leakcheck.h>).
 */
#include <stdio.h>

#include "soak.h"

void soak_prof_totals(uint64_t t[3])
{
	sysinfo_profiler_t p = { 0 };

	leak_si("system.profiler", &p, sizeof(p));
	t[0] = p.samples;
	t[1] = p.lost;
	t[2] = p.unrouted;
}

unsigned soak_prof_system_sessions(void)
{
	sysinfo_profiler_t p = { 0 };

	leak_si("system.profiler", &p, sizeof(p));
	return p.system_sessions;
}

uint64_t soak_print_latency(void)
{
	static sysinfo_cpu_t c[SOAK_MAX_CPUS];
	size_t n = leak_si("system.cpus", c, sizeof(c)) / sizeof(c[0]);
	uint64_t worst = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t per_us = c[i].mhz ? c[i].mhz : 1;
		printf("soak: cpu%u_irqoff_max %llu cycles\n", c[i].id,
		       (unsigned long long)c[i].irqoff_max_cycles);
		printf("soak: cpu%u_irqoff_max_us %llu us\n", c[i].id,
		       (unsigned long long)(c[i].irqoff_max_cycles / per_us));
		printf("soak: cpu%u_nmi_max %llu cycles\n", c[i].id,
		       (unsigned long long)c[i].nmi_max_cycles);
		printf("soak: cpu%u_nmi_max_us %llu us\n", c[i].id,
		       (unsigned long long)(c[i].nmi_max_cycles / per_us));
		if (c[i].irqoff_max_cycles > worst)
			worst = c[i].irqoff_max_cycles;
	}
	return worst;
}
