/*
 * sysinfo "system.limits": each task's usage of the resources it can make
 * the kernel hold, against their limits (abi/limits.h).
 */
#include <abi/limits.h>
#include <abi/sysinfo.h>
#include <kernel/binary.h>
#include <kernel/ipc.h>
#include <kernel/prof.h>
#include <kernel/sysinfo.h>
#include <kernel/task.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

typedef struct limits_walk {
	si_buf_t *b;
	errno_t rc;
	uint64_t id;                 /* one entry only; 0: all */
	size_t count;
} limits_walk_t;

static const uint32_t limits_values[7] = {
	LIMIT_BOX_CALLS, LIMIT_BOX_ANSWERS, LIMIT_THREADS,
	LIMIT_TASK_TREE, LIMIT_REGIONS, LIMIT_PROF_SESSIONS,
	LIMIT_TREE_BIN_BYTES,
};

/* t's record, but for its profiling sessions (they need prof_lock). */
static void limits_record(task_t *t, sysinfo_limits_t *r)
{
	memset(r, 0, sizeof(*r));
	r->task = t->id;
	ipc_task_usage(t, &r->box_calls, &r->box_answers);
	r->threads = __atomic_load_n(&t->thread_structs, __ATOMIC_RELAXED);
	task_tree_usage(t, &r->tree, &r->tree_tasks);
	r->regions = t->space ? (uint32_t)vm_space_region_count(t->space) : 0;
	binary_quota_usage(t->binq, &r->bin_tree, &r->bin_bytes, &r->bin_denied);
	memcpy(r->limit, limits_values, sizeof(r->limit));
}

static void limits_count(task_t *t, void *ctx)
{
	((limits_walk_t *)ctx)->count++;
}

static void limits_add(task_t *t, void *ctx)
{
	limits_walk_t *w = ctx;
	sysinfo_limits_t r;

	if (w->rc != EOK || !t->id || (w->id && t->id != w->id))
		return;
	limits_record(t, &r);
	w->rc = si_put(w->b, &r, sizeof(r));
}

/* Fill in the session counts, outside the task table lock (prof_lock first). */
static void limits_sessions(si_buf_t *b, size_t from)
{
	for (size_t at = from; at + sizeof(sysinfo_limits_t) <= b->len;
	     at += sizeof(sysinfo_limits_t)) {
		sysinfo_limits_t *r = (sysinfo_limits_t *)(b->data + at);
		r->prof_sessions = prof_task_sessions(r->task);
	}
}

static errno_t limits_walk(si_buf_t *b, uint64_t id)
{
	limits_walk_t w = { .b = b, .rc = EOK, .id = id };
	size_t from = b->len;

	task_foreach(limits_count, &w);
	w.rc = si_reserve(b, b->len + (w.count + 8) * sizeof(sysinfo_limits_t));
	if (w.rc == EOK)
		task_foreach(limits_add, &w);
	if (w.rc == EOK)
		limits_sessions(b, from);
	return w.rc != EOK ? w.rc : id && b->len == from ? ENOENT : EOK;
}

static errno_t limits_si_all(si_buf_t *b, uint64_t arg)
{
	return limits_walk(b, 0);
}

static errno_t limits_si_one(si_buf_t *b, uint64_t id)
{
	return id ? limits_walk(b, id) : ENOENT;
}

/* Children: the task ids, as system.tasks has. */
SYSINFO_TABLE_NODE(limits, "system.limits", 260, limits_si_all, si_task_ids, limits_si_one);
