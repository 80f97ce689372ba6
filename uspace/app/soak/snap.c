/*
 * soak: reading the kernel's counters: the leak-check snapshot (free
 * frames with the heap, stack, page-table and task frames, live heap
 * bytes, kernel stacks, tasks, threads), the profiler's totals and each
 * CPU's latency maxima.
 */
#include <stdio.h>
#include <string.h>

#include "soak.h"

#define SOAK_SNAP_TASKS 1100
#define SOAK_SNAP_THREADS 2048

size_t soak_si(const char *path, void *buf, size_t size)
{
	size_t got = 0;

	return sys_sysinfo_data(path, buf, size, &got) == EOK && got <= size ? got : 0;
}

errno_t soak_snapshot(soak_snap_t *s)
{
	static sysinfo_task_t t[SOAK_SNAP_TASKS];
	static sysinfo_thread_t th[SOAK_SNAP_THREADS];

	memset(s, 0, sizeof(*s));
	if (soak_si("system.memory", &s->mem, sizeof(s->mem)) != sizeof(s->mem))
		return ENOENT;
	size_t nt = soak_si("system.tasks", t, sizeof(t)) / sizeof(t[0]);
	size_t nth = soak_si("system.threads", th, sizeof(th)) / sizeof(th[0]);
	if (!nt || !nth)
		return ENOMEM;
	s->tasks = nt;
	s->threads = nth;
	s->frames = s->mem.frames_free + s->mem.heap_frames + s->mem.kstack_frames +
		    s->mem.table_frames;
	for (size_t i = 0; i < nt; i++)
		s->frames += t[i].resident_bytes / 4096;
	return EOK;
}

bool soak_same(const soak_snap_t *a, const soak_snap_t *b)
{
	return a->mem.heap_live - a->mem.heap_cached == b->mem.heap_live - b->mem.heap_cached &&
	       a->mem.kstacks == b->mem.kstacks && a->tasks == b->tasks &&
	       a->threads == b->threads && a->frames == b->frames;
}

errno_t soak_settle(soak_snap_t *s, unsigned tries)
{
	soak_snap_t prev;
	errno_t rc = soak_snapshot(&prev);

	for (unsigned i = 0; rc == EOK && i < tries; i++) {
		sys_sleep_ns(100000000ull);
		if ((rc = soak_snapshot(s)) == EOK && soak_same(&prev, s))
			return EOK;
		prev = *s;
	}
	return rc == EOK ? EAGAIN : rc;
}

void soak_print_snap(const char *what, const soak_snap_t *s)
{
	printf("soak: %s: frames %llu (free %llu heap %llu kstack %llu tables %llu), "
	       "heap live %llu B (cached %llu), kstacks %llu, tasks %llu, threads %llu\n", what,
	       (unsigned long long)s->frames, (unsigned long long)s->mem.frames_free,
	       (unsigned long long)s->mem.heap_frames, (unsigned long long)s->mem.kstack_frames,
	       (unsigned long long)s->mem.table_frames, (unsigned long long)s->mem.heap_live,
	       (unsigned long long)s->mem.heap_cached, (unsigned long long)s->mem.kstacks,
	       (unsigned long long)s->tasks, (unsigned long long)s->threads);
}

void soak_prof_totals(uint64_t t[3])
{
	sysinfo_profiler_t p = { 0 };

	soak_si("system.profiler", &p, sizeof(p));
	t[0] = p.samples;
	t[1] = p.lost;
	t[2] = p.unrouted;
}

unsigned soak_prof_system_sessions(void)
{
	sysinfo_profiler_t p = { 0 };

	soak_si("system.profiler", &p, sizeof(p));
	return p.system_sessions;
}

uint64_t soak_print_latency(void)
{
	static sysinfo_cpu_t c[SOAK_MAX_CPUS];
	size_t n = soak_si("system.cpus", c, sizeof(c)) / sizeof(c[0]);
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
