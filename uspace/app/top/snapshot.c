/*
 * top: one snapshot of the sysinfo nodes it shows, read with the
 * monitoring library (<stats.h>: each array in a new buffer sized to what
 * the kernel reports, retried while tasks start in between); the previous
 * snapshot's buffers are freed as the new ones arrive.
 */
#include <stats.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "top.h"

/* Replace b's array with a new one (NULL: keep nothing). */
static void buf_set(top_buf_t *b, void *data, size_t n, size_t size)
{
	free(b->data);
	b->data = data;
	b->cap = n * size;
}

/* The integer nodes and the clock. */
static errno_t read_ints(top_snap_t *s)
{
	errno_t rc = sys_sysinfo_int("system.cycles", &s->cycles);

	if (rc == EOK)
		rc = stats_tsc_hz(&s->tsc_hz);
	if (rc == EOK)
		rc = stats_uptime_ns(&s->uptime_ns);
	s->realtime_ns = sys_clock_ns(CLOCK_REALTIME);
	return rc;
}

/* The CPU, task, thread and vector arrays. */
static errno_t read_arrays(top_snap_t *s)
{
	sysinfo_cpu_t *cpus = NULL;
	sysinfo_task_t *tasks = NULL;
	sysinfo_thread_t *threads = NULL;
	sysinfo_vector_t *vecs = NULL;
	size_t nc = 0, nt = 0, nth = 0, nv = 0;
	errno_t rc = stats_cpus(&cpus, &nc);

	if (rc == EOK)
		rc = stats_tasks(&tasks, &nt);
	if (rc == EOK)
		rc = stats_threads(&threads, &nth);
	if (rc == EOK)
		rc = stats_vectors(&vecs, &nv);
	buf_set(&s->cpus, cpus, s->ncpus = nc, sizeof(*cpus));
	buf_set(&s->tasks, tasks, s->ntasks = nt, sizeof(*tasks));
	buf_set(&s->threads, threads, s->nthreads = nth, sizeof(*threads));
	buf_set(&s->vecs, vecs, s->nvecs = nv, sizeof(*vecs));
	return rc;
}

errno_t top_snap_read(top_snap_t *s)
{
	errno_t rc = read_ints(s);

	if (rc == EOK)
		rc = read_arrays(s);
	if (rc == EOK)
		rc = stats_physmem(&s->mem);
	if (rc == EOK)
		rc = stats_load(&s->load);
	if (rc == EOK)
		top_snap_sort(s);
	return rc;
}

void top_snap_free(top_snap_t *s)
{
	free(s->cpus.data);
	free(s->tasks.data);
	free(s->threads.data);
	free(s->vecs.data);
	memset(s, 0, sizeof(*s));
}
