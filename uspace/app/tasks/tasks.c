/*
 * tasks: list tasks, threads, the load and the CPUs (like ps(1)), from the
 * kernel's sysinfo tree.
 *
 *   tasks [-h] [-t ID] [-a] [-l] [-c] [-i]
 *     (none)  every task: id, threads, virtual and resident memory, user
 *             and system time (seconds), name
 *     -t ID   the threads of task ID, with what each waits for now (WAIT:
 *             sleep, ipc SERVER.METHOD, recv, join, child, runnable...;
 *             abi/wait.h) and its seconds off the CPU by reason
 *     -a      every thread (kernel threads belong to task 0)
 *     -l      the load averages
 *     -c      the CPUs: online, MHz, busy/idle/interrupt shares since boot
 *     -i      IPC origins: per task the cycles others spent serving its
 *             calls (IMPOSED) and it spent serving others' (SERVED), both
 *             also in seconds; then the (origin, server) pairs since boot,
 *             most cycles first (system.ipc.pairs)
 *
 * Options combine; their views print in the order above.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stats.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tasks_opts {
	bool task;              /* -t: the threads of task id */
	uint64_t id;
	bool all;               /* -a */
	bool load;              /* -l */
	bool cpus;              /* -c */
	bool ipc;               /* -i */
} tasks_opts_t;

static void usage(FILE *out)
{
	fprintf(out, "usage: tasks [-h] [-t ID] [-a] [-l] [-c] [-i]\n"
		"  list every task (threads, memory, user and system seconds)\n"
		"  -t ID  the threads of task ID: what each waits for, and its\n"
		"         seconds off the CPU by reason\n"
		"  -a     every thread (task 0: the kernel's)\n"
		"  -l     the load averages\n"
		"  -c     the CPUs (busy, idle and interrupt time since boot)\n"
		"  -i     IPC origins: imposed and served cycles per task, then\n"
		"         the (origin, server) pairs\n");
}

/* A task id: decimal digits; false if s is not one. */
static bool tasks_parse_id(const char *s, uint64_t *id)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*id = strtoull(s, &end, 10);
	return *end == '\0' && errno == 0;
}

/* One option into o; false for a usage error. */
static bool tasks_option(int opt, tasks_opts_t *o)
{
	switch (opt) {
	case 't':
		o->task = true;
		return tasks_parse_id(optarg, &o->id);
	case 'a': o->all = true; return true;
	case 'l': o->load = true; return true;
	case 'c': o->cpus = true; return true;
	case 'i': o->ipc = true; return true;
	default: return false;
	}
}

/* The options into o: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, tasks_opts_t *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "ht:alci")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (!tasks_option(opt, o)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* Report a failed read of what; returns 1 (the exit status). */
static int tasks_error(const char *what, errno_t rc)
{
	fprintf(stderr, "tasks: cannot read %s: %s\n", what, strerror(rc));
	return 1;
}

static int task_cmp(const void *a, const void *b);

/* Every task, by id (*t malloc'ed); EOK, or an error said on stderr. */
static errno_t tasks_sorted(sysinfo_task_t **t, size_t *n)
{
	errno_t rc = stats_tasks(t, n);

	if (rc != EOK) {
		tasks_error("the tasks", rc);
		return rc;
	}
	qsort(*t, *n, sizeof(**t), task_cmp);
	return EOK;
}

static int task_cmp(const void *a, const void *b)
{
	uint64_t x = ((const sysinfo_task_t *)a)->id;
	uint64_t y = ((const sysinfo_task_t *)b)->id;

	return (x > y) - (x < y);
}

static int thread_cmp(const void *a, const void *b)
{
	uint64_t x = ((const sysinfo_thread_t *)a)->id;
	uint64_t y = ((const sysinfo_thread_t *)b)->id;

	return (x > y) - (x < y);
}

static void task_line(const sysinfo_task_t *t, uint64_t hz)
{
	char virt[STATS_BYTES_BUF], res[STATS_BYTES_BUF];
	char user[STATS_SECONDS_BUF], sys[STATS_SECONDS_BUF];

	printf("%6" PRIu64 " %7" PRIu32 " %8s %8s %9s %9s %.*s\n", t->id,
	       t->threads, stats_fmt_bytes(virt, sizeof(virt), t->virt_bytes),
	       stats_fmt_bytes(res, sizeof(res), t->resident_bytes),
	       stats_fmt_seconds(user, sizeof(user), t->user_cycles, hz),
	       stats_fmt_seconds(sys, sizeof(sys), t->kernel_cycles, hz),
	       SYSINFO_NAME_MAX, t->name);
}

/* Every task, by id. */
static int show_tasks(uint64_t hz)
{
	sysinfo_task_t *t;
	size_t n;
	if (tasks_sorted(&t, &n) != EOK)
		return 1;
	printf("%6s %7s %8s %8s %9s %9s %s\n", "ID", "THREADS", "VIRT", "RES",
	       "USER", "SYS", "NAME");
	for (size_t i = 0; i < n; i++)
		task_line(&t[i], hz);
	free(t);
	return 0;
}

/* The name of task id in the sorted tasks (n of them), or "?". */
static const char *task_name(const sysinfo_task_t *tasks, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (tasks[i].id == id)
			return tasks[i].name;
	return "?";
}

/* What t waits for now: "-" running, "sleep", "ipc fs.READ" (abi/wait.h). */
static const char *thread_wait(const sysinfo_thread_t *t, const sysinfo_task_t *tasks,
			       size_t ntasks, char *buf, size_t size)
{
	return stats_fmt_wait(buf, size, t,
			      t->wait_task ? task_name(tasks, ntasks, t->wait_task) : NULL);
}

static void thread_line(const sysinfo_thread_t *t, uint64_t hz, const sysinfo_task_t *tasks,
			size_t ntasks)
{
	char user[STATS_SECONDS_BUF], sys[STATS_SECONDS_BUF], wait[64];

	printf("%6" PRIu64 " %6" PRIu64 " %-8s %4" PRIu32 " %3" PRIu32
	       " %9s %9s %-20s %.*s\n", t->id, t->task, stats_thread_state(t->state),
	       t->priority, t->cpu,
	       stats_fmt_seconds(user, sizeof(user), t->user_cycles, hz),
	       stats_fmt_seconds(sys, sizeof(sys), t->kernel_cycles, hz),
	       thread_wait(t, tasks, ntasks, wait, sizeof(wait)),
	       SYSINFO_NAME_MAX, t->name);
}

/* Thread t's seconds off its CPU by reason, those not 0 (abi/wait.h). */
static void thread_off_line(const sysinfo_thread_t *t, uint64_t hz)
{
	static const char *const names[] = WAIT_WHY_NAMES;
	char sec[STATS_SECONDS_BUF];

	printf("%6" PRIu64 " ", t->id);
	for (unsigned i = WAIT_WHY_NONE + 1; i < WAIT_WHY_COUNT; i++)
		if (t->off_cycles[i])
			printf(" %s %s", names[i],
			       stats_fmt_seconds(sec, sizeof(sec), t->off_cycles[i], hz));
	printf("\n");
}

/* The threads, by id: every one (all) or task id's. */
static int show_threads(uint64_t hz, bool all, uint64_t id)
{
	sysinfo_thread_t *t;
	sysinfo_task_t *tasks;
	size_t n, ntasks;
	errno_t rc = stats_threads(&t, &n);

	if (rc != EOK)
		return tasks_error("the threads", rc);
	if (tasks_sorted(&tasks, &ntasks) != EOK) {
		free(t);
		return 1;
	}
	qsort(t, n, sizeof(*t), thread_cmp);
	printf("%6s %6s %-8s %4s %3s %9s %9s %-20s %s\n", "ID", "TASK", "STATE",
	       "PRIO", "CPU", "USER", "SYS", "WAIT", "NAME");
	for (size_t i = 0; i < n; i++)
		if (all || t[i].task == id)
			thread_line(&t[i], hz, tasks, ntasks);
	if (!all) {
		printf("off-CPU seconds by reason (since each thread began):\n");
		for (size_t i = 0; i < n; i++)
			if (t[i].task == id)
				thread_off_line(&t[i], hz);
	}
	free(tasks);
	free(t);
	return 0;
}

/* The threads of task id, which must exist. */
static int show_task_threads(uint64_t hz, uint64_t id)
{
	sysinfo_task_t task;
	errno_t rc = stats_task(id, &task);

	if (rc == ENOENT) {
		fprintf(stderr, "tasks: %" PRIu64 ": no such task\n", id);
		return 1;
	}
	if (rc != EOK)
		return tasks_error("the task", rc);
	return show_threads(hz, false, id);
}

/* The load averages. */
static int show_load(void)
{
	char l[3][STATS_LOAD_BUF];
	sysinfo_load_t load;
	errno_t rc = stats_load(&load);

	if (rc != EOK)
		return tasks_error("the load", rc);
	for (int i = 0; i < 3; i++)
		stats_fmt_load(l[i], sizeof(l[i]), load.avg[i]);
	printf("load average: %s %s %s\n", l[0], l[1], l[2]);
	return 0;
}

static void cpu_line(const sysinfo_cpu_t *c)
{
	char busy[STATS_PERMILLE_BUF], idle[STATS_PERMILLE_BUF];
	char irq[STATS_PERMILLE_BUF];
	stats_cpu_pct_t p;

	stats_cpu_percent(NULL, c, &p);
	printf("%4" PRIu32 " %-6s %6" PRIu64 " %5s%% %5s%% %5s%%\n", c->id,
	       c->active ? "yes" : "no", c->mhz,
	       stats_fmt_permille(busy, sizeof(busy), p.busy),
	       stats_fmt_permille(idle, sizeof(idle), p.idle),
	       stats_fmt_permille(irq, sizeof(irq), p.irq));
}

/* Every CPU: its shares of busy, idle and interrupt time since boot. */
static int show_cpus(void)
{
	sysinfo_cpu_t *c;
	size_t n;
	errno_t rc = stats_cpus(&c, &n);

	if (rc != EOK)
		return tasks_error("the CPUs", rc);
	printf("%4s %-6s %6s %6s %6s %6s\n", "CPU", "ONLINE", "MHZ", "BUSY",
	       "IDLE", "IRQ");
	for (size_t i = 0; i < n; i++)
		cpu_line(&c[i]);
	free(c);
	return 0;
}

/* Every task's imposed and served cycles (and seconds), by id. */
static int show_origins(uint64_t hz)
{
	char imp[STATS_SECONDS_BUF], srv[STATS_SECONDS_BUF];
	sysinfo_task_t *t;
	size_t n;
	if (tasks_sorted(&t, &n) != EOK)
		return 1;
	printf("%6s %14s %14s %9s %9s %s\n", "ID", "IMPOSED", "SERVED", "IMP", "SRV",
	       "NAME");
	for (size_t i = 0; i < n; i++)
		printf("%6" PRIu64 " %14" PRIu64 " %14" PRIu64 " %9s %9s %.*s\n", t[i].id,
		       t[i].imposed_cycles, t[i].served_cycles,
		       stats_fmt_seconds(imp, sizeof(imp), t[i].imposed_cycles, hz),
		       stats_fmt_seconds(srv, sizeof(srv), t[i].served_cycles, hz),
		       SYSINFO_NAME_MAX, t[i].name);
	free(t);
	return 0;
}

/* The (origin, server) pairs of system.ipc.pairs, most cycles first. */
static int show_pairs(uint64_t hz)
{
	char sec[STATS_SECONDS_BUF];
	void *buf;
	size_t len;
	errno_t rc = stats_read("system.ipc.pairs", &buf, &len);

	if (rc != EOK)
		return tasks_error("system.ipc.pairs", rc);
	const sysinfo_ipc_pair_t *p = buf;
	printf("%6s %-16s %6s %-16s %10s %14s %9s\n", "ORIGIN", "NAME", "SERVER", "NAME",
	       "CALLS", "CYCLES", "SECONDS");
	for (size_t i = 0; i < len / sizeof(*p); i++)
		printf("%6" PRIu64 " %-16.*s %6" PRIu64 " %-16.*s %10" PRIu64 " %14" PRIu64
		       " %9s\n", p[i].origin, SYSINFO_NAME_MAX, p[i].origin_name,
		       p[i].server, SYSINFO_NAME_MAX, p[i].server_name, p[i].calls,
		       p[i].cycles, stats_fmt_seconds(sec, sizeof(sec), p[i].cycles, hz));
	free(buf);
	return 0;
}

/* -i: the tasks' imposed and served cycles, then the pairs. */
static int show_ipc(uint64_t hz)
{
	int status = show_origins(hz);

	return status | show_pairs(hz);
}

/* The views o asks for, in order; the exit status. */
static int tasks_show(const tasks_opts_t *o, uint64_t hz)
{
	int status = 0;

	if (!o->task && !o->all && !o->load && !o->cpus && !o->ipc)
		status |= show_tasks(hz);
	if (o->task)
		status |= show_task_threads(hz, o->id);
	if (o->all)
		status |= show_threads(hz, true, 0);
	if (o->load)
		status |= show_load();
	if (o->cpus)
		status |= show_cpus();
	if (o->ipc)
		status |= show_ipc(hz);
	return status;
}

int main(int argc, char **argv)
{
	tasks_opts_t o = { 0 };
	uint64_t hz;
	int status = parse_args(argc, argv, &o);

	if (status >= 0)
		return status;
	errno_t rc = stats_tsc_hz(&hz);
	if (rc != EOK)
		return tasks_error("system.tsc_hz", rc);
	return tasks_show(&o, hz);
}
