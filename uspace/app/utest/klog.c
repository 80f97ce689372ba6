/*
 * utest klog: the kernel log is not everyone's. Without permissions a task
 * cannot read it (EPERM); its console text is logged on lines of its own
 * prefixed "uID| " (a forged kernel line never appears as such),
 * flooding is cut short with ELIMIT, each task on its own budget (a
 * flooding task does not silence another), and a line longer than 1024
 * bytes is refused whole (EINVAL); fault reports are rate-limited and
 * the suppressed ones counted in a "fault: N reports suppressed" line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "utest.h"

#define FORGED "task: 1 (init): #PF page fault at 0, rip 0x1 <forged+0x1>; killed"
#define STORM 30

static char klog_buf[64 * 1024];

/* The kernel log from *pos on (up to klog_buf's size), NUL-terminated. */
static size_t klog_since(uint64_t *pos)
{
	size_t n = 0;
	long r;

	while (n < sizeof(klog_buf) - 1 &&
	       (r = __vernier_syscall(SYS_KLOG_READ, (long)klog_buf + (long)n,
				      (long)(sizeof(klog_buf) - 1 - n), (long)pos, 0, 0, 0)) > 0)
		n += (size_t)r;
	klog_buf[n] = '\0';
	return n;
}

/* Does the log text hold a line that is exactly line? One ending with it? */
static void klog_find(const char *line, bool *exact, bool *suffix)
{
	size_t len = strlen(line);

	*exact = *suffix = false;
	for (char *p = klog_buf; (p = strstr(p, line)); p += len) {
		bool at_start = p == klog_buf || p[-1] == '\n';
		bool at_end = p[len] == '\n' || p[len] == '\0';
		*exact |= at_start && at_end;
		*suffix |= !at_start && at_end;
	}
}

static void test_klog_peek(void)
{
	const char *const argv[] = { "tester", "klog-peek", NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0, "klog: no permission, no kernel log read (%s)",
	       status_str(status));
}

static void test_klog_forge(void)
{
	const char *const argv[] = { "tester", "console-forge", FORGED, NULL };
	uint64_t pos = UINT64_MAX;
	int status = -1;
	bool exact, suffix;

	klog_since(&pos);                  /* pos: the end of the log */
	errno_t rc = run_wait(argv, 0, &status);
	klog_since(&pos);
	klog_find(FORGED, &exact, &suffix);
	tap_ok(rc == EOK && status == 0, "klog: an unprivileged console flood ends in ELIMIT (%s)",
	       status_str(status));
	tap_ok(!exact && suffix, "klog: a forged kernel line is logged only behind a prefix "
	       "(exact %d, prefixed %d)", exact, suffix);
}

/* While another task floods the console, a quiet task's line is logged. */
static void test_klog_budget(void)
{
	const char *const flood[] = { "tester", "console-forge", "utest: flooder", "1500", NULL };
	const char *const quiet[] = { "tester", "console-forge", "utest: a quiet task's line", NULL };
	uint64_t pos = UINT64_MAX;
	int fstatus = -1, qstatus = -1;
	task_id_t flooder;
	bool exact, suffix;

	klog_since(&pos);
	errno_t rc = sys_spawn("/bin/tester", flood, 0, &flooder);
	sys_sleep_ns(300 * NS_PER_MS);         /* it has spent its budget */
	errno_t qrc = run_wait(quiet, 0, &qstatus);
	if (rc == EOK)
		sys_wait(flooder, &fstatus, 0, NULL);
	klog_since(&pos);
	klog_find("utest: a quiet task's line", &exact, &suffix);
	tap_ok(rc == EOK && qrc == EOK && fstatus == 0 && qstatus == 0 && suffix,
	       "klog: a task flooding the console does not silence another's line "
	       "(flooder %s, quiet %s, its line logged %d)", status_str(fstatus),
	       status_str(qstatus), suffix);
}

/* A 1024-byte user line is logged whole; 1025 bytes are refused (EINVAL). */
static void test_klog_long_line(void)
{
	static char line[1025];
	const char *const argv[] = { "tester", "console-long", NULL };
	uint64_t pos = UINT64_MAX;
	int status = -1;
	bool exact, suffix;

	memset(line, 'L', 1024);
	klog_since(&pos);
	errno_t rc = run_wait(argv, 0, &status);
	klog_since(&pos);
	klog_find(line, &exact, &suffix);
	bool cut = strstr(klog_buf, "MMMM") != NULL;
	tap_ok(rc == EOK && status == 0 && suffix && !cut,
	       "klog: a 1024-byte user line is logged whole, 1025 bytes give EINVAL "
	       "and nothing of them is logged (%s, logged %d, pieces %d)",
	       status_str(status), suffix, cut);
}

/* Spawn n `tester fault null` with no permissions, then reap them. */
static void klog_faults(int n)
{
	const char *const argv[] = { "tester", "fault", "null", NULL };
	task_id_t id[STORM];
	int started = 0;

	for (int i = 0; i < n && i < STORM; i++)
		started += sys_spawn("/bin/tester", argv, 0, &id[started]) == EOK;
	for (int i = 0; i < started; i++)
		sys_wait(id[i], NULL, 0, NULL);
}

/* Count lines of the log text starting with prefix. */
static unsigned klog_count(const char *prefix)
{
	unsigned n = 0;
	size_t len = strlen(prefix);

	for (char *p = klog_buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, len);
	return n;
}

static void test_klog_fault_rate(void)
{
	uint64_t pos = UINT64_MAX;

	klog_since(&pos);
	uint64_t t0 = now_ns();
	klog_faults(STORM);
	uint64_t secs = (now_ns() - t0) / NS_PER_SEC;
	sys_sleep_ns(5100 * NS_PER_MS);       /* the kernel's 5 s window is over */
	klog_faults(1);                    /* reported, after the count */
	sys_sleep_ns(200 * NS_PER_MS);
	klog_since(&pos);
	unsigned reports = klog_count("task: ");
	unsigned summary = klog_count("fault: ");
	tap_ok(reports >= 2 && reports <= 10 * (secs / 5 + 2) + 1 && reports < STORM + 1 &&
	       summary >= 1,
	       "klog: %d faults in %llu s gave %u reports and %u suppressed-count lines",
	       STORM + 1, (unsigned long long)secs, reports, summary);
}

void test_klog(void)
{
	test_klog_peek();
	test_klog_forge();
	test_klog_budget();
	test_klog_long_line();
	test_klog_fault_rate();
}
