/*
 * utest sysinfo: the kernel's system information tree and the cycle
 * accounting behind it, checked against ground truth: the tree's shape
 * and errors, snapshot reads that never return part of a value, a task
 * leaving system.tasks when it dies, a spinning thread's user cycles
 * against the TSC, per-CPU busy + idle + irq cycles against the time
 * elapsed, and the load average climbing towards 3 with three spinners.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <tsc.h>

#include "utest.h"

#define SPIN_NS (2 * NS_PER_SEC)
#define LOAD_SPINNERS 3
#define LOAD_PERIODS_MAX 40

/* Read data node path into a new buffer; its size to *len (NULL: error). */
static void *si_read(const char *path, size_t *len)
{
	size_t need = 0;
	void *buf = NULL;

	for (int tries = 0; tries < 4; tries++) {
		errno_t rc = sys_sysinfo_data(path, buf, need, len);
		if (rc == EOK)
			return buf ? buf : malloc(1);
		free(buf);
		if (rc != ENOMEM || !(buf = malloc(*len + 64)))
			return NULL;
		need = *len + 64;
	}
	free(buf);
	return NULL;
}

/* Whether the '\0'-separated keys of path contain name. */
static bool has_key(const char *path, const char *name)
{
	char buf[512];
	size_t got;

	if (sys_sysinfo_keys(path, buf, sizeof(buf), &got) != EOK)
		return false;
	for (size_t at = 0; at < got; at += strlen(buf + at) + 1)
		if (!strcmp(buf + at, name))
			return true;
	return false;
}

static void test_shape(void)
{
	unsigned t1 = 9, t2 = 9, t3 = 9;
	uint64_t hz = 0;
	system_stats_t st;

	tap_ok(has_key("", "kernel") && has_key("", "system") && has_key("", "boot") &&
	       has_key("system", "cpus") && has_key("system", "tasks") &&
	       has_key("kernel", "version"), "sysinfo: the root and system keys");
	tap_ok(sys_sysinfo_type("system.tsc_hz", &t1) == EOK && t1 == SYSINFO_INT &&
	       sys_sysinfo_type("system.cpus", &t2) == EOK && t2 == SYSINFO_DATA &&
	       sys_sysinfo_type("system", &t3) == EOK && t3 == SYSINFO_NONE,
	       "sysinfo: node types (int, data, inner)");
	bool ok = sys_sysinfo_int("system.tsc_hz", &hz) == EOK &&
		  get_system_stats(&st) == 0 && hz == st.tsc_hz;
	tap_ok(ok, "sysinfo: system.tsc_hz is the TSC frequency (%lu)", (unsigned long)hz);
	tap_ok(sys_sysinfo_type("system.nope", &t1) == ENOENT &&
	       sys_sysinfo_type("nope", &t1) == ENOENT &&
	       sys_sysinfo_type("system.tasks.x", &t1) == ENOENT &&
	       sys_sysinfo_int("system.cpus", &hz) == EINVAL &&
	       sys_sysinfo_data("system.tsc_hz", NULL, 0, NULL) != EOK,
	       "sysinfo: bad paths are ENOENT, the wrong kind of read EINVAL");
	char lng[200];
	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	tap_ok(sys_sysinfo_type(lng, &t1) == ENOENT &&
	       raw3(SYS_SYSINFO_TYPE, (long)KERNEL_ADDR, 0, 0) == -EFAULT &&
	       raw3(SYS_SYSINFO_INT, (long)"system.tsc_hz", (long)KERNEL_ADDR, 0) == -EFAULT,
	       "sysinfo: a too long path is ENOENT, bad pointers EFAULT");
}

static void test_snapshot(void)
{
	unsigned cpus = cpus_online();
	sysinfo_cpu_t small[1];
	size_t got = 0;

	memset(small, 0x5a, sizeof(small));
	errno_t rc = sys_sysinfo_data("system.cpus", small, sizeof(small) - 1, &got);
	const unsigned char *p = (const unsigned char *)small;
	bool untouched = true;
	for (size_t i = 0; i < sizeof(small); i++)
		untouched &= p[i] == 0x5a;
	tap_ok(rc == ENOMEM && got >= cpus * sizeof(sysinfo_cpu_t) && untouched,
	       "sysinfo: a short buffer gets ENOMEM, the size (%zu) and nothing else", got);
	size_t len;
	sysinfo_cpu_t *c = si_read("system.cpus", &len);
	tap_ok(c && len == got && c[0].active && c[0].mhz > 0,
	       "sysinfo: system.cpus in one read of the reported size");
	free(c);
	tap_ok(sys_sysinfo_data("system.cpus", (void *)KERNEL_ADDR, 4096, &got) == EFAULT &&
	       raw3(SYS_SYSINFO_DATA, (long)"system.cpus", 0, 0) == -EFAULT,
	       "sysinfo: bad buffers are EFAULT");
}

/* Whether system.tasks lists id (and if so its name into name). */
static bool tasks_have(uint64_t id, char *name)
{
	size_t len;
	sysinfo_task_t *t = si_read("system.tasks", &len);
	bool found = false;

	for (size_t i = 0; t && i < len / sizeof(*t); i++)
		if (t[i].id == id) {
			found = true;
			strcpy(name, t[i].name);
		}
	free(t);
	return found;
}

static void test_tasks(void)
{
	char name[SYSINFO_NAME_MAX] = "", path[SYSINFO_PATH_MAX];
	task_id_t me = sys_task_id(), child;
	sysinfo_task_t one;
	size_t got;

	snprintf(path, sizeof(path), "system.tasks.%lu", (unsigned long)me);
	tap_ok(tasks_have(me, name) && !strcmp(name, "utest") &&
	       sys_sysinfo_data(path, &one, sizeof(one), &got) == EOK &&
	       got == sizeof(one) && one.id == me && one.threads >= 1 &&
	       one.resident_bytes > 0 && one.virt_bytes >= one.resident_bytes,
	       "sysinfo: system.tasks and system.tasks.<id> describe utest");
	const char *const argv[] = { "tester", "spin", "100", NULL };
	if (sys_spawn("/bin/tester", argv, 0, &child) != EOK)
		return (void)tap_ok(0, "sysinfo: a killed task leaves system.tasks");
	bool there = tasks_have(child, name);
	sys_kill(child);
	sys_wait(child, NULL, 0, NULL);
	snprintf(path, sizeof(path), "system.tasks.%lu", (unsigned long)child);
	tap_ok(there && !tasks_have(child, name) &&
	       sys_sysinfo_data(path, &one, sizeof(one), &got) == ENOENT,
	       "sysinfo: a killed task leaves system.tasks");
}

/* This thread's record. */
static bool my_thread(sysinfo_thread_t *r)
{
	char path[SYSINFO_PATH_MAX];
	size_t got;

	snprintf(path, sizeof(path), "system.threads.%lu", (unsigned long)sys_thread_id());
	return sys_sysinfo_data(path, r, sizeof(*r), &got) == EOK;
}

/* Interrupt cycles of CPU cpu so far (0 if unreadable). */
static uint64_t cpu_irq_cycles(uint32_t cpu)
{
	size_t len;
	sysinfo_cpu_t *c = si_read("system.cpus", &len);
	uint64_t irq = c && (cpu + 1) * sizeof(*c) <= len ? c[cpu].irq_cycles : 0;

	free(c);
	return irq;
}

/*
 * Pinned to its CPU, a thread spinning 2 s gets those 2 s as user cycles
 * but for what that CPU spent in interrupt handlers (not the thread's
 * time; on a loaded host TCG makes them slow).
 */
static void test_spin_cycles(void)
{
	sysinfo_thread_t a, b;
	uint64_t hz = 0;

	sys_sysinfo_int("system.tsc_hz", &hz);
	bool ok = my_thread(&a) && sys_set_affinity(0, 1ull << a.cpu) == EOK;
	uint64_t irq0 = cpu_irq_cycles(a.cpu), t0 = tsc_read_fast();
	while (tsc_read_fast() - t0 < hz * (SPIN_NS / NS_PER_SEC))
		;
	uint64_t irq = cpu_irq_cycles(a.cpu) - irq0;
	ok &= my_thread(&b);
	sys_set_affinity(0, ~0ull);
	uint64_t user = b.user_cycles - a.user_cycles, want = tsc_read_fast() - t0 - irq;
	uint64_t diff = user > want ? user - want : want - user;
	tap_ok(ok && b.cpu == a.cpu && diff * 100 <= want * 3,
	       "sysinfo: 2 s of spinning is 2 s of user cycles, less interrupts, within 3%% "
	       "(%lu of %lu; %lu in interrupts)", (unsigned long)user, (unsigned long)want,
	       (unsigned long)irq);
}

/* Per CPU: busy + idle + irq deltas against the cycles elapsed. */
static void test_cpu_sums(void)
{
	size_t len;
	uint64_t c0 = 0, c1 = 0;
	sys_sysinfo_int("system.cycles", &c0);
	sysinfo_cpu_t *a = si_read("system.cpus", &len);
	sys_sleep_ns(SPIN_NS);
	sysinfo_cpu_t *b = si_read("system.cpus", &len);
	sys_sysinfo_int("system.cycles", &c1);
	int bad = 0;
	for (size_t i = 0; a && b && i < len / sizeof(*a); i++) {
		if (!b[i].active)
			continue;
		uint64_t sum = (b[i].busy_cycles - a[i].busy_cycles) +
			       (b[i].idle_cycles - a[i].idle_cycles) +
			       (b[i].irq_cycles - a[i].irq_cycles);
		uint64_t el = c1 - c0, diff = sum > el ? sum - el : el - sum;
		if (diff * 100 > el) {
			tap_diag("cpu %u: busy+idle+irq %lu, elapsed %lu", b[i].id,
				 (unsigned long)sum, (unsigned long)el);
			bad++;
		}
	}
	tap_ok(a && b && bad == 0, "sysinfo: per CPU busy + idle + irq cycles are "
	       "the time elapsed within 1%%");
	free(a);
	free(b);
}

static volatile bool load_stop;

static long load_spin(void *arg)
{
	while (!load_stop)
		;
	return 0;
}

static void test_load(void)
{
	thread_id_t th[LOAD_SPINNERS];
	sysinfo_load_t l = { { 0 }, 0, 0 };
	size_t got;
	int n = 0;

	load_stop = false;
	for (int i = 0; i < LOAD_SPINNERS; i++)
		n += thread_start(load_spin, NULL, &th[i]) == EOK;
	sys_sysinfo_data("system.load", &l, sizeof(l), &got);
	uint64_t period = l.period_ms ? l.period_ms : 5000;
	for (int i = 0; i < LOAD_PERIODS_MAX; i++) {
		sys_sleep_ns(period * NS_PER_MS);
		if (sys_sysinfo_data("system.load", &l, sizeof(l), &got) != EOK ||
		    l.avg[0] * 10 >= 25 * SYSINFO_LOAD_ONE)
			break;
	}
	load_stop = true;
	for (int i = 0; i < n; i++)
		thread_join(th[i], NULL);
	tap_ok(n == LOAD_SPINNERS && l.avg[0] * 10 >= 25 * SYSINFO_LOAD_ONE &&
	       l.avg[0] * 10 <= 35 * SYSINFO_LOAD_ONE,
	       "sysinfo: with 3 spinners the 1-minute load nears 3 (%lu/%u, "
	       "sampled every %u ms)", (unsigned long)l.avg[0], SYSINFO_LOAD_ONE,
	       l.period_ms);
}

/* system.syscalls' count of nr and system.exceptions' count of vector v. */
static void counts(uint32_t nr, uint32_t v, uint64_t *calls, uint64_t *excs)
{
	size_t len;
	sysinfo_syscall_t *s = si_read("system.syscalls", &len);
	sysinfo_vector_t *e;

	*calls = s && nr < len / sizeof(*s) && s[nr].nr == nr ? s[nr].count : 0;
	free(s);
	e = si_read("system.exceptions", &len);
	*excs = 0;
	for (size_t i = 0; e && i < len / sizeof(*e); i++)
		if (e[i].vector == v)
			*excs = e[i].count;
	free(e);
}

#define PF_VECTOR 14
#define TOUCH_PAGES 8

static void test_counts(void)
{
	uint64_t c0, c1, p0, p1;
	unsigned type;
	void *mem = NULL;

	counts(SYS_SYSINFO_TYPE, PF_VECTOR, &c0, &p0);
	for (int i = 0; i < 10; i++)
		sys_sysinfo_type("system", &type);
	bool mapped = sys_map(NULL, TOUCH_PAGES * 4096, PROT_READ | PROT_WRITE, &mem) == EOK;
	for (int i = 0; mapped && i < TOUCH_PAGES; i++)
		((volatile char *)mem)[i * 4096] = 1;    /* demand-zero faults */
	counts(SYS_SYSINFO_TYPE, PF_VECTOR, &c1, &p1);
	if (mapped)
		sys_unmap(mem, TOUCH_PAGES * 4096);
	tap_ok(c1 - c0 == 10, "sysinfo: 10 calls count 10 in system.syscalls "
	       "(%lu)", (unsigned long)(c1 - c0));
	tap_ok(mapped && p1 - p0 >= TOUCH_PAGES, "sysinfo: touching %d new pages "
	       "counts as many page faults (%lu)", TOUCH_PAGES, (unsigned long)(p1 - p0));
}

void test_sysinfo(void)
{
	test_counts();
	test_shape();
	test_snapshot();
	test_tasks();
	test_spin_cycles();
	test_cpu_sums();
}

void test_loadavg(void)
{
	test_load();
}
