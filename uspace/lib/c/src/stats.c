/*
 * The monitoring library (see <stats.h>): sysinfo snapshots in malloc'ed
 * buffers (the arithmetic and formatting are in stats_calc.c).
 */
#include <inttypes.h>
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
