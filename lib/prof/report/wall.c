/*
 * The profiler report's wall clock (prof_report_set_wall): time a server
 * spent serving a call is counted once, moved from the caller's IPC wait
 * to the server's samples.
 */
#include "rep.h"

/* ------------------------------------------------------- wall: counted once */

/* The wait key of stacks entry e (an IPC wait), false for any other stack. */
static bool wall_stack_key(const unsigned char *e, prof_wkey_t *w)
{
	const prof_stack_t *k = (const void *)(e + 8);

	*w = (prof_wkey_t){ k->origin != PROF_NONE ? k->origin : k->slot, k->slot, k->wtask, 0 };
	return k->off == WAIT_WHY_IPC + 1;
}

/* The same for an xstacks entry. */
static bool wall_xkey(const unsigned char *e, prof_wkey_t *w)
{
	const prof_xkey_t *k = (const void *)(e + 8);

	*w = (prof_wkey_t){ k->origin != PROF_NONE ? k->origin : k->slot, k->slot, k->wtask, 0 };
	return k->off == WAIT_WHY_IPC + 1;
}

/* The weight of every IPC wait in m, summed by wait key into sums. */
static errno_t wall_sums(prof_report_t *r, const prof_map_t *m,
			 bool (*key)(const unsigned char *, prof_wkey_t *), prof_map_t *sums)
{
	prof_wkey_t w;
	bool created;

	for (size_t i = 0; i < m->cap; i++) {
		const unsigned char *e = prof_map_entry(m, i);
		if (!e[0] || !key(e, &w))
			continue;
		prof_val_t *sum = prof_map_get(&r->env, sums, &w, &created);
		if (!sum)
			return ENOMEM;
		val_add(sum, prof_map_word(e + 8 + m->ksize), prof_map_word(e + 16 + m->ksize));
	}
	return EOK;
}

/* The value of key in m, zero when absent (m may be empty). */
static prof_val_t wall_value(const prof_map_t *m, const prof_wkey_t *key)
{
	const unsigned char *e = m->cap ? prof_map_find(m, key) : NULL;
	prof_val_t v = { 0, 0 };

	if (e && e[0])
		memcpy(&v, e + 8 + m->ksize, sizeof(v));
	return v;
}

/* What the waits of key w give up: the served samples and time, at most the waits'. */
static prof_val_t wall_take(const prof_report_t *r, const prof_map_t *sums, const prof_wkey_t *w)
{
	prof_val_t sum = wall_value(sums, w), pool = wall_value(&r->served, w);

	return (prof_val_t){ pool.n < sum.n ? pool.n : sum.n, pool.t < sum.t ? pool.t : sum.t };
}

/* part * n / sum without overflow; 0 when sum is. */
static uint64_t wall_share(uint64_t part, uint64_t n, uint64_t sum)
{
	return sum ? (uint64_t)((unsigned __int128)part * n / sum) : 0;
}

/*
 * Take from each IPC wait of m its share of what its key gives up (in
 * proportion to its weight); with counts, also from its task's total and
 * the off-CPU weight. Returns what was taken.
 */
static uint64_t wall_apply(prof_report_t *r, prof_map_t *m,
			   bool (*key)(const unsigned char *, prof_wkey_t *),
			   const prof_map_t *sums, bool counts)
{
	prof_wkey_t w;
	uint64_t taken = 0;

	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *e = prof_map_entry(m, i);
		prof_val_t v;
		if (!e[0] || !key(e, &w))
			continue;
		memcpy(&v, e + 8 + m->ksize, sizeof(v));
		prof_val_t sum = wall_value(sums, &w), take = wall_take(r, sums, &w);
		prof_val_t sub = { wall_share(take.n, v.n, sum.n), wall_share(take.t, v.t, sum.t) };
		v = (prof_val_t){ v.n - sub.n, v.t - sub.t };
		memcpy(e + 8 + m->ksize, &v, sizeof(v));
		taken += sub.n;
		if (!counts)
			continue;
		r->tasks[w.waiter].samples -= sub.n;
		r->tasks[w.waiter].time -= sub.t;
		r->c.offcpu_wcycles -= sub.t;
	}
	return taken;
}

/* Empty the served pools the waits took from (their rest stays for later waits). */
static void wall_drain(prof_report_t *r, const prof_map_t *sums)
{
	for (size_t i = 0; i < r->served.cap; i++) {
		unsigned char *e = prof_map_entry(&r->served, i);
		if (!e[0])
			continue;
		prof_val_t take = wall_take(r, sums, (const prof_wkey_t *)(e + 8)), v;
		memcpy(&v, e + 8 + r->served.ksize, sizeof(v));
		v = (prof_val_t){ v.n - take.n, v.t - take.t };
		memcpy(e + 8 + r->served.ksize, &v, sizeof(v));
	}
}

/*
 * A wall-clock report that gives each caller the work done for it (a
 * task session, or by origin) counts a moment once: while a thread waits
 * for a call, what the server did for it (its samples, and its own
 * waits while serving: for the next server of a chain, which are settled
 * the same way, or for the CPU) stands for that time, so it is taken out
 * of the wait's weight (by origin, waiter and server, in proportion over
 * the wait's stacks); what remains is time nobody worked for the call.
 * Idempotent; later data is settled later.
 */
errno_t rep_wall_settle(prof_report_t *r, bool by_origin)
{
	prof_map_t sums;

	if (!r->wall || !r->served.count || (!by_origin && !r->header.target))
		return EOK;
	prof_map_init(&sums, sizeof(prof_wkey_t), sizeof(prof_val_t));
	errno_t err = wall_sums(r, &r->stacks, wall_stack_key, &sums);
	if (err == EOK) {
		uint64_t taken = wall_apply(r, &r->stacks, wall_stack_key, &sums, true);
		r->c.offcpu_weight -= taken;
		r->c.offcpu_served += taken;
		if (r->xon)
			wall_apply(r, &r->xstacks, wall_xkey, &sums, false);
		wall_drain(r, &sums);
	}
	prof_map_free(&r->env, &sums);
	return err;
}

