/*
 * The leak check shared by vfuzz and soak (see <leakcheck.h>): the
 * kernel's frames, heap, kernel stacks, tasks and threads before and after
 * a run.
 */
#include <leakcheck.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define LEAK_SNAP_TASKS 1100
#define LEAK_SNAP_THREADS 2048
#define LEAK_PRINT_TASKS 256
#define LEAK_PRINT_THREADS 512
#define LEAK_RETRY_NS 100000000ull   /* 100 ms between snapshots */

size_t leak_si(const char *path, void *buf, size_t size)
{
	size_t got = 0;

	return sys_sysinfo_data(path, buf, size, &got) == EOK && got <= size ? got : 0;
}

errno_t leak_snapshot(leak_snap_t *s)
{
	static sysinfo_task_t t[LEAK_SNAP_TASKS];
	static sysinfo_thread_t th[LEAK_SNAP_THREADS];

	memset(s, 0, sizeof(*s));
	if (leak_si("system.memory", &s->mem, sizeof(s->mem)) != sizeof(s->mem))
		return ENOENT;
	size_t nt = leak_si("system.tasks", t, sizeof(t)) / sizeof(t[0]);
	size_t nth = leak_si("system.threads", th, sizeof(th)) / sizeof(th[0]);
	if (!nt || !nth)
		return ENOMEM;
	s->tasks = nt;
	s->threads = nth;
	s->frames = s->mem.frames_free + s->mem.heap_frames + s->mem.kstack_frames +
		    s->mem.table_frames;
	for (size_t i = 0; i < nt; i++) {
		s->resident += t[i].resident_bytes / 4096;
		if (s->nres < LEAK_RES_TASKS) {
			s->res[s->nres].id = t[i].id;
			s->res[s->nres].frames = t[i].resident_bytes / 4096;
			memcpy(s->res[s->nres++].name, t[i].name, SYSINFO_NAME_MAX);
		}
	}
	s->frames += s->resident;
	return EOK;
}

bool leak_same(const leak_snap_t *a, const leak_snap_t *b)
{
	return a->mem.heap_live - a->mem.heap_cached == b->mem.heap_live - b->mem.heap_cached &&
	       a->mem.kstacks == b->mem.kstacks && a->tasks == b->tasks &&
	       a->threads == b->threads && a->frames == b->frames;
}

errno_t leak_settle(leak_snap_t *s, unsigned tries, const char *prog)
{
	leak_snap_t prev;
	errno_t rc = leak_snapshot(&prev);

	for (unsigned i = 0; rc == EOK && i < tries; i++) {
		sys_sleep_ns(LEAK_RETRY_NS);
		if ((rc = leak_snapshot(s)) == EOK && leak_same(&prev, s))
			return EOK;
		if (prog)
			leak_print(prog, "settling", s);
		prev = *s;
	}
	return rc == EOK ? EAGAIN : rc;
}

void leak_wait_tasks(uint64_t n, unsigned tries, const char *prog)
{
	leak_snap_t s;
	unsigned i = 0;

	for (; i < tries && leak_snapshot(&s) == EOK && s.tasks > n; i++) {
		if (!i && prog)
			printf("%s: waiting for %llu tasks the run left\n", prog,
			       (unsigned long long)(s.tasks - n));
		sys_sleep_ns(LEAK_RETRY_NS);
	}
	if (i && prog)
		printf("%s: waited %llu ms for them\n", prog,
		       (unsigned long long)(i * (LEAK_RETRY_NS / 1000000)));
}

void leak_print(const char *prog, const char *what, const leak_snap_t *s)
{
	printf("%s: %s: frames %llu (free %llu heap %llu kstack %llu tables %llu), "
	       "heap live %llu B (cached %llu), kstacks %llu, tasks %llu, threads %llu\n", prog,
	       what, (unsigned long long)s->frames, (unsigned long long)s->mem.frames_free,
	       (unsigned long long)s->mem.heap_frames, (unsigned long long)s->mem.kstack_frames,
	       (unsigned long long)s->mem.table_frames, (unsigned long long)s->mem.heap_live,
	       (unsigned long long)s->mem.heap_cached, (unsigned long long)s->mem.kstacks,
	       (unsigned long long)s->tasks, (unsigned long long)s->threads);
}

void leak_print_tasks(const char *prog)
{
	static sysinfo_task_t t[LEAK_PRINT_TASKS];
	static sysinfo_thread_t th[LEAK_PRINT_THREADS];
	size_t nt = leak_si("system.tasks", t, sizeof(t)) / sizeof(t[0]);
	size_t nth = leak_si("system.threads", th, sizeof(th)) / sizeof(th[0]);

	for (size_t i = 0; i < nt; i++)
		printf("%s: task %llu (%s), parent %llu, %u threads\n", prog,
		       (unsigned long long)t[i].id, t[i].name, (unsigned long long)t[i].parent,
		       t[i].threads);
	for (size_t i = 0; i < nth; i++)
		printf("%s: thread %llu (%s) of task %llu, state %u\n", prog,
		       (unsigned long long)th[i].id, th[i].name, (unsigned long long)th[i].task,
		       th[i].state);
}

/* Resident frames of task id in s; 0 if it is not named there. */
static uint64_t leak_res_of(const leak_snap_t *s, uint64_t id)
{
	for (unsigned i = 0; i < s->nres; i++)
		if (s->res[i].id == id)
			return s->res[i].frames;
	return 0;
}

/* ", NAME +N" for each task named in both whose resident frames changed. */
static void leak_print_res(const leak_snap_t *a, const leak_snap_t *b)
{
	for (unsigned i = 0; i < b->nres; i++) {
		int64_t d = (int64_t)b->res[i].frames - (int64_t)leak_res_of(a, b->res[i].id);
		if (d && leak_res_of(a, b->res[i].id))
			printf(", %s %+lld", b->res[i].name, (long long)d);
	}
}

int64_t leak_explain(const char *prog, const leak_snap_t *before,
		     const leak_snap_t *after)
{
	const sysinfo_memory_t *a = &before->mem, *b = &after->mem;
	int64_t dfree = (int64_t)b->frames_free - (int64_t)a->frames_free;
	int64_t dheap = (int64_t)b->heap_frames - (int64_t)a->heap_frames;
	int64_t dstack = (int64_t)b->kstack_frames - (int64_t)a->kstack_frames;
	int64_t dtab = (int64_t)b->table_frames - (int64_t)a->table_frames;
	int64_t dres = (int64_t)after->resident - (int64_t)before->resident;
	int64_t other = -(dfree + dheap + dstack + dtab + dres);

	printf("%s: free frames: %llu before, %llu after (%+lld KiB): kernel heap %+lld "
	       "(cached %+lld B), kernel stacks %+lld, page tables %+lld, tasks' resident %+lld",
	       prog, (unsigned long long)a->frames_free, (unsigned long long)b->frames_free,
	       (long long)dfree * 4, (long long)dheap,
	       (long long)b->heap_cached - (long long)a->heap_cached, (long long)dstack,
	       (long long)dtab, (long long)dres);
	leak_print_res(before, after);
	printf("; unexplained %+lld\n", (long long)other);
	return other;
}

bool leak_check(const char *prog, const leak_snap_t *before, leak_snap_t *after,
		unsigned tries)
{
	bool same = false;

	for (unsigned i = 0; i < tries && !same; i++) {
		if (i)
			sys_sleep_ns(LEAK_RETRY_NS);
		same = leak_snapshot(after) == EOK && leak_same(before, after);
	}
	leak_print(prog, "after", after);
	leak_explain(prog, before, after);
	if (!same)
		leak_print_tasks(prog);
	return same;
}
