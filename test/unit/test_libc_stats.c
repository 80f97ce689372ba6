/*
 * Unit tests for libc's monitoring library (<stats.h>): the arithmetic
 * and formatting helpers the tools share, and the sysinfo readers over a
 * fake kernel tree (buffers too small, snapshots that grow between calls,
 * records of the wrong size, errors passed through).
 */
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libc_host.h"

/* <stats.h> under the renamed symbols of the host build. */
#define stats_read vl_stats_read
#define stats_keys vl_stats_keys
#define stats_key_next vl_stats_key_next
#define stats_cpus vl_stats_cpus
#define stats_tasks vl_stats_tasks
#define stats_threads vl_stats_threads
#define stats_vectors vl_stats_vectors
#define stats_syscalls vl_stats_syscalls
#define stats_task vl_stats_task
#define stats_thread vl_stats_thread
#define stats_load vl_stats_load
#define stats_physmem vl_stats_physmem
#define stats_uptime_ns vl_stats_uptime_ns
#define stats_tsc_hz vl_stats_tsc_hz
#define stats_cycles_scale vl_stats_cycles_scale
#define stats_cycles_ms vl_stats_cycles_ms
#define stats_permille vl_stats_permille
#define stats_cpu_percent vl_stats_cpu_percent
#define stats_fmt_load vl_stats_fmt_load
#define stats_fmt_bytes vl_stats_fmt_bytes
#define stats_fmt_uptime vl_stats_fmt_uptime
#define stats_fmt_seconds vl_stats_fmt_seconds
#define stats_fmt_permille vl_stats_fmt_permille
#define stats_thread_state vl_stats_thread_state
#define stats_fmt_wait vl_stats_fmt_wait
#include "../include/stats.h"
#include <abi/ipc.h>

/* ---------------------------------------------------------------- a fake tree */

#define TREE_MAX 8192

/* What the fake sysinfo answers: one node's data (any path but ENOENT's). */
static struct {
	unsigned char data[TREE_MAX];
	size_t len;
	size_t grow;            /* bytes the data grows after each ENOMEM */
	unsigned grows_left;    /* ... this many times */
	bool always_more;       /* need a byte more than any buffer given */
	const char *path;       /* the only path that exists (NULL: any) */
	uint64_t value;         /* SYS_SYSINFO_INT's answer */
	size_t sizes[16];       /* the buffer size of each data call */
	unsigned calls;
} tree;

static void tree_set(const char *path, const void *data, size_t len)
{
	memset(&tree, 0, sizeof(tree));
	tree.path = path;
	memcpy(tree.data, data, len);
	tree.len = len;
}

static long tree_copy(void *buf, size_t size, size_t *needed)
{
	if (tree.calls < 16)
		tree.sizes[tree.calls] = size;
	tree.calls++;
	if (tree.always_more) {
		*needed = size + 1;
		return -ENOMEM;
	}
	if (size < tree.len) {
		*needed = tree.len;
		if (tree.grows_left > 0) {
			tree.grows_left--;
			tree.len += tree.grow;
		}
		return -ENOMEM;
	}
	memcpy(buf, tree.data, tree.len);
	return (long)tree.len;
}

static long tree_call(long n, const char *path, void *buf, size_t size,
		      size_t *needed)
{
	if (tree.path && strcmp(path, tree.path) != 0)
		return -ENOENT;
	switch (n) {
	case SYS_SYSINFO_INT:
		*(uint64_t *)buf = tree.value;
		return 0;
	case SYS_SYSINFO_TYPE:
		return SYSINFO_DATA;
	default:
		return tree_copy(buf, size, needed);
	}
}

/* ---------------------------------------------------------------- arithmetic */

static void test_cycles(void)
{
	is_uint(stats_cycles_ms(3000000000ull, 3000000000ull), 1000, "1 s of cycles is 1000 ms");
	is_uint(stats_cycles_ms(4499999, 3000000), 1499, "ms round down");
	is_uint(stats_cycles_ms(12345, 0), 0, "hz 0 gives 0");
	is_uint(stats_cycles_scale(7, 2, 100), 350, "scale to hundredths");
	uint64_t big = UINT64_MAX - 5, hz = 2999999999ull;
	unsigned __int128 want = (unsigned __int128)big * 1000000000u / hz;
	is_uint(stats_cycles_scale(big, hz, 1000000000u), (uint64_t)want,
		"2^64 cycles to ns without overflow");
}

static void test_permille(void)
{
	is_uint(stats_permille(0, 0), 0, "0/0 is 0");
	is_uint(stats_permille(1, 3), 333, "1/3 is 33.3%%");
	is_uint(stats_permille(2, 3), 667, "2/3 rounds to 66.7%%");
	is_uint(stats_permille(1, 2000), 1, "0.05%% rounds up to 0.1%%");
	is_uint(stats_permille(5, 5), 1000, "all is 1000");
	is_uint(stats_permille(3, 2), 1500, "more than the total");
	is_uint(stats_permille(UINT64_MAX, 1), UINT32_MAX, "a huge ratio saturates");
	int bad = 0;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 10000; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t total = (s >> (i % 60)) | 1, part = total / 1000 * (i % 1001);
		unsigned __int128 w = ((unsigned __int128)part * 2000 / total + 1) / 2;
		unsigned got = stats_permille(part, total);
		if ((got + 1 < w || got > w + 1) && bad++ < 5)
			diag("permille(%lu, %lu) = %u, want %lu", part, total, got,
			     (unsigned long)w);
	}
	is_int(bad, 0, "permille within 0.1%% of exact for 10000 large pairs");
}

static void test_cpu_percent(void)
{
	sysinfo_cpu_t a = { .busy_cycles = 100, .idle_cycles = 850, .irq_cycles = 50 };
	sysinfo_cpu_t b = a;
	stats_cpu_pct_t p;

	stats_cpu_percent(NULL, &a, &p);
	ok(p.busy == 100 && p.idle == 850 && p.irq == 50,
	   "since boot: 10.0/85.0/5.0 (got %u/%u/%u)", p.busy, p.idle, p.irq);
	b.busy_cycles += 3000;
	b.idle_cycles += 1000;
	stats_cpu_percent(&a, &b, &p);
	ok(p.busy == 750 && p.idle == 250 && p.irq == 0,
	   "between snapshots: 75.0/25.0/0.0 (got %u/%u/%u)", p.busy, p.idle, p.irq);
	stats_cpu_percent(&b, &b, &p);
	ok(p.busy == 0 && p.idle == 0 && p.irq == 0, "no time passed: all 0");
	stats_cpu_percent(&b, &a, &p);
	ok(p.busy == 0 && p.idle == 0 && p.irq == 0, "counters that went back count 0");
}

/* ---------------------------------------------------------------- formatting */

static void test_fmt_load(void)
{
	char buf[STATS_LOAD_BUF];

	is_str(stats_fmt_load(buf, sizeof(buf), 0), "0.00", "load 0");
	is_str(stats_fmt_load(buf, sizeof(buf), SYSINFO_LOAD_ONE), "1.00", "load 1");
	is_str(stats_fmt_load(buf, sizeof(buf), 860), "0.42", "load 860/2048");
	is_str(stats_fmt_load(buf, sizeof(buf), 3 * SYSINFO_LOAD_ONE / 2), "1.50", "load 1.5");
	is_str(stats_fmt_load(buf, sizeof(buf), 2 * SYSINFO_LOAD_ONE - 1), "2.00",
	       "2047/1024 rounds up into the next whole");
	is_str(stats_fmt_load(buf, sizeof(buf), UINT64_MAX), "9007199254740992.00",
	       "the largest load");
	int bad = 0;
	for (uint64_t v = 0; v < 40 * SYSINFO_LOAD_ONE; v++) {
		char want[32];
		long h = (long)((double)v * 100.0 / SYSINFO_LOAD_ONE + 0.5);
		snprintf(want, sizeof(want), "%ld.%02ld", h / 100, h % 100);
		if (strcmp(stats_fmt_load(buf, sizeof(buf), v), want) && bad++ < 5)
			diag("load %lu: %s, want %s", v, buf, want);
	}
	is_int(bad, 0, "every load up to 40 rounds half up to the hundredth");
}

static void test_fmt_wait(void)
{
	sysinfo_thread_t t = { .wait_why = WAIT_WHY_NONE };
	char buf[48];

	is_str(stats_fmt_wait(buf, sizeof(buf), &t, NULL), "-", "a thread on its CPU: -");
	t.wait_why = WAIT_WHY_SLEEP;
	is_str(stats_fmt_wait(buf, sizeof(buf), &t, "fs"), "sleep", "a sleep: its name");
	t.wait_why = WAIT_WHY_IPC;
	t.wait_method = IPC_M_DATA_READ;
	is_str(stats_fmt_wait(buf, sizeof(buf), &t, "fs"), "ipc fs.READ",
	       "an IPC wait: the callee and method");
	is_str(stats_fmt_wait(buf, sizeof(buf), &t, NULL), "ipc", "... without a callee: ipc");
	t.wait_why = WAIT_WHY_COUNT + 3;
	is_str(stats_fmt_wait(buf, sizeof(buf), &t, NULL), "?", "an unknown reason: ?");
}

static void test_fmt_bytes(void)
{
	static const struct { uint64_t v; const char *s; } cases[] = {
		{ 0, "0B" }, { 1023, "1023B" }, { 1024, "1.0K" }, { 1536, "1.5K" },
		{ 1075, "1.0K" }, { 1076, "1.1K" }, { 1048575, "1.0M" },
		{ 10 << 20, "10.0M" }, { 3489660928ull, "3.3G" },
		{ 1ull << 40, "1.0T" }, { 1ull << 50, "1024.0T" },
		{ UINT64_MAX, "16777216.0T" }, { 268435456, "256.0M" },
	};
	char buf[STATS_BYTES_BUF];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(stats_fmt_bytes(buf, sizeof(buf), cases[i].v), cases[i].s,
		       "%lu bytes", cases[i].v);
	is_str(stats_fmt_bytes(buf, 3, 1536), "1.", "truncated to the buffer");
}

static void test_fmt_time(void)
{
	char buf[STATS_UPTIME_BUF];

	is_str(stats_fmt_uptime(buf, sizeof(buf), 0), "0 days, 00:00:00", "uptime 0");
	is_str(stats_fmt_uptime(buf, sizeof(buf), 312), "0 days, 00:05:12", "uptime 5 min");
	is_str(stats_fmt_uptime(buf, sizeof(buf), 86400 + 7384), "1 day, 02:03:04",
	       "one day: singular");
	is_str(stats_fmt_uptime(buf, sizeof(buf), 2 * 86400 + 86399), "2 days, 23:59:59",
	       "two days");
	is_str(stats_fmt_seconds(buf, sizeof(buf), 12345, 1000), "12.34", "seconds");
	is_str(stats_fmt_seconds(buf, sizeof(buf), 5, 1000), "0.00", "seconds round down");
	is_str(stats_fmt_seconds(buf, sizeof(buf), 5, 0), "0.00", "hz 0");
	is_str(stats_fmt_permille(buf, sizeof(buf), 0), "0.0", "permille 0");
	is_str(stats_fmt_permille(buf, sizeof(buf), 123), "12.3", "permille 123");
	is_str(stats_fmt_permille(buf, sizeof(buf), 1000), "100.0", "permille 1000");
	is_str(stats_thread_state(SYSINFO_THREAD_RUNNING), "running", "state running");
	is_str(stats_thread_state(SYSINFO_THREAD_ZOMBIE), "zombie", "state zombie");
	is_str(stats_thread_state(99), "?", "unknown state");
}

/* ---------------------------------------------------------------- reading */

static void test_read(void)
{
	unsigned char big[3000];
	void *buf = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7);
	fake_reset();
	fake.sysinfo = tree_call;
	tree_set("x", "abc", 3);
	is_int(stats_read("x", &buf, &len), EOK, "a small node in one call");
	ok(len == 3 && !memcmp(buf, "abc", 3) && tree.calls == 1, "... its bytes");
	vl_free(buf);
	tree_set("x", big, 2000);
	is_int(stats_read("x", &buf, &len), EOK, "a node larger than the first buffer");
	ok(len == 2000 && !memcmp(buf, big, 2000), "... all its bytes");
	ok(tree.calls == 2 && tree.sizes[1] >= 2000, "... after one retry with room (%u calls)",
	   tree.calls);
	vl_free(buf);
	tree_set("x", big, 1000);
	tree.grow = 900;
	tree.grows_left = 3;
	is_int(stats_read("x", &buf, &len), EOK, "a node that grows between calls");
	ok(len == 3700 && tree.calls == 5, "... read at its final size (%zu, %u calls)",
	   len, tree.calls);
	vl_free(buf);
	tree_set("x", big, 600);
	tree.always_more = true;
	buf = (void *)1;
	is_int(stats_read("x", &buf, &len), ENOMEM, "a node that always outgrows: ENOMEM");
	ok(tree.calls == 8 && buf == (void *)1, "... after 8 tries, nothing returned");
	tree_set("x", "", 0);
	is_int(stats_read("y", &buf, &len), ENOENT, "no such node: ENOENT");
	fake.sysinfo = NULL;
	is_int(stats_read("x", &buf, &len), ENOSYS, "a kernel without sysinfo: ENOSYS");
}

static void test_keys(void)
{
	const char names[] = "kernel\0system\0boot";
	char *got;
	size_t len;

	fake_reset();
	fake.sysinfo = tree_call;
	tree_set("", names, sizeof(names));
	is_int(stats_keys("", &got, &len), EOK, "keys of the root");
	const char *k1 = stats_key_next(got, len, NULL);
	const char *k2 = stats_key_next(got, len, k1);
	const char *k3 = stats_key_next(got, len, k2);
	ok(k1 && k2 && k3 && !strcmp(k1, "kernel") && !strcmp(k2, "system") &&
	   !strcmp(k3, "boot"), "walked in order");
	ok(!stats_key_next(got, len, k3), "NULL after the last");
	ok(!stats_key_next(got, 0, NULL), "no keys: NULL at once");
	ok(!stats_key_next(got, 3, NULL), "an unterminated name is not returned");
	vl_free(got);
}

static void test_records(void)
{
	sysinfo_cpu_t cpus[3] = { { .id = 0, .mhz = 2000 }, { .id = 1 }, { .id = 2 } };
	sysinfo_task_t task = { .id = 7, .name = "sh", .threads = 1 }, t;
	sysinfo_cpu_t *c = NULL;
	size_t n = 0;

	fake_reset();
	fake.sysinfo = tree_call;
	tree_set("system.cpus", cpus, sizeof(cpus));
	is_int(stats_cpus(&c, &n), EOK, "stats_cpus");
	ok(n == 3 && c[0].mhz == 2000 && c[2].id == 2, "... three CPUs");
	vl_free(c);
	tree.len = sizeof(cpus) - 1;
	is_int(stats_cpus(&c, &n), EIO, "records of the wrong size: EIO");
	tree_set("system.tasks.7", &task, sizeof(task));
	is_int(stats_task(7, &t), EOK, "stats_task reads system.tasks.7");
	ok(t.id == 7 && !strcmp(t.name, "sh"), "... its record");
	is_int(stats_task(8, &t), ENOENT, "no task 8: ENOENT");
	tree.len = sizeof(task) + 8;
	is_int(stats_task(7, &t), EIO, "a larger record: EIO, not ENOMEM");
	tree_set("system.load", &task, 8);
	sysinfo_load_t load;
	is_int(stats_load(&load), EIO, "a short record: EIO");
	tree_set("system.tsc_hz", "", 0);
	tree.value = 2500000000ull;
	uint64_t hz = 0;
	is_int(stats_tsc_hz(&hz), EOK, "stats_tsc_hz");
	is_uint(hz, 2500000000ull, "... its value");
	uint64_t ns;
	is_int(stats_uptime_ns(&ns), ENOENT, "uptime from another path: ENOENT here");
}

int main(void)
{
	test_cycles();
	test_permille();
	test_cpu_percent();
	test_fmt_load();
	test_fmt_bytes();
	test_fmt_wait();
	test_fmt_time();
	test_read();
	test_keys();
	test_records();
	return done_testing();
}
