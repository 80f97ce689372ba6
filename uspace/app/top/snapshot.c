/*
 * top: one snapshot of the sysinfo nodes it shows. A data node is read
 * in one call; when the buffer is too small the kernel answers ENOMEM
 * with the size it needs, the buffer grows (with room for a few more
 * records, as tasks may start in between) and the read is tried again.
 */
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "top.h"

#define BUF_MIN 1024
#define READ_TRIES 8

/* Read data node path into b; its size to *len. */
static errno_t read_data(const char *path, top_buf_t *b, size_t *len)
{
	for (int i = 0; i < READ_TRIES; i++) {
		size_t got = 0;
		if (!b->data) {
			b->data = malloc(BUF_MIN);
			if (!b->data)
				return ENOMEM;
			b->cap = BUF_MIN;
		}
		errno_t rc = sys_sysinfo_data(path, b->data, b->cap, &got);
		if (rc != ENOMEM || got <= b->cap) {
			*len = got;
			return rc;
		}
		void *more = realloc(b->data, got + got / 4);
		if (!more)
			return ENOMEM;
		b->data = more;
		b->cap = got + got / 4;
	}
	return EAGAIN;
}

/* Read the array node path of size-byte records into b; count to *n. */
static errno_t read_array(const char *path, top_buf_t *b, size_t size,
			  size_t *n)
{
	size_t len = 0;
	errno_t rc = read_data(path, b, &len);

	*n = rc == EOK ? len / size : 0;
	return rc;
}

/* Read the single-record node path into rec of size bytes. */
static errno_t read_record(const char *path, void *rec, size_t size)
{
	size_t got = 0;
	errno_t rc = sys_sysinfo_data(path, rec, size, &got);

	if (rc == EOK && got < size)
		memset((char *)rec + got, 0, size - got);
	return rc;
}

/* The integer nodes and the clock. */
static errno_t read_ints(top_snap_t *s)
{
	errno_t rc = sys_sysinfo_int("system.cycles", &s->cycles);

	if (rc == EOK)
		rc = sys_sysinfo_int("system.tsc_hz", &s->tsc_hz);
	if (rc == EOK)
		rc = sys_sysinfo_int("system.uptime", &s->uptime_ns);
	s->realtime_ns = sys_clock_ns(CLOCK_REALTIME);
	return rc;
}

errno_t top_snap_read(top_snap_t *s)
{
	errno_t rc = read_ints(s);

	if (rc == EOK)
		rc = read_array("system.cpus", &s->cpus, sizeof(sysinfo_cpu_t),
				&s->ncpus);
	if (rc == EOK)
		rc = read_array("system.tasks", &s->tasks, sizeof(sysinfo_task_t),
				&s->ntasks);
	if (rc == EOK)
		rc = read_array("system.threads", &s->threads,
				sizeof(sysinfo_thread_t), &s->nthreads);
	if (rc == EOK)
		rc = read_array("system.exceptions", &s->vecs,
				sizeof(sysinfo_vector_t), &s->nvecs);
	if (rc == EOK)
		rc = read_record("system.physmem", &s->mem, sizeof(s->mem));
	if (rc == EOK)
		rc = read_record("system.load", &s->load, sizeof(s->load));
	if (rc == EOK)
		top_snap_sort(s);
	return rc;
}

void top_snap_free(top_snap_t *s)
{
	free(s->cpus.data);
	free(s->tasks.data);
	free(s->threads.data);
	free(s->vecs.data);
	memset(s, 0, sizeof(*s));
}
