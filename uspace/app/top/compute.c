/*
 * top: what changed between two snapshots, as integer shares and rates,
 * and the rows of each view. Pure (no system calls): also built on the
 * host for test/unit/test_top_calc.c.
 */
#define _GNU_SOURCE             /* qsort_r on the host's libc */
#include <stdlib.h>
#include <string.h>

#include "top.h"

#define MS_PER_S 1000u
#define PERMILLE 1000u

uint64_t top_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 q = (unsigned __int128)a * b / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

uint64_t top_delta(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

unsigned top_permille(uint64_t part, uint64_t whole)
{
	if (whole == 0)
		return 0;
	uint64_t pm = top_muldiv(part, 2 * PERMILLE, whole);
	pm = (pm + 1) / 2;
	return pm > UINT32_MAX ? UINT32_MAX : (unsigned)pm;
}

uint64_t top_ms(uint64_t cycles, uint64_t tsc_hz)
{
	return tsc_hz ? top_muldiv(cycles, MS_PER_S, tsc_hz) : 0;
}

uint64_t top_rate(const top_pair_t *p, uint64_t delta)
{
	return top_muldiv(delta, p->cur->tsc_hz, p->elapsed);
}

/* ---------------------------------------------------------- snapshots */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int task_cmp(const void *a, const void *b)
{
	return cmp_u64(((const sysinfo_task_t *)a)->id,
		       ((const sysinfo_task_t *)b)->id);
}

static int thread_cmp(const void *a, const void *b)
{
	return cmp_u64(((const sysinfo_thread_t *)a)->id,
		       ((const sysinfo_thread_t *)b)->id);
}

static int vec_cmp(const void *a, const void *b)
{
	return cmp_u64(((const sysinfo_vector_t *)a)->vector,
		       ((const sysinfo_vector_t *)b)->vector);
}

void top_snap_sort(top_snap_t *s)
{
	if (s->ntasks)
		qsort(s->tasks.data, s->ntasks, sizeof(sysinfo_task_t), task_cmp);
	if (s->nthreads)
		qsort(s->threads.data, s->nthreads, sizeof(sysinfo_thread_t),
		      thread_cmp);
	if (s->nvecs)
		qsort(s->vecs.data, s->nvecs, sizeof(sysinfo_vector_t), vec_cmp);
}

const sysinfo_task_t *top_find_task(const top_snap_t *s, uint64_t id)
{
	sysinfo_task_t key = { .id = id };

	if (!s->ntasks)
		return NULL;
	return bsearch(&key, s->tasks.data, s->ntasks, sizeof(key), task_cmp);
}

const sysinfo_thread_t *top_find_thread(const top_snap_t *s, uint64_t id)
{
	sysinfo_thread_t key = { .id = id };

	if (!s->nthreads)
		return NULL;
	return bsearch(&key, s->threads.data, s->nthreads, sizeof(key),
		       thread_cmp);
}

const sysinfo_vector_t *top_find_vec(const top_snap_t *s, uint32_t vector)
{
	sysinfo_vector_t key = { .vector = vector };

	if (!s->nvecs)
		return NULL;
	return bsearch(&key, s->vecs.data, s->nvecs, sizeof(key), vec_cmp);
}

const sysinfo_cpu_t *top_find_cpu(const top_snap_t *s, uint32_t id)
{
	for (size_t i = 0; i < s->ncpus; i++)
		if (top_cpus(s)[i].id == id)
			return &top_cpus(s)[i];
	return NULL;
}

void top_snap_at_boot(top_snap_t *zero, const top_snap_t *cur)
{
	uint64_t up = top_muldiv(cur->uptime_ns, cur->tsc_hz, TOP_NS_PER_S);

	memset(zero, 0, sizeof(*zero));
	zero->tsc_hz = cur->tsc_hz;
	zero->cycles = top_delta(cur->cycles, up);
}

void top_pair_init(top_pair_t *p, const top_snap_t *prev, const top_snap_t *cur)
{
	p->prev = prev;
	p->cur = cur;
	p->elapsed = top_delta(cur->cycles, prev->cycles);
	if (p->elapsed == 0)
		p->elapsed = 1;
}

void top_cpu_shares(const top_pair_t *p, size_t i, top_cpu_share_t *out)
{
	const sysinfo_cpu_t *c = &top_cpus(p->cur)[i];

	stats_cpu_percent(top_find_cpu(p->prev, c->id), c, out);
}

void top_count(const top_snap_t *s, top_counts_t *c)
{
	memset(c, 0, sizeof(*c));
	c->tasks = s->ntasks;
	c->threads = s->nthreads;
	for (size_t i = 0; i < s->nthreads; i++) {
		uint32_t st = top_threads(s)[i].state;
		if (st < sizeof(c->state) / sizeof(c->state[0]))
			c->state[st]++;
		else
			c->other++;
	}
}
