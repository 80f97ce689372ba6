/*
 * The byte FIFO holding a profiling session's stream until the profiler
 * reads it (see kernel/prof_fifo.h). Records keep their order and are never split
 * by a read.
 */
#include <kernel/prof_fifo.h>
#include <kernel/types.h>
#include <lib/string.h>

void prof_fifo_init(prof_fifo_t *q, void *buf, size_t size)
{
	q->buf = buf;
	q->size = size;
	q->head = q->tail = 0;
}

size_t prof_fifo_used(const prof_fifo_t *q)
{
	return q->head - q->tail;
}

/* Copy len bytes at ring position pos into dst, across the wrap. */
static void fifo_read(const prof_fifo_t *q, uint64_t pos, void *dst, size_t len)
{
	size_t off = pos % q->size, first = MIN(len, q->size - off);

	memcpy(dst, q->buf + off, first);
	memcpy((uint8_t *)dst + first, q->buf, len - first);
}

bool prof_fifo_put(prof_fifo_t *q, const void *rec, size_t size)
{
	size_t off = q->head % q->size, first = MIN(size, q->size - off);

	if (size > q->size - prof_fifo_used(q))
		return false;
	memcpy(q->buf + off, rec, first);
	memcpy(q->buf, (const uint8_t *)rec + first, size - first);
	q->head += size;
	return true;
}

size_t prof_fifo_peek(const prof_fifo_t *q, void *dst, size_t cap)
{
	uint64_t pos = q->tail;
	size_t n = 0;

	while (pos < q->head) {
		prof_rec_t h;
		fifo_read(q, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || n + h.size > cap)
			break;
		fifo_read(q, pos, (uint8_t *)dst + n, h.size);
		n += h.size;
		pos += h.size;
	}
	return n;
}

void prof_fifo_consume(prof_fifo_t *q, size_t n)
{
	q->tail += MIN(n, prof_fifo_used(q));
}
