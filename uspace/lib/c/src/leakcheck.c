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
	for (size_t i = 0; i < nt; i++)
		s->frames += t[i].resident_bytes / 4096;
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
	if (!same)
		leak_print_tasks(prog);
	return same;
}
