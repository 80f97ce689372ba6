/*
 * vfuzz syscall templates. Every call starts with six generic arguments
 * (gen.c: 40% boundary values, 40% pool pointers, 20% random); a
 * template's shape function then types the arguments that need it
 * (structures, handles, bounded timeouts) and keeps the fuzzer alive:
 * no unmapping of its own memory, no waiting without a timeout, no
 * SYS_EXIT outside child tasks. Adding a syscall is one fz_tpls[] entry
 * (a NULL shape fuzzes it with generic arguments).
 */
#include <abi/cprof.h>
#include <abi/profile.h>
#include <abi/syscall.h>
#include <abi/sysinfo.h>
#include <console.h>
#include <fs_proto.h>
#include <ipc.h>
#include <stdio.h>
#include <string.h>
#include <tsc.h>
#include <vernier.h>

#include "vfuzz.h"

#define USER_LOW 0x400000ull         /* where programs are linked */
#define USER_MAP_BASE 0x0000100000000000ull
#define USER_END 0x00007ffffffff000ull
#define FZ_MAP_BIG (1ull << 30)      /* larger maps only with -x */
#define FZ_MAP_MAX (64ull << 30)     /* SYS_MAP's limit */

uint64_t fz_self_task;
bool fz_extended;
int fz_self_phone = -1;
thread_id_t fz_workers[FZ_MAX_THREADS + 1];
unsigned fz_nworkers;
static cprof_ctl_t fz_ctl;            /* a control block cprof may keep */

static long fz_raw(const fz_call_t *c)
{
	return __vernier_syscall(c->nr, (long)c->a[0], (long)c->a[1], (long)c->a[2],
				 (long)c->a[3], (long)c->a[4], (long)c->a[5]);
}

static bool fz_is_user(uint64_t a)
{
	return a >= 0x1000 && a < 0x0000800000000000ull;   /* the whole lower half */
}

/* ------------------------------------------------------------ handles */

/* A phone: ours (never one libc holds: those are below fz_self_phone). */
static uint64_t fz_phone(fz_t *f)
{
	uint64_t p = fz_chance(f, 30) ? (uint64_t)fz_self_phone : fz_handle(f, FZ_H_PHONE);

	if (p < (uint64_t)fz_self_phone)
		p = fz_chance(f, 50) ? (uint64_t)fz_self_phone : fz_self_phone + 1 + fz_below(f, 80);
	return p;
}

/* A task id: self, a child, or anything (the caller filters). */
static uint64_t fz_task(fz_t *f)
{
	switch (fz_below(f, 4)) {
	case 0: return fz_self_task;
	case 1: return f->nkids ? f->kids[fz_below(f, f->nkids)] : 0;
	default: return fz_handle(f, FZ_H_TASK);
	}
}

/* An output pointer: the private scratch area, the pool or a bad one. */
static uint64_t fz_out(fz_t *f, unsigned slot)
{
	if (fz_chance(f, 50) && f->out)
		return (uint64_t)f->out + slot * 8;
	return fz_chance(f, 60) ? fz_pool_ptr(f) : fz_bad_ptr(f);
}

static bool fz_is_worker(uint64_t tid)
{
	for (unsigned i = 0; i < fz_nworkers; i++)
		if (fz_workers[i] == tid)
			return true;
	return false;
}

/* ------------------------------------------------------------ children */

static void fz_kid_forget(fz_t *f, uint64_t id)
{
	for (unsigned i = 0; i < f->nkids; i++) {
		if (f->kids[i] == id) {
			f->kids[i] = f->kids[--f->nkids];
			return;
		}
	}
}

/* Kill and reap child i (it may have exited already). */
static void fz_kid_reap(fz_t *f, unsigned i)
{
	task_id_t id = f->kids[i], got;
	int st;

	sys_kill(id);
	sys_wait(id, &st, 0, &got);
	fz_kid_forget(f, id);
}

static void fz_spawn_shape(fz_t *f, fz_call_t *c)
{
	spawn_args_t *sa = fz_scratch(f, 0, 8);
	const char **argv = fz_scratch(f, 16, 8);
	char *seed = fz_scratch(f, 32, 4);
	static const char *const envp[] = { "FUZZ=1", NULL };
	uint64_t p = fz_below(f, 100);

	if (f->nkids == FZ_KIDS)
		fz_kid_reap(f, (unsigned)fz_below(f, FZ_KIDS));
	snprintf(seed, 24, "%#llx", (unsigned long long)fz_rand(f));
	argv[0] = "vfuzz"; argv[1] = "-c"; argv[2] = seed; argv[3] = NULL;
	*sa = (spawn_args_t){
		.path = p < 60 ? "/bin/vfuzz" : p < 75 ? "/bin/no-such-program" :
			(const char *)(p < 88 ? fz_pool_ptr(f) : fz_bad_ptr(f)),
		.argv = fz_chance(f, 85) ? argv : (const char *const *)fz_arg(f),
		.envp = fz_chance(f, 70) ? NULL : fz_chance(f, 50) ? envp :
			(const char *const *)fz_arg(f),
		.perms = fz_chance(f, 80) ? 0 : (uint32_t)fz_rand(f),
		.flags = fz_chance(f, 70) ? 0 : fz_chance(f, 50) ? SPAWN_F_STOPPED
								  : (uint32_t)fz_rand(f),
	};
	if (fz_chance(f, 10)) {
		sa->image = (const void *)fz_pool_ptr(f);
		sa->image_size = fz_size(f);
	}
	c->a[0] = fz_chance(f, 90) ? (uint64_t)sa : fz_arg(f);
}

static void fz_spawn_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r <= 0)
		return;
	if (f->nkids < FZ_KIDS)
		f->kids[f->nkids++] = (task_id_t)r;
	else
		sys_kill((task_id_t)r);   /* cannot happen: room was made */
	fz_handle_add(f, FZ_H_TASK, (uint64_t)r);
}

static void fz_wait_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 20) ? WAIT_ANY : fz_task(f);
	c->a[1] = fz_chance(f, 30) ? 0 : fz_out(f, 0);
	c->a[2] = (fz_chance(f, 80) ? 0 : fz_rand(f)) | WAIT_NOHANG;
}

static void fz_wait_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r > 0)
		fz_kid_forget(f, (uint64_t)r);
}

static void fz_kill_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_task(f);
	if (c->a[0] == fz_self_task)
		c->a[0] = fz_chance(f, 50) ? 0 : fz_rand(f);
}

static void fz_kill_after(fz_t *f, const fz_call_t *c, long r)
{
	for (unsigned i = 0; i < f->nkids; i++)
		if (f->kids[i] == c->a[0] && r == 0) {
			fz_kid_reap(f, i);
			return;
		}
}

/* ------------------------------------------------------------ threads */

/* A short-lived thread: a few harmless calls, then SYS_THREAD_EXIT. */
static void fz_mini_entry(void *arg)
{
	fz_mini_t *m = arg;
	unsigned n = (unsigned)(m->rng % 6);

	for (unsigned i = 0; i < n; i++)
		__vernier_syscall((m->rng >> (8 + i)) & 1 ? SYS_YIELD : SYS_THREAD_ID,
				  0, 0, 0, 0, 0, 0);
	m->done = 1;
	__vernier_syscall(SYS_THREAD_EXIT, (long)m->value, 0, 0, 0, 0, 0);
}

/* Join finished mini threads so their stacks can be used again. */
static void fz_minis_reap(fz_t *f, bool wait)
{
	for (unsigned i = 0; i < FZ_MINIS; i++) {
		fz_mini_t *m = &f->minis[i];
		if (!m->busy || (!m->done && !wait))
			continue;
		sys_thread_join(m->tid, NULL);   /* ESRCH if another joined it */
		m->busy = 0;
	}
}

static fz_mini_t *fz_mini_free(fz_t *f)
{
	fz_minis_reap(f, false);
	for (unsigned i = 0; i < FZ_MINIS; i++)
		if (!f->minis[i].busy && f->minis[i].stack)
			return &f->minis[i];
	return NULL;
}

static void fz_thread_create_shape(fz_t *f, fz_call_t *c)
{
	fz_mini_t *m = fz_mini_free(f);
	bool good = m && fz_chance(f, 85);

	c->a[0] = good || fz_chance(f, 50) ? (uint64_t)fz_mini_entry : fz_bad_ptr(f);
	c->a[2] = good || fz_chance(f, 50) ? 0xffff800000000000ull : fz_bad_ptr(f);
	if (good) {
		m->done = 0;
		m->rng = fz_rand(f);
		m->value = fz_arg(f);
		c->a[1] = (uint64_t)m;
		c->a[2] = ((uint64_t)m->stack + FZ_MINI_STACK) & ~15ull;
		if (fz_chance(f, 5))
			c->a[2] |= 8;            /* misaligned: EINVAL */
	}
	if (fz_is_user(c->a[0]) && fz_is_user(c->a[2]) && !good)
		c->a[2] = 0xffffffff80000000ull;   /* never a live user stack by chance */
}

static void fz_thread_create_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r <= 0)
		return;
	fz_handle_add(f, FZ_H_THREAD, (uint64_t)r);
	for (unsigned i = 0; i < FZ_MINIS; i++)
		if ((uint64_t)&f->minis[i] == c->a[1]) {
			f->minis[i].tid = (thread_id_t)r;
			f->minis[i].busy = 1;
		}
}

static void fz_join_shape(fz_t *f, fz_call_t *c)
{
	fz_mini_t *m = &f->minis[fz_below(f, FZ_MINIS)];

	c->a[0] = m->busy && fz_chance(f, 60) ? m->tid : fz_handle(f, FZ_H_THREAD);
	if (fz_is_worker(c->a[0]) && c->a[0] != (uint64_t)sys_thread_id())
		c->a[0] = fz_rand(f) | 1ull << 62;   /* never wait for a worker */
	for (unsigned i = 0; i < FZ_MINIS; i++)
		if (!f->minis[i].busy && f->minis[i].tid == c->a[0])
			c->a[0] = 0;           /* recycled id: may be a worker's */
	c->a[1] = fz_chance(f, 30) ? 0 : fz_out(f, 0);
}

static void fz_join_after(fz_t *f, const fz_call_t *c, long r)
{
	for (unsigned i = 0; i < FZ_MINIS; i++)
		if (f->minis[i].busy && f->minis[i].tid == c->a[0] && r == 0)
			f->minis[i].busy = 0;
}

static void fz_thread_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 30) ? 0 : fz_handle(f, FZ_H_THREAD);
	c->a[1] = fz_chance(f, 50) ? fz_out(f, 0) : fz_arg(f);
}

/* ------------------------------------------------------------ memory */

static void fz_region_add(fz_t *f, uint64_t addr, uint64_t len)
{
	if (f->nregions == FZ_REGIONS) {
		sys_unmap((void *)f->regions[0].addr, f->regions[0].len);
		f->regions[0] = f->regions[--f->nregions];
	}
	f->regions[f->nregions++] = (fz_region_t){ addr, len };
}

static void fz_map_shape(fz_t *f, fz_call_t *c)
{
	if (f->nregions == FZ_REGIONS) {
		sys_unmap((void *)f->regions[0].addr, f->regions[0].len);
		f->regions[0] = f->regions[--f->nregions];
	}
	if (fz_chance(f, 40))
		c->a[0] = 0;
	if (c->a[0] >= USER_MAP_BASE - 0x100000000ull && c->a[0] < FZ_POOL_END)
		c->a[0] = fz_chance(f, 50) ? 0 : FZ_POOL_END + fz_below(f, 1024) * 0x1000;
	c->a[1] = fz_chance(f, 60) ? fz_below(f, 0x8000) : fz_size(f);
	if (!fz_extended && c->a[1] > FZ_MAP_BIG && c->a[1] <= FZ_MAP_MAX)
		c->a[1] = fz_below(f, FZ_MAP_BIG);
	c->a[2] = fz_chance(f, 85) ? fz_below(f, 8) : fz_rand(f);
}

static void fz_map_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r > 0)
		fz_region_add(f, (uint64_t)r, (c->a[1] + 0xfff) & ~0xfffull);
}

static void fz_unmap_shape(fz_t *f, fz_call_t *c)
{
	uint64_t p = fz_below(f, 100);

	if (p < 60 && f->nregions) {
		fz_region_t *g = &f->regions[fz_below(f, f->nregions)];
		uint64_t pages = g->len / 0x1000, skip = fz_below(f, pages ? pages : 1);
		bool whole = fz_chance(f, 60);
		c->a[0] = g->addr + (whole ? 0 : skip * 0x1000 + (fz_chance(f, 10) ? 8 : 0));
		c->a[1] = whole ? g->len : fz_below(f, (pages - skip) * 0x1000 + 1);
		if (fz_extended && fz_chance(f, 1))
			c->a[1] = fz_size(f);      /* flushes all it covers today */
	} else if (p < 85) {
		c->a[0] = fz_chance(f, 50) ? fz_boundary(f) : fz_bad_ptr(f);
		c->a[1] = fz_size(f);
		if (c->a[0] < USER_END && c->a[0] >= USER_LOW)
			c->a[0] = FZ_POOL_HOLE, c->a[1] &= 0x3fff;   /* our memory */
		else if (c->a[0] < USER_LOW && c->a[1] > USER_LOW - c->a[0])
			c->a[1] = USER_LOW - c->a[0];   /* below the program only */
	} else {
		c->a[0] = FZ_POOL_HOLE + fz_below(f, 4) * 0x1000;
		c->a[1] = fz_below(f, FZ_POOL_HOLE + 0x4000 - c->a[0] + 1);
	}
}

static void fz_unmap_after(fz_t *f, const fz_call_t *c, long r)
{
	for (unsigned i = 0; i < f->nregions; i++)
		if (r == 0 && f->regions[i].addr == c->a[0] && f->regions[i].len == c->a[1]) {
			f->regions[i] = f->regions[--f->nregions];
			return;
		}
}

static void fz_initrd_shape(fz_t *f, fz_call_t *c)
{
	uint64_t *out = fz_scratch(f, 0, 2);

	out[0] = out[1] = 0;
	c->a[0] = fz_chance(f, 70) ? (uint64_t)&out[0] : fz_arg(f);
	c->a[1] = fz_chance(f, 70) ? (uint64_t)&out[1] : fz_arg(f);
}

static void fz_initrd_after(fz_t *f, const fz_call_t *c, long r)
{
	uint64_t *out = fz_scratch(f, 0, 2);

	if (r == 0 && c->a[0] == (uint64_t)&out[0] && out[0])
		fz_region_add(f, out[0] & ~0xfffull,
			      c->a[1] == (uint64_t)&out[1] ? (out[1] + (out[0] & 0xfff) + 0xfff) & ~0xfffull : 0x1000);
}

/* ------------------------------------------------------------ misc */

static void fz_sleep_shape(fz_t *f, fz_call_t *c)
{
	static const uint64_t ns[] = { 0, 1, 1000, 100000, 1000000 };

	c->a[0] = ns[fz_below(f, 5)];
}

static void fz_console_shape(fz_t *f, fz_call_t *c)
{
	static const char text[] = "# vfuzz\n";

	if (fz_chance(f, 30)) {
		c->a[0] = (uint64_t)text;
		c->a[1] = fz_chance(f, 50) ? 0 : sizeof(text) - 1;
	} else {
		c->a[0] = fz_chance(f, 50) ? 0 : fz_bad_ptr(f);
		c->a[1] = fz_size(f);
	}
}

static void fz_task_info_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_task(f);
	c->a[1] = fz_out(f, 0);
}

static void fz_out0_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_out(f, 0);
}

static void fz_klog_shape(fz_t *f, fz_call_t *c)
{
	uint64_t *pos = fz_scratch(f, 600, 1);

	*pos = fz_chance(f, 50) ? 0 : fz_rand(f) >> fz_below(f, 64);
	c->a[0] = fz_out(f, 0);
	c->a[1] = fz_size(f);
	c->a[2] = fz_chance(f, 70) ? (uint64_t)pos : fz_arg(f);
	c->a[3] = fz_chance(f, 50) ? 0 : fz_below(f, 1000000);
}

/* ------------------------------------------------------------ sysinfo */

static const char *const fz_paths[] = {
	"", "system", "kernel", "kernel.version", "kernel.build", "boot.cmdline",
	"system.tsc_hz", "system.uptime", "system.cycles", "system.cpus",
	"system.physmem", "system.load", "system.tasks", "system.threads",
	"system.exceptions", "system.exceptions.14", "system.exceptions.999",
	"system.syscalls", "system.profiler", "system.profiler.sources", "system.memory", "system.tasks.1",
	"system.threads.1", "system.tasks.x", "system.", ".", "no.such.node",
	"system.tasks.18446744073709551615", "system.tasks.99999999999999999999",
	"system.bincache", "system.bincache.entries", "system.bincache.bytes",
	"system.bincache.limit",
};
#define FZ_NPATHS (sizeof(fz_paths) / sizeof(fz_paths[0]))

static uint64_t fz_path(fz_t *f)
{
	char *p = fz_scratch(f, 520, 10);
	uint64_t k = fz_below(f, 10);

	if (k < 6)
		return (uint64_t)fz_paths[fz_below(f, FZ_NPATHS)];
	if (k < 8) {
		snprintf(p, 64, "system.%s.%llu", fz_chance(f, 50) ? "tasks" : "threads",
			 (unsigned long long)fz_handle(f, fz_chance(f, 50) ? FZ_H_TASK : FZ_H_THREAD));
		return (uint64_t)p;
	}
	if (k < 9) {
		memset(p, 'a', 79);
		p[fz_below(f, 80)] = 0;    /* up to past SYSINFO_PATH_MAX */
		return (uint64_t)p;
	}
	return fz_arg(f);
}

static void fz_sysinfo_shape(fz_t *f, fz_call_t *c)
{
	uint64_t *needed = fz_scratch(f, 610, 1);

	c->a[0] = fz_path(f);
	c->a[1] = fz_out(f, 0);
	c->a[2] = fz_chance(f, 50) ? fz_below(f, 4096) : fz_size(f);
	c->a[3] = fz_chance(f, 50) ? (uint64_t)needed : fz_arg(f);
}

static void fz_sysinfo_int_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_path(f);
	c->a[1] = fz_out(f, 0);
}

/* ------------------------------------------------------------ profil, cprof */

static void fz_profile_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 40) ? 0 : fz_task(f);
	c->a[1] = fz_chance(f, 50) ? USER_LOW + fz_below(f, 0x10000) : fz_arg(f);
	c->a[2] = fz_chance(f, 50) ? c->a[1] + fz_size(f) : fz_arg(f);
	c->a[3] = fz_chance(f, 50) ? fz_below(f, 10000) : fz_arg(f);
}

static void fz_cprof_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 85) ? fz_below(f, 6) : fz_arg(f);
	if (c->a[0] == CPROF_OP_REGISTER && fz_chance(f, 60)) {
		fz_ctl.magic = fz_chance(f, 80) ? CPROF_CTL_MAGIC : (uint32_t)fz_rand(f);
		fz_ctl.version = fz_chance(f, 80) ? CPROF_VERSION : (uint32_t)fz_rand(f);
		fz_ctl.nparts = (uint32_t)fz_below(f, CPROF_PARTS_MAX + 2);
		for (unsigned i = 0; i < CPROF_PARTS_MAX; i++)
			fz_ctl.parts[i] = fz_pool_ptr(f);
		c->a[1] = (uint64_t)&fz_ctl;
	} else if (c->a[0] == CPROF_OP_GET) {
		c->a[1] = fz_out(f, 0);
		c->a[2] = fz_size(f);
		c->a[3] = fz_out(f, 610);
	}
}

/* ------------------------------------------------------------ IPC */

static void fz_kbox_args(fz_t *f, ipc_msg_t *m)
{
	static const uint64_t hz[] = { 0, 1, 100, 1000, 10000, 100000, 100001 };
	unsigned nhz = fz_extended ? 7 : 5;

	m->method = KBOX_PROF_TASK_BEGIN + fz_below(f, 7);
	if (fz_chance(f, 10))
		m->method = KBOX_TASK_INFO + fz_below(f, 2);
	if (m->method == KBOX_PROF_TASK_BEGIN || m->method == KBOX_PROF_SYSTEM_BEGIN) {
		m->args[0] = fz_chance(f, 85) ? fz_below(f, PROF_SRC_COUNT + 1) : fz_rand(f);
		m->args[1] = fz_chance(f, 85) ? hz[fz_below(f, nhz)] : fz_rand(f);
		m->args[2] = fz_chance(f, 85) ? fz_below(f, PROF_F_RECORDER << 1) : fz_rand(f); /* every flag */
		m->args[3] = fz_chance(f, 85) ? fz_below(f, PROF_DEPTH_MAX + 2) : fz_rand(f);
		m->args[4] = fz_chance(f, 85) ? fz_below(f, PROF_BUDGET_MAX + 2) : fz_rand(f);
	} else if (m->method == KBOX_PROF_DATA_READ || m->method == KBOX_PROF_STATUS) {
		m->args[0] = fz_chance(f, 80) ? fz_pool_ptr(f) : fz_bad_ptr(f);
		m->args[1] = fz_chance(f, 50) ? (uint64_t)PROF_READ_MIN << fz_below(f, 4) : fz_size(f);
	}
}

/*
 * The console's and ns's methods of issue 27 with typed arguments: SET_FG
 * (task, how), the console's STATUS (task) and NS_M_STATUS (task).
 */
static void fz_server_args(fz_t *f, ipc_msg_t *m)
{
	static const uint64_t methods[] = {
		CONSOLE_M_SET_FG, CONSOLE_M_SET_MODE, CONSOLE_M_STATUS, NS_M_STATUS,
	};

	m->method = methods[fz_below(f, 4)];
	m->args[0] = fz_chance(f, 20) ? 0 : fz_task(f);
	if (m->method == CONSOLE_M_SET_FG)
		m->args[1] = fz_chance(f, 85) ? fz_below(f, CONSOLE_FG_HAND + 2) : fz_rand(f);
	else if (m->method == CONSOLE_M_SET_MODE)
		m->args[0] = fz_chance(f, 85) ? fz_below(f, 3) : fz_rand(f);
}

/* A message: data transfers, connections, kbox methods or anything. */
static ipc_msg_t *fz_msg(fz_t *f, unsigned slot)
{
	ipc_msg_t *m = fz_scratch(f, slot, 6);

	for (unsigned i = 0; i < IPC_ARGS; i++)
		m->args[i] = fz_arg(f);
	switch (fz_below(f, 7)) {
	case 0:
		m->method = IPC_M_DATA_WRITE + fz_below(f, 2);
		m->args[0] = fz_chance(f, 80) ? fz_pool_ptr(f) : fz_bad_ptr(f);
		m->args[1] = fz_chance(f, 60) ? fz_below(f, 0x2000) : fz_size(f);
		if (fz_chance(f, 50))      /* fs's tags, FS_DW_PATH..FS_DR_USAGE */
			m->args[2] = FS_DW_PATH + fz_below(f, FS_DR_USAGE);
		break;
	case 1: m->method = fz_below(f, IPC_M_USER); break;
	case 2: fz_kbox_args(f, m); break;
	case 3: m->method = IPC_M_USER + fz_below(f, 64); break;
	case 4: m->method = FS_M_OPEN + fz_below(f, FS_M_MKPIPE); break;
	case 5: fz_server_args(f, m); break;
	default: m->method = fz_rand(f); break;
	}
	return m;
}

static void fz_call_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_phone(f);
	c->a[1] = fz_chance(f, 90) ? (uint64_t)fz_msg(f, 0) : fz_arg(f);
}

static void fz_call_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r > 0)
		fz_handle_add(f, FZ_H_CALLID, (uint64_t)r);
}

/*
 * Never IPC_WAIT_ALL: it takes any answer, also the one libc's console
 * write in another thread of ours waits for (by call id), and that
 * thread then waits for ever. In a 10 M-call run the worker's progress
 * lines stopped after 600,000 calls that way while the fuzzing went on.
 */
static void fz_wait_ipc_shape(fz_t *f, fz_call_t *c)
{
	static const unsigned flags[] = { IPC_WAIT_CALLS, IPC_WAIT_ANSWER };

	c->a[0] = fz_chance(f, 80) ? (uint64_t)&f->ev : fz_arg(f);
	c->a[2] = fz_chance(f, 85) ? flags[fz_below(f, 2)] : fz_rand(f) & ~(uint64_t)IPC_WAIT_NONBLOCK;
	if ((c->a[2] & 0xff) == IPC_WAIT_ALL)
		c->a[2] |= IPC_WAIT_CALLS;
	c->a[1] = 1 + fz_below(f, 1000000);             /* at most 1 ms */
	if (fz_chance(f, 50)) {
		c->a[2] |= IPC_WAIT_NONBLOCK;
		c->a[1] = fz_chance(f, 50) ? 0 : fz_arg(f);
	}
	c->a[3] = fz_handle(f, FZ_H_CALLID);
}

static void fz_wait_ipc_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r != 0 || c->a[0] != (uint64_t)&f->ev)
		return;
	if (f->ev.type == IPC_EV_CALL)
		fz_handle_add(f, FZ_H_CALLID, f->ev.callid);
	if (f->ev.type == IPC_EV_ANSWER && f->ev.msg.method == EOK && f->ev.msg.args[4] < 128)
		fz_handle_add(f, FZ_H_PHONE, f->ev.msg.args[4]);
}

/*
 * SYS_IPC_CALL_SYNC: a call as ipc_call's, then a wait of at most 1 ms
 * (never 0: no timeout) for its answer into ev or junk.
 */
static void fz_call_sync_shape(fz_t *f, fz_call_t *c)
{
	fz_call_shape(f, c);
	c->a[2] = fz_chance(f, 80) ? (uint64_t)&f->ev : fz_arg(f);
	c->a[3] = 1 + fz_below(f, 1000000);
}

static void fz_call_sync_after(fz_t *f, const fz_call_t *c, long r)
{
	fz_call_after(f, c, r);             /* r > 0: our call, its answer unread */
	if (r == 0 && c->a[2] == (uint64_t)&f->ev && f->ev.type == IPC_EV_ANSWER &&
	    f->ev.msg.method == EOK && f->ev.msg.args[4] < 128)
		fz_handle_add(f, FZ_H_PHONE, f->ev.msg.args[4]);
}

/*
 * SYS_IPC_CALL_SHORT: a phone as ipc_call's (or junk), a message's method
 * and three words in registers, then a wait of at most 1 ms (never 0: no
 * timeout) for its answer into the registers.
 */
static void fz_call_short_shape(fz_t *f, fz_call_t *c)
{
	const ipc_msg_t *m = fz_msg(f, 0);

	c->a[0] = fz_chance(f, 95) ? (uint64_t)fz_phone(f) : fz_arg(f);
	c->a[1] = m->method;
	c->a[2] = m->args[0];
	c->a[3] = m->args[1];
	c->a[4] = m->args[2];
	c->a[5] = 1 + fz_below(f, 1000000);
}

static void fz_answer_shape(fz_t *f, fz_call_t *c)
{
	ipc_msg_t *m = fz_msg(f, 0);

	m->method = fz_chance(f, 60) ? EOK : fz_chance(f, 70) ? fz_below(f, 210) : fz_rand(f);
	c->a[0] = fz_handle(f, FZ_H_CALLID);
	c->a[1] = fz_chance(f, 90) ? (uint64_t)m : fz_arg(f);
}

static void fz_answer_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r > 0)
		fz_handle_add(f, FZ_H_PHONE, (uint64_t)r);
}

/*
 * SYS_IPC_ANSWER_WAIT: an answer as ipc_answer's, then a wait for calls
 * (never IPC_WAIT_ALL or ANSWER without an id: see fz_wait_ipc_shape) of
 * at most 1 ms into ev or junk; or junk flags (EINVAL).
 */
static void fz_answer_wait_shape(fz_t *f, fz_call_t *c)
{
	fz_answer_shape(f, c);
	c->a[2] = fz_chance(f, 80) ? (uint64_t)&f->ev : fz_arg(f);
	c->a[3] = 1 + fz_below(f, 1000000);
	c->a[4] = fz_chance(f, 85) ? IPC_WAIT_CALLS | (fz_chance(f, 50) ? IPC_WAIT_NONBLOCK : 0)
				   : fz_rand(f) | 0x400;
}

static void fz_answer_wait_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r == 0 && c->a[2] == (uint64_t)&f->ev && f->ev.type == IPC_EV_CALL)
		fz_handle_add(f, FZ_H_CALLID, f->ev.callid);
}

static void fz_forward_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_handle(f, FZ_H_CALLID);
	c->a[1] = fz_phone(f);
	c->a[2] = fz_chance(f, 40) ? 0 : fz_chance(f, 50) ? IPC_M_USER + fz_below(f, 64)
							   : fz_msg(f, 0)->method;
}

static void fz_caller_perms_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 80) ? fz_handle(f, FZ_H_CALLID) : fz_arg(f);
}

static void fz_hangup_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_phone(f);
	if (c->a[0] == (uint64_t)fz_self_phone)
		c->a[0] = fz_chance(f, 50) ? fz_arg(f) : 1000;
	if (c->a[0] < (uint64_t)fz_self_phone)
		c->a[0] = 1000;
}

static void fz_kbox_shape(fz_t *f, fz_call_t *c)
{
	c->a[0] = fz_chance(f, 60) ? fz_task(f) : fz_handle(f, FZ_H_TASK);
}

static void fz_kbox_after(fz_t *f, const fz_call_t *c, long r)
{
	if (r > 0)
		fz_handle_add(f, FZ_H_PHONE, (uint64_t)r);
}

static void fz_bad_nr_shape(fz_t *f, fz_call_t *c)
{
	static const long nrs[] = { -1, -41, 1l << 31, 1l << 32, (long)(~0ul >> 1), (long)(1ul << 63) };

	c->nr = fz_chance(f, 50) ? 64 + (long)fz_below(f, 4000) : nrs[fz_below(f, 6)];
}

/* ------------------------------------------------------------ the table */

const fz_tpl_t fz_tpls[] = {
	{ "null", SYS_NULL, 2, NULL, NULL, 0 },
	{ "exit", SYS_EXIT, 1, NULL, NULL, FZ_F_CHILDONLY },
	{ "console_write", SYS_CONSOLE_WRITE, 2, fz_console_shape, NULL, 0 },
	{ "task_id", SYS_TASK_ID, 1, NULL, NULL, 0 },
	{ "thread_id", SYS_THREAD_ID, 1, NULL, NULL, 0 },
	{ "spawn", SYS_SPAWN, 1, fz_spawn_shape, fz_spawn_after, FZ_F_NOCHILD },
	{ "wait", SYS_WAIT, 3, fz_wait_shape, fz_wait_after, 0 },
	{ "kill", SYS_KILL, 2, fz_kill_shape, fz_kill_after, 0 },
	{ "thread_create", SYS_THREAD_CREATE, 4, fz_thread_create_shape, fz_thread_create_after, 0 },
	{ "thread_exit", SYS_THREAD_EXIT, 1, NULL, NULL, FZ_F_CHILDONLY },
	{ "thread_join", SYS_THREAD_JOIN, 3, fz_join_shape, fz_join_after, 0 },
	{ "yield", SYS_YIELD, 1, NULL, NULL, 0 },
	{ "sleep", SYS_SLEEP, 1, fz_sleep_shape, NULL, 0 },
	{ "clock", SYS_CLOCK, 1, NULL, NULL, 0 },
	{ "map", SYS_MAP, 6, fz_map_shape, fz_map_after, 0 },
	{ "unmap", SYS_UNMAP, 6, fz_unmap_shape, fz_unmap_after, 0 },
	{ "task_info", SYS_TASK_INFO, 3, fz_task_info_shape, NULL, 0 },
	{ "set_affinity", SYS_SET_AFFINITY, 2, NULL, NULL, 0 },
	{ "poweroff", SYS_POWEROFF, 1, NULL, NULL, FZ_F_FAILS },
	{ "thread_stats", SYS_THREAD_STATS, 3, fz_thread_shape, NULL, 0 },
	{ "system_stats", SYS_SYSTEM_STATS, 2, fz_out0_shape, NULL, 0 },
	{ "ipc_call", SYS_IPC_CALL, 10, fz_call_shape, fz_call_after, 0 },
	{ "ipc_call_sync", SYS_IPC_CALL_SYNC, 4, fz_call_sync_shape, fz_call_sync_after, 0 },
	{ "ipc_call_short", SYS_IPC_CALL_SHORT, 4, fz_call_short_shape, fz_call_after, 0 },
	{ "ipc_wait", SYS_IPC_WAIT, 8, fz_wait_ipc_shape, fz_wait_ipc_after, 0 },
	{ "ipc_answer", SYS_IPC_ANSWER, 6, fz_answer_shape, fz_answer_after, 0 },
	{ "ipc_answer_wait", SYS_IPC_ANSWER_WAIT, 4, fz_answer_wait_shape, fz_answer_wait_after, 0 },
	{ "ipc_forward", SYS_IPC_FORWARD, 4, fz_forward_shape, NULL, 0 },
	{ "ipc_hangup", SYS_IPC_HANGUP, 2, fz_hangup_shape, NULL, 0 },
	{ "ipc_connect_kbox", SYS_IPC_CONNECT_KBOX, 3, fz_kbox_shape, fz_kbox_after, 0 },
	{ "irq_subscribe", SYS_IRQ_SUBSCRIBE, 1, NULL, NULL, FZ_F_FAILS },
	{ "irq_ack", SYS_IRQ_ACK, 1, NULL, NULL, FZ_F_FAILS },
	{ "map_device", SYS_MAP_DEVICE, 1, NULL, NULL, FZ_F_FAILS },
	{ "fb_info", SYS_FB_INFO, 1, fz_out0_shape, NULL, 0 },
	{ "klog_read", SYS_KLOG_READ, 2, fz_klog_shape, NULL, 0 },
	{ "console_claim", SYS_CONSOLE_CLAIM, 1, NULL, NULL, FZ_F_FAILS },
	{ "initrd_map", SYS_INITRD_MAP, 1, fz_initrd_shape, fz_initrd_after, 0 },
	{ "sysinfo_keys", SYS_SYSINFO_KEYS, 3, fz_sysinfo_shape, NULL, 0 },
	{ "sysinfo_type", SYS_SYSINFO_TYPE, 2, fz_sysinfo_int_shape, NULL, 0 },
	{ "sysinfo_int", SYS_SYSINFO_INT, 3, fz_sysinfo_int_shape, NULL, 0 },
	{ "sysinfo_data", SYS_SYSINFO_DATA, 4, fz_sysinfo_shape, NULL, 0 },
	{ "profile", SYS_PROFILE, 3, fz_profile_shape, NULL, 0 },
	{ "getprofile", SYS_GETPROFILE, 2, fz_out0_shape, NULL, 0 },
	{ "cprof", SYS_CPROF, 3, fz_cprof_shape, NULL, 0 },
	{ "ipc_caller_perms", SYS_IPC_CALLER_PERMS, 2, fz_caller_perms_shape, NULL, 0 },
	{ "ioport_allow", SYS_IOPORT_ALLOW, 1, NULL, NULL, FZ_F_FAILS },
	{ "ioport_revoke", SYS_IOPORT_REVOKE, 1, NULL, NULL, FZ_F_FAILS },
	{ "bad_number", FZ_NR_BAD, 2, fz_bad_nr_shape, NULL, FZ_F_ENOSYS },
};
const unsigned fz_ntpls = sizeof(fz_tpls) / sizeof(fz_tpls[0]);

_Static_assert(sizeof(fz_tpls) / sizeof(fz_tpls[0]) <= 64, "fz_t.counts has 64 rows");

/* A template by weight (children: their own subset). */
unsigned fz_pick(fz_t *f)
{
	static unsigned total[2];
	unsigned k = f->child ? 1 : 0;

	if (!total[k])
		for (unsigned i = 0; i < fz_ntpls; i++)
			if (!(fz_tpls[i].flags & (k ? FZ_F_NOCHILD : FZ_F_CHILDONLY)))
				total[k] += fz_tpls[i].weight;
	uint64_t w = fz_below(f, total[k]);
	for (unsigned i = 0; i < fz_ntpls; i++) {
		if (fz_tpls[i].flags & (k ? FZ_F_NOCHILD : FZ_F_CHILDONLY))
			continue;
		if (w < fz_tpls[i].weight)
			return i;
		w -= fz_tpls[i].weight;
	}
	return 0;
}

/* Build, make and account one call of template tpl; its result. */
long fz_run(fz_t *f, unsigned tpl, fz_call_t *c)
{
	const fz_tpl_t *t = &fz_tpls[tpl];

	c->nr = t->nr;
	for (unsigned i = 0; i < 6; i++)
		c->a[i] = fz_arg(f);
	f->cur_tpl = tpl;
	f->phase = 1;
	if (t->shape)
		t->shape(f, c);
	f->cur = *c;
	f->phase = 2;
	uint64_t t0 = tsc_read_fast();
	long r = fz_raw(c);
	f->cycles[tpl] += tsc_read_fast() - t0;
	f->phase = 3;
	if (t->after)
		t->after(f, c, r);
	f->phase = 0;
	f->counts[tpl][fz_err_class(r)]++;
	f->ncalls++;
	return r;
}

static const int fz_codes[FZ_NERR - 1] = {
	EOK, EPERM, ENOENT, ESRCH, EINTR, EIO, E2BIG, ENOEXEC, EAGAIN, ENOMEM,
	EFAULT, EBUSY, EEXIST, ENOTDIR, EISDIR, EINVAL, ENOTTY, ENOSPC, EPIPE,
	ERANGE, ENAMETOOLONG, ENOSYS, ENOTSUP, ETIMEOUT, ELIMIT, EHANGUP, EGENERIC,
};
static const char *const fz_code_names[FZ_NERR] = {
	"ok", "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "E2BIG", "ENOEXEC", "EAGAIN",
	"ENOMEM", "EFAULT", "EBUSY", "EEXIST", "ENOTDIR", "EISDIR", "EINVAL", "ENOTTY",
	"ENOSPC", "EPIPE", "ERANGE", "ENAMETOOLONG", "ENOSYS", "ENOTSUP", "ETIMEOUT",
	"ELIMIT", "EHANGUP", "EGENERIC", "other",
};

/* The result class of r: 0 success, 1.. an errno.h code, FZ_NERR-1 other. */
unsigned fz_err_class(long r)
{
	if (r >= 0)
		return 0;
	for (unsigned i = 1; i < FZ_NERR - 1; i++)
		if (-r == fz_codes[i])
			return i;
	return FZ_NERR - 1;
}

const char *fz_err_name(unsigned cls)
{
	return cls < FZ_NERR ? fz_code_names[cls] : "?";
}

/* Whether r is a result the ABI allows for this call. */
bool fz_check(const fz_tpl_t *t, const fz_call_t *c, long r)
{
	unsigned cls = fz_err_class(r);

	if (cls == FZ_NERR - 1)
		return false;
	if ((t->flags & FZ_F_FAILS) && r >= 0)
		return false;
	if ((t->flags & FZ_F_ENOSYS) && r != -ENOSYS)
		return false;
	return true;
}

/* Undo what a thread holds: regions, children, mini threads. */
void fz_cleanup(fz_t *f)
{
	while (f->nkids)
		fz_kid_reap(f, 0);
	fz_minis_reap(f, true);
	while (f->nregions) {
		sys_unmap((void *)f->regions[0].addr, f->regions[0].len);
		f->regions[0] = f->regions[--f->nregions];
	}
}
