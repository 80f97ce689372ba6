/*
 * The monitoring library (see <stats.h>): sysinfo snapshots in malloc'ed
 * buffers, and the integer arithmetic and formatting of the tools.
 */
#include <inttypes.h>
#include <limits.h>
#include <stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

/* First guess at a snapshot's size, and reads tried before giving up. */
#define STATS_FIRST_SIZE 512
#define STATS_TRIES 8

typedef errno_t (*stats_call_t)(const char *path, void *buf, size_t size,
				size_t *got);

/*
 * Room for a snapshot the kernel says needs `needed` bytes, with slack for
 * it to grow (tasks and threads come and go between two calls).
 */
static size_t stats_room(size_t needed)
{
	return needed + needed / 4 + 64;
}

/* Read path with call into a new buffer, retrying on ENOMEM. */
static errno_t stats_fetch(stats_call_t call, const char *path, void **buf,
			   size_t *len)
{
	size_t size = STATS_FIRST_SIZE;

	for (int i = 0; i < STATS_TRIES; i++) {
		void *p = malloc(size);
		size_t got = 0;
		if (!p)
			return ENOMEM;
		errno_t rc = call(path, p, size, &got);
		if (rc == EOK && got <= size) {
			*buf = p;
			*len = got;
			return EOK;
		}
		free(p);
		if (rc != ENOMEM)
			return rc == EOK ? EIO : rc;
		size = stats_room(got > size ? got : size);
	}
	return ENOMEM;
}

/* Read data node path into a new buffer (see <stats.h>). */
errno_t stats_read(const char *path, void **buf, size_t *len)
{
	return stats_fetch(sys_sysinfo_data, path, buf, len);
}

/* The child names of path into a new buffer (see <stats.h>). */
errno_t stats_keys(const char *path, char **names, size_t *len)
{
	void *p;
	errno_t rc = stats_fetch(sys_sysinfo_keys, path, &p, len);

	if (rc == EOK)
		*names = p;
	return rc;
}

/* The name after cur in names (NULL: the first); NULL after the last. */
const char *stats_key_next(const char *names, size_t len, const char *cur)
{
	const char *end = names + len;
	const char *p = names;

	if (cur) {
		p = memchr(cur, '\0', (size_t)(end - cur));
		if (!p)
			return NULL;
		p++;
	}
	if (p >= end || !memchr(p, '\0', (size_t)(end - p)))
		return NULL;
	return p;
}

/* An array of records of rec bytes at path: the array and its length. */
static errno_t stats_array(const char *path, size_t rec, void **out,
			   size_t *n)
{
	void *buf;
	size_t len;
	errno_t rc = stats_read(path, &buf, &len);

	if (rc != EOK)
		return rc;
	if (len % rec != 0) {
		free(buf);
		return EIO;
	}
	*out = buf;
	*n = len / rec;
	return EOK;
}

/* Every CPU's record (see <stats.h>). */
errno_t stats_cpus(sysinfo_cpu_t **out, size_t *n)
{
	void *p;
	errno_t rc = stats_array("system.cpus", sizeof(**out), &p, n);

	if (rc == EOK)
		*out = p;
	return rc;
}

/* Every live task's record. */
errno_t stats_tasks(sysinfo_task_t **out, size_t *n)
{
	void *p;
	errno_t rc = stats_array("system.tasks", sizeof(**out), &p, n);

	if (rc == EOK)
		*out = p;
	return rc;
}

/* Every thread's record. */
errno_t stats_threads(sysinfo_thread_t **out, size_t *n)
{
	void *p;
	errno_t rc = stats_array("system.threads", sizeof(**out), &p, n);

	if (rc == EOK)
		*out = p;
	return rc;
}

/* Every named or counted interrupt vector's record. */
errno_t stats_vectors(sysinfo_vector_t **out, size_t *n)
{
	void *p;
	errno_t rc = stats_array("system.exceptions", sizeof(**out), &p, n);

	if (rc == EOK)
		*out = p;
	return rc;
}

/* Every system call number's record. */
errno_t stats_syscalls(sysinfo_syscall_t **out, size_t *n)
{
	void *p;
	errno_t rc = stats_array("system.syscalls", sizeof(**out), &p, n);

	if (rc == EOK)
		*out = p;
	return rc;
}

/* Exactly one record of size bytes at path into out. */
static errno_t stats_record(const char *path, void *out, size_t size)
{
	size_t got = 0;
	errno_t rc = sys_sysinfo_data(path, out, size, &got);

	if (rc == ENOMEM || (rc == EOK && got != size))
		return EIO;
	return rc;
}

/* The record at prefix.<id>. */
static errno_t stats_record_id(const char *prefix, uint64_t id, void *out,
			       size_t size)
{
	char path[SYSINFO_PATH_MAX];

	snprintf(path, sizeof(path), "%s.%" PRIu64, prefix, id);
	return stats_record(path, out, size);
}

/* Task id's record (ENOENT: no such task). */
errno_t stats_task(uint64_t id, sysinfo_task_t *out)
{
	return stats_record_id("system.tasks", id, out, sizeof(*out));
}

/* Thread id's record (ENOENT: no such thread). */
errno_t stats_thread(uint64_t id, sysinfo_thread_t *out)
{
	return stats_record_id("system.threads", id, out, sizeof(*out));
}

/* The load averages. */
errno_t stats_load(sysinfo_load_t *out)
{
	return stats_record("system.load", out, sizeof(*out));
}

/* Physical memory. */
errno_t stats_physmem(sysinfo_physmem_t *out)
{
	return stats_record("system.physmem", out, sizeof(*out));
}

/* Nanoseconds since boot. */
errno_t stats_uptime_ns(uint64_t *ns)
{
	return sys_sysinfo_int("system.uptime", ns);
}

/* TSC cycles a second. */
errno_t stats_tsc_hz(uint64_t *hz)
{
	return sys_sysinfo_int("system.tsc_hz", hz);
}

/* cycles in 1/unit seconds at hz, rounded down (0 if hz is 0). */
uint64_t stats_cycles_scale(uint64_t cycles, uint64_t hz, uint64_t unit)
{
	if (hz == 0)
		return 0;
	return cycles / hz * unit + cycles % hz * unit / hz;
}

/* cycles in milliseconds at hz. */
uint64_t stats_cycles_ms(uint64_t cycles, uint64_t hz)
{
	return stats_cycles_scale(cycles, hz, 1000);
}

/* part / total in tenths of a percent, rounded (0 if total is 0). */
unsigned stats_permille(uint64_t part, uint64_t total)
{
	if (total == 0)
		return 0;
	while (part > UINT64_MAX / 2000) {
		part >>= 1;
		total >>= 1;
	}
	if (total == 0)
		return UINT_MAX;
	uint64_t r = (part * 2000 / total + 1) / 2;
	return r > UINT_MAX ? UINT_MAX : (unsigned)r;
}

/* A counter's growth from prev to cur (0 if it went back). */
static uint64_t stats_delta(uint64_t prev, uint64_t cur)
{
	return cur > prev ? cur - prev : 0;
}

/* cur's busy/idle/irq shares since prev (NULL: since boot). */
void stats_cpu_percent(const sysinfo_cpu_t *prev, const sysinfo_cpu_t *cur,
		       stats_cpu_pct_t *pct)
{
	sysinfo_cpu_t zero = { 0 };

	if (!prev)
		prev = &zero;
	uint64_t busy = stats_delta(prev->busy_cycles, cur->busy_cycles);
	uint64_t idle = stats_delta(prev->idle_cycles, cur->idle_cycles);
	uint64_t irq = stats_delta(prev->irq_cycles, cur->irq_cycles);
	uint64_t total = busy + idle + irq;

	pct->busy = stats_permille(busy, total);
	pct->idle = stats_permille(idle, total);
	pct->irq = stats_permille(irq, total);
}

/* A fixed-point load as "I.FF", rounded to the hundredth. */
char *stats_fmt_load(char *buf, size_t size, uint64_t load)
{
	uint64_t whole = load >> SYSINFO_LOAD_SHIFT;
	uint64_t frac = load & (SYSINFO_LOAD_ONE - 1);
	uint64_t hundredths = (frac * 100 + SYSINFO_LOAD_ONE / 2) >>
		SYSINFO_LOAD_SHIFT;

	if (hundredths == 100) {
		whole++;
		hundredths = 0;
	}
	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, whole, hundredths);
	return buf;
}

/* bytes with a binary unit and one decimal ("512B", "1.5K"). */
char *stats_fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char units[] = "KMGT";
	uint64_t unit = 1024;
	int u = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 "B", bytes);
		return buf;
	}
	for (;;) {
		uint64_t tenths = bytes / unit * 10 +
			(bytes % unit * 10 + unit / 2) / unit;
		if (tenths < 10240 || units[u + 1] == '\0') {
			snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c",
				 tenths / 10, tenths % 10, units[u]);
			return buf;
		}
		unit *= 1024;
		u++;
	}
}

/* seconds as "D day(s), HH:MM:SS". */
char *stats_fmt_uptime(char *buf, size_t size, uint64_t seconds)
{
	uint64_t days = seconds / 86400;
	unsigned rest = (unsigned)(seconds % 86400);

	snprintf(buf, size, "%" PRIu64 " day%s, %02u:%02u:%02u", days,
		 days == 1 ? "" : "s", rest / 3600, rest / 60 % 60, rest % 60);
	return buf;
}

/* cycles at hz as seconds with two decimals ("12.34"). */
char *stats_fmt_seconds(char *buf, size_t size, uint64_t cycles, uint64_t hz)
{
	uint64_t cs = stats_cycles_scale(cycles, hz, 100);

	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, cs / 100, cs % 100);
	return buf;
}

/* Tenths of a percent as "12.3". */
char *stats_fmt_permille(char *buf, size_t size, unsigned permille)
{
	snprintf(buf, size, "%u.%u", permille / 10, permille % 10);
	return buf;
}

/* The name of thread state (a SYSINFO_THREAD_*). */
const char *stats_thread_state(uint32_t state)
{
	static const char *const names[] = {
		[SYSINFO_THREAD_READY] = "ready",
		[SYSINFO_THREAD_RUNNING] = "running",
		[SYSINFO_THREAD_SLEEPING] = "sleeping",
		[SYSINFO_THREAD_ZOMBIE] = "zombie",
	};

	if (state >= sizeof(names) / sizeof(names[0]) || !names[state])
		return "?";
	return names[state];
}
