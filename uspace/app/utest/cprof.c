/*
 * utest cprof: the call profiler's system call (SYS_CPROF through libc's
 * <cprof.h>) and libc's hooks, called by hand (utest itself is not
 * instrumented): GET with no room or too little gives ENOMEM and the
 * size needed and writes nothing; with room, a well-formed file holding
 * this task's table once a hook has run (its path with the right counts,
 * a sleep in wall time but not in on-CPU time, a thread's own part);
 * a second REGISTER gives EBUSY; RESET counts this table, which then
 * starts over.
 */
#include <cprof.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#include "utest.h"

#define SLACK (64 * 1024)
#define SLEEP_MS 50
#define THREAD_CALLS 3

/* Stand-ins for instrumented functions: only their addresses are used. */
static char fn_a, fn_b, fn_c;

/* What a file says about one function of this task's table. */
typedef struct found {
	bool table;                    /* this task's table is in the file */
	uint32_t nparts;
	uint64_t calls, wall, oncpu;   /* summed over its slots */
	uint64_t thread;               /* writer of the last part holding it */
	uint64_t tsc_hz;
} found_t;

/* The file from GET (malloc'd) and its size; NULL on an error. */
static uint8_t *get_file(size_t *len)
{
	size_t needed = 0;
	errno_t rc = cprof_get(NULL, 0, &needed);

	if (rc != ENOMEM)
		return NULL;
	uint8_t *buf = malloc(needed + SLACK);
	if (buf && cprof_get(buf, needed + SLACK, len) == EOK)
		return buf;
	free(buf);
	return NULL;
}

/* The parts of one table at *off: fold fn's slots into *f; false if malformed. */
static bool scan_parts(const uint8_t *buf, size_t len, size_t *off, uint32_t nparts,
		       bool mine, uint64_t fn, found_t *f)
{
	for (uint32_t i = 0; i < nparts; i++) {
		cprof_part_hdr_t p;
		if (len - *off < sizeof(p))
			return false;
		memcpy(&p, buf + *off, sizeof(p));
		*off += sizeof(p);
		if (p.magic != CPROF_PART_MAGIC || (len - *off) / sizeof(cprof_slot_t) < p.used)
			return false;
		for (uint32_t j = 0; mine && j < p.used; j++) {
			const cprof_slot_t *s = (const cprof_slot_t *)(buf + *off) + j;
			if (s->fn != fn)
				continue;
			f->calls += s->calls;
			f->wall += s->wall;
			f->oncpu += s->oncpu;
			f->thread = p.thread;
		}
		*off += (size_t)p.used * sizeof(cprof_slot_t);
	}
	return true;
}

/* Look for fn in this task's table of the file; false if it is malformed. */
static bool scan(const uint8_t *buf, size_t len, uint64_t fn, found_t *f)
{
	cprof_file_hdr_t h;
	size_t off = sizeof(h);

	memset(f, 0, sizeof(*f));
	if (len < sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, CPROF_FILE_MAGIC, 8) || h.version != CPROF_VERSION)
		return false;
	f->tsc_hz = h.tsc_hz;
	for (uint32_t i = 0; i < h.ntables; i++) {
		cprof_table_hdr_t t;
		if (len - off < sizeof(t))
			return false;
		memcpy(&t, buf + off, sizeof(t));
		off += sizeof(t);
		bool mine = t.task == sys_task_id();
		f->table |= mine;
		if (mine)
			f->nparts = t.nparts;
		if (!scan_parts(buf, len, &off, t.nparts, mine, fn, f))
			return false;
	}
	return off == len;
}

/* GET, then what it says about fn; false (diagnosed) if it failed. */
static bool get_scan(uint64_t fn, found_t *f)
{
	size_t len = 0;
	uint8_t *buf = get_file(&len);

	memset(f, 0, sizeof(*f));
	bool ok = buf && scan(buf, len, fn, f);

	if (!ok)
		tap_diag("GET failed or gave a malformed file (%zu bytes)", len);
	free(buf);
	return ok;
}

static void test_cprof_enomem(void)
{
	uint8_t small[16];
	size_t needed = 0, needed2 = 0;

	memset(small, 0xa5, sizeof(small));
	errno_t rc = cprof_get(NULL, 0, &needed);
	errno_t rc2 = cprof_get(small, sizeof(small), &needed2);
	bool untouched = true;
	for (size_t i = 0; i < sizeof(small); i++)
		untouched &= small[i] == 0xa5;
	tap_ok(rc == ENOMEM && rc2 == ENOMEM && needed >= sizeof(cprof_file_hdr_t) &&
	       needed2 >= sizeof(cprof_file_hdr_t) && untouched,
	       "cprof: GET without room: ENOMEM, the size needed, nothing written "
	       "(rc %d/%d, needed %zu/%zu)", rc, rc2, needed, needed2);
	size_t len = 0;
	uint8_t *buf = get_file(&len);
	found_t f;
	tap_ok(buf && scan(buf, len, 0, &f),
	       "cprof: GET with the size needed and slack: a well-formed file (%zu bytes)", len);
	free(buf);
}

/* Enter fn, sleep ms (0: none), leave it. */
static void hook_call(char *fn, unsigned ms)
{
	__cyg_profile_func_enter(fn, NULL);
	if (ms)
		sys_sleep_ns(ms * NS_PER_MS);
	__cyg_profile_func_exit(fn, NULL);
}

static void test_cprof_table(void)
{
	found_t f;

	hook_call(&fn_a, 0);
	hook_call(&fn_a, SLEEP_MS);
	cprof_rt_info_t info;
	cprof_rt_info(&info);
	tap_ok(info.announce == EOK && info.threads == 1,
	       "cprof: the first hook announced the table (rc %d, %u parts)", info.announce,
	       info.threads);
	bool ok = get_scan((uint64_t)(uintptr_t)&fn_a, &f);
	tap_ok(ok && f.table && f.calls == 2 && f.thread == sys_thread_id(),
	       "cprof: this task's table counts its path: 2 calls by this thread (%llu, "
	       "thread %llu)", (unsigned long long)f.calls, (unsigned long long)f.thread);
	uint64_t sleep_cycles = f.tsc_hz / 1000 * SLEEP_MS;
	tap_ok(ok && f.wall >= sleep_cycles * 9 / 10 && f.oncpu < sleep_cycles / 4,
	       "cprof: a %d ms sleep is wall time, not on-CPU time (wall %llu, cpu %llu, "
	       "sleep %llu cycles)", SLEEP_MS, (unsigned long long)f.wall,
	       (unsigned long long)f.oncpu, (unsigned long long)sleep_cycles);
	cprof_ctl_t ctl = { .magic = CPROF_CTL_MAGIC, .version = CPROF_VERSION };
	long rc = raw3(SYS_CPROF, CPROF_OP_REGISTER, (long)&ctl, 0);
	tap_ok(rc == -EBUSY, "cprof: a second REGISTER: EBUSY (%ld)", rc);
}

static long cprof_worker(void *arg)
{
	for (int i = 0; i < THREAD_CALLS; i++)
		hook_call(&fn_c, 0);
	return (long)sys_thread_id();
}

static void test_cprof_thread(void)
{
	thread_id_t tid;
	long value = 0;
	found_t f;

	bool started = thread_start(cprof_worker, NULL, &tid) == EOK &&
		thread_join(tid, &value) == EOK;
	bool ok = started && get_scan((uint64_t)(uintptr_t)&fn_c, &f);
	tap_ok(ok && f.nparts == 2 && f.calls == THREAD_CALLS && f.thread == (uint64_t)value,
	       "cprof: a thread's calls are in its own part (%u parts, %llu calls, thread "
	       "%llu of %ld)", f.nparts, (unsigned long long)f.calls,
	       (unsigned long long)f.thread, value);
}

static void test_cprof_reset(void)
{
	int n = -1;
	found_t fa, fb;
	errno_t rc = cprof_reset(&n);

	hook_call(&fn_b, 0);                 /* this thread's part starts over */
	bool ok = get_scan((uint64_t)(uintptr_t)&fn_a, &fa) &&
		get_scan((uint64_t)(uintptr_t)&fn_b, &fb);
	tap_ok(rc == EOK && n >= 1, "cprof: RESET asks this task's table too (%d tables)", n);
	tap_ok(ok && fa.table && fa.calls == 0 && fb.calls == 1,
	       "cprof: after RESET the table starts over (a: %llu calls, b: %llu)",
	       (unsigned long long)fa.calls, (unsigned long long)fb.calls);
}

void test_cprof(void)
{
	test_cprof_enomem();
	test_cprof_table();
	test_cprof_thread();
	test_cprof_reset();
}
