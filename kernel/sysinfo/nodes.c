/*
 * sysinfo's own nodes (kernel.*, boot.cmdline, system.cpus, .tasks,
 * .threads, .exceptions, .syscalls and the clock integers); the other
 * subsystems define theirs next to their code (kernel/sysinfo.h). Each
 * reader builds its value into a kernel buffer at the moment of the read. Tables are filled under the lock of the list they
 * walk (room is reserved first, so the walk seldom allocates), which
 * makes each read one consistent snapshot of that list.
 */
#include <abi/sysinfo.h>
#include <arch/interrupt.h>
#include <kernel/acct.h>
#include <kernel/bootinfo.h>
#include <kernel/cpu.h>
#include <kernel/ipc.h>
#include <kernel/origin.h>
#include <kernel/platform.h>
#include <kernel/syscall.h>
#include <kernel/sysinfo.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/version.h>
#include <kernel/vm_space.h>
#include <lib/fmt.h>
#include <lib/string.h>

#define SI_SLACK 8                   /* entries reserved beyond a count */

/* ------------------------------------------------------------ integers */

static uint64_t si_tsc_hz(void)
{
	return time_cycles_per_sec();
}

static uint64_t si_uptime(void)
{
	return time_ns();
}

static uint64_t si_cycles(void)
{
	return time_cycles();
}

static uint64_t si_acct_entry(void)
{
	return acct_entry_cost;
}

static uint64_t si_platform(void)
{
	return platform_sampling();
}

/* ---------------------------------------------------------------- text */

static errno_t si_text(si_buf_t *b, const char *s)
{
	return si_put(b, s, strlen(s) + 1);
}

static errno_t si_kernel_version(si_buf_t *b, uint64_t arg)
{
	return si_text(b, VERNIER_VERSION);
}

static errno_t si_kernel_build(si_buf_t *b, uint64_t arg)
{
	return si_text(b, "gcc " __VERSION__ ", " __DATE__ " " __TIME__);
}

static errno_t si_boot_cmdline(si_buf_t *b, uint64_t arg)
{
	return si_text(b, boot_info.cmdline);
}

/* ----------------------------------------------------------------- CPUs */

/*
 * c's counters as of now: the cycles since its last boundary (not yet
 * charged: an idle CPU charges only at its next interrupt) go where that
 * CPU's mode says. Read without its cooperation, so off by at most the
 * segment it charges meanwhile.
 */
static void si_cpu_now(const cpu_t *c, sysinfo_cpu_t *r)
{
	uint64_t last = __atomic_load_n(&c->acct.last, __ATOMIC_ACQUIRE);
	acct_mode_t mode = c->acct.mode;
	bool idle = c->current == c->idle;
	uint64_t now = time_cycles();
	uint64_t pend = last && now > last ? now - last : 0;

	r->active = c->online;
	r->busy_cycles = c->acct.busy + (mode != ACCT_IRQ && !idle ? pend : 0);
	r->idle_cycles = c->acct.idle + (mode != ACCT_IRQ && idle ? pend : 0);
	r->irq_cycles = c->acct.irq + (mode == ACCT_IRQ ? pend : 0);
	r->switches = c->acct.switches;
	r->interrupts = c->acct.interrupts;
	r->irqoff_max_cycles = __atomic_load_n(&c->lat.irqoff_max, __ATOMIC_RELAXED);
	r->nmi_max_cycles = __atomic_load_n(&c->lat.nmi_max, __ATOMIC_RELAXED);
}

static errno_t si_cpus(si_buf_t *b, uint64_t arg)
{
	errno_t rc = EOK;

	for (uint32_t i = 0; i < cpu_count && rc == EOK; i++) {
		sysinfo_cpu_t r = { .id = i, .mhz = time_cycles_per_sec() / 1000000 };
		if (cpus[i])
			si_cpu_now(cpus[i], &r);
		rc = si_put(b, &r, sizeof(r));
	}
	return rc;
}

/* ---------------------------------------------------------------- tasks */

static void si_task_record(task_t *t, sysinfo_task_t *r)
{
	const ipc_counters_t *c = &t->ipc.counters;

	memset(r, 0, sizeof(*r));
	r->id = t->id;
	r->parent = t->parent ? t->parent->id : 0;
	strlcpy(r->name, t->name, sizeof(r->name));
	r->threads = t->nthreads;
	r->perms = t->perms;
	if (t->space)
		vm_space_usage(t->space, &r->virt_bytes, &r->resident_bytes);
	task_cycles(t, &r->user_cycles, &r->kernel_cycles);
	r->imposed_cycles = __atomic_load_n(&t->acct.imposed_cycles, __ATOMIC_RELAXED);
	r->served_cycles = __atomic_load_n(&t->acct.served_cycles, __ATOMIC_RELAXED);
	r->ipc = (sysinfo_ipc_counts_t){
		c->calls_sent, c->calls_received, c->answers_sent,
		c->answers_received, c->irq_notifications, c->forwarded,
	};
}

typedef struct si_walk {
	si_buf_t *b;
	errno_t rc;
	uint64_t id;                 /* one entry only; 0: all */
	bool found;
	size_t count;
} si_walk_t;

static void si_task_add(task_t *t, void *ctx)
{
	si_walk_t *w = ctx;
	sysinfo_task_t r;

	if (w->rc != EOK || (w->id && t->id != w->id))
		return;
	w->found = true;
	si_task_record(t, &r);
	w->rc = si_put(w->b, &r, sizeof(r));
}

static void si_count_task(task_t *t, void *ctx)
{
	((si_walk_t *)ctx)->count++;
}

/* Walk the tasks (id: only that one) into b; ENOENT if id was not found. */
static errno_t si_walk_tasks(si_buf_t *b, uint64_t id)
{
	si_walk_t w = { .b = b, .rc = EOK, .id = id };

	task_foreach(si_count_task, &w);
	w.rc = si_reserve(b, (w.count + SI_SLACK) * sizeof(sysinfo_task_t));
	task_foreach(si_task_add, &w);
	return w.rc != EOK ? w.rc : id && !w.found ? ENOENT : EOK;
}

static errno_t si_tasks(si_buf_t *b, uint64_t arg)
{
	return si_walk_tasks(b, 0);
}

static errno_t si_task(si_buf_t *b, uint64_t id)
{
	return id ? si_walk_tasks(b, id) : ENOENT;
}

/* Append the decimal id and its NUL. */
static errno_t si_put_id(si_buf_t *b, uint64_t id)
{
	char num[24];
	int n = fmt_snprintf(num, sizeof(num), "%lu", (unsigned long)id);

	return si_put(b, num, (size_t)n + 1);
}

static void si_task_name(task_t *t, void *ctx)
{
	si_walk_t *w = ctx;

	if (w->rc == EOK && t->id)
		w->rc = si_put_id(w->b, t->id);
}

/* Each live task's id but the kernel's, as names; EOK or ENOMEM. */
errno_t si_task_ids(si_buf_t *b)
{
	si_walk_t w = { .b = b, .rc = EOK };

	task_foreach(si_task_name, &w);
	return w.rc;
}

/* -------------------------------------------------------------- threads */

static const uint32_t si_states[] = {
	[THREAD_READY] = SYSINFO_THREAD_READY,
	[THREAD_RUNNING] = SYSINFO_THREAD_RUNNING,
	[THREAD_SLEEPING] = SYSINFO_THREAD_SLEEPING,
	[THREAD_ZOMBIE] = SYSINFO_THREAD_ZOMBIE,
};

/*
 * t's wait reason and its off-CPU cycles by reason, the wait in progress
 * included (a racy glance, as on_cpu: a thread that switches meanwhile
 * reads a few cycles off).
 */
static void si_thread_waits(const thread_t *t, sysinfo_thread_t *r)
{
	uint64_t since = __atomic_load_n(&t->acct.last_switch_out, __ATOMIC_RELAXED);
	unsigned why = __atomic_load_n(&t->wait_why, __ATOMIC_RELAXED) % WAIT_WHY_COUNT;

	r->wait_why = t->on_cpu ? WAIT_WHY_NONE : why;
	if (r->wait_why == WAIT_WHY_IPC) {
		r->wait_task = t->wait_task;
		r->wait_method = t->wait_method;
	}
	for (unsigned i = 0; i < WAIT_WHY_COUNT; i++)
		r->off_cycles[i] = t->acct.off_by[i];
	if (r->wait_why != WAIT_WHY_NONE && since && time_cycles() > since)
		r->off_cycles[why] += time_cycles() - since;
}

static void si_thread_add(thread_t *t, void *ctx)
{
	si_walk_t *w = ctx;
	sysinfo_thread_t r;

	if (w->rc != EOK || (w->id && t->id != w->id))
		return;
	w->found = true;
	memset(&r, 0, sizeof(r));
	r.id = t->id;
	r.task = t->task ? t->task->id : 0;
	strlcpy(r.name, t->name, sizeof(r.name));
	r.state = si_states[t->state];
	r.priority = t->priority;
	r.cpu = t->cpu;
	r.on_cpu = t->on_cpu;
	acct_thread_now(t, &r.user_cycles, &r.kernel_cycles);
	r.switches = t->acct.switches;
	if (origin_serving(&t->serve)) {     /* a racy glance, as on_cpu */
		r.serving_origin = t->serve.rec.hops[0];
		r.serving_method = t->serve.rec.method;
	}
	si_thread_waits(t, &r);
	w->rc = si_put(w->b, &r, sizeof(r));
}

static void si_count_thread(thread_t *t, void *ctx)
{
	((si_walk_t *)ctx)->count++;
}

static errno_t si_walk_threads(si_buf_t *b, uint64_t id)
{
	si_walk_t w = { .b = b, .rc = EOK, .id = id };

	thread_foreach(si_count_thread, &w);
	w.rc = si_reserve(b, (w.count + SI_SLACK) * sizeof(sysinfo_thread_t));
	thread_foreach(si_thread_add, &w);
	return w.rc != EOK ? w.rc : id && !w.found ? ENOENT : EOK;
}

static errno_t si_threads(si_buf_t *b, uint64_t arg)
{
	return si_walk_threads(b, 0);
}

static errno_t si_thread(si_buf_t *b, uint64_t id)
{
	return id ? si_walk_threads(b, id) : ENOENT;
}

static void si_thread_name(thread_t *t, void *ctx)
{
	si_walk_t *w = ctx;

	if (w->rc == EOK)
		w->rc = si_put_id(w->b, t->id);
}

static errno_t si_thread_ids(si_buf_t *b)
{
	si_walk_t w = { .b = b, .rc = EOK };

	thread_foreach(si_thread_name, &w);
	return w.rc;
}

/* ------------------------------------------------------- vectors, calls */

/* Vector v's record; whether it is listed (named, handled or counted). */
static bool si_vector_record(unsigned v, sysinfo_vector_t *r)
{
	memset(r, 0, sizeof(*r));
	r->vector = v;
	bool used = arch_vector_name(v, r->desc, sizeof(r->desc));
	for (uint32_t i = 0; i < cpu_count; i++) {
		if (!cpus[i])
			continue;
		r->count += cpus[i]->acct.vec_count[v];
		r->cycles += cpus[i]->acct.vec_cycles[v];
	}
	return used || r->count;
}

static errno_t si_vectors(si_buf_t *b, uint64_t arg)
{
	sysinfo_vector_t r;
	errno_t rc = EOK;

	for (unsigned v = 0; v < ACCT_VECTORS && rc == EOK; v++)
		if (si_vector_record(v, &r))
			rc = si_put(b, &r, sizeof(r));
	return rc;
}

static errno_t si_vector_ids(si_buf_t *b)
{
	sysinfo_vector_t r;
	errno_t rc = EOK;

	for (unsigned v = 0; v < ACCT_VECTORS && rc == EOK; v++)
		if (si_vector_record(v, &r))
			rc = si_put_id(b, v);
	return rc;
}

static errno_t si_vector(si_buf_t *b, uint64_t id)
{
	sysinfo_vector_t r;

	if (id >= ACCT_VECTORS || !si_vector_record((unsigned)id, &r))
		return ENOENT;
	return si_put(b, &r, sizeof(r));
}

static errno_t si_syscalls(si_buf_t *b, uint64_t arg)
{
	errno_t rc = EOK;

	for (uint32_t nr = 0; nr < SYS_COUNT && rc == EOK; nr++) {
		sysinfo_syscall_t r = { .nr = nr };
		const char *name = syscall_name(nr);
		strlcpy(r.name, name ? name : "?", sizeof(r.name));
		for (uint32_t i = 0; i < cpu_count; i++) {
			if (!cpus[i])
				continue;
			r.count += cpus[i]->acct.sys_count[nr];
			r.cycles += cpus[i]->acct.sys_cycles[nr];
		}
		rc = si_put(b, &r, sizeof(r));
	}
	return rc;
}

/* ----------------------------------------------------------------- nodes */

SYSINFO_DATA_NODE(kernel_version, "kernel.version", 10, si_kernel_version);
SYSINFO_DATA_NODE(kernel_build, "kernel.build", 20, si_kernel_build);
SYSINFO_DATA_NODE(boot_cmdline, "boot.cmdline", 30, si_boot_cmdline);
SYSINFO_INT_NODE(tsc_hz, "system.tsc_hz", 100, si_tsc_hz);
SYSINFO_INT_NODE(uptime, "system.uptime", 110, si_uptime);
SYSINFO_INT_NODE(cycles, "system.cycles", 120, si_cycles);
SYSINFO_INT_NODE(acct_entry, "system.acct_entry_cycles", 130, si_acct_entry);
SYSINFO_INT_NODE(platform, "system.platform", 140, si_platform);
SYSINFO_DATA_NODE(cpus, "system.cpus", 160, si_cpus);
SYSINFO_TABLE_NODE(tasks, "system.tasks", 190, si_tasks, si_task_ids, si_task);
SYSINFO_TABLE_NODE(threads, "system.threads", 200, si_threads, si_thread_ids, si_thread);
SYSINFO_TABLE_NODE(exceptions, "system.exceptions", 210, si_vectors, si_vector_ids,
		   si_vector);
SYSINFO_DATA_NODE(syscalls, "system.syscalls", 220, si_syscalls);
