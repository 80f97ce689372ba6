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

/* The size field of the record header at ring position pos (read in place
 * unless the header crosses the wrap). */
static size_t fifo_rec_size(const prof_fifo_t *q, uint64_t pos)
{
	size_t off = pos % q->size;
	prof_rec_t h;

	if (q->size - off >= sizeof(h))
		return ((const prof_rec_t *)(const void *)(q->buf + off))->size;
	fifo_read(q, pos, &h, sizeof(h));
	return h.size;
}

/* The bytes of whole records from the oldest, at most cap (sizes walked in place). */
static size_t fifo_whole(const prof_fifo_t *q, size_t cap)
{
	uint64_t pos = q->tail;
	size_t n = 0;

	while (pos < q->head) {
		size_t size = fifo_rec_size(q, pos);
		if (size < sizeof(prof_rec_t) || n + size > cap)
			break;
		n += size;
		pos += size;
	}
	return n;
}

size_t prof_fifo_front(const prof_fifo_t *q, size_t cap, prof_fifo_span_t *sp)
{
	size_t n = fifo_whole(q, cap), off = q->tail % q->size, first = MIN(n, q->size - off);

	sp->p[0] = q->buf + off;
	sp->n[0] = first;
	sp->p[1] = q->buf;
	sp->n[1] = n - first;
	return n;
}

/* Whole records first: their sizes are walked in place, then the bytes
 * are copied once (two copies across the wrap), not record by record. */
size_t prof_fifo_peek(const prof_fifo_t *q, void *dst, size_t cap)
{
	size_t n = fifo_whole(q, cap);

	if (n)
		fifo_read(q, q->tail, dst, n);
	return n;
}

void prof_fifo_consume(prof_fifo_t *q, size_t n)
{
	q->tail += MIN(n, prof_fifo_used(q));
}
