/*
 * A byte FIFO of whole profiler stream records (abi/profile.h: each starts
 * with a prof_rec_t whose size covers it); records may wrap around the end
 * of the buffer but a read never splits one. head and tail only grow. No
 * locking of its own: one user at a time (the profiler holds prof_lock).
 * Pure code over a caller's buffer, so the host unit tests run it.
 */
#ifndef KERNEL_PROF_FIFO_H
#define KERNEL_PROF_FIFO_H

#include <abi/profile.h>
#include <lib/string.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct prof_fifo {
	uint8_t *buf;
	size_t size;
	uint64_t head, tail;
} prof_fifo_t;

/* Attach buf (size bytes, any size) and empty the FIFO. */
void prof_fifo_init(prof_fifo_t *q, void *buf, size_t size);
/* Bytes in use. */
size_t prof_fifo_used(const prof_fifo_t *q);
/* Append a record of size bytes; false (nothing written) if it does not fit.
 * Inline: the profiler's drain thread appends every sample. */
static inline bool prof_fifo_put(prof_fifo_t *q, const void *rec, size_t size)
{
	size_t off = q->head % q->size, room = q->size - off;

	if (size > q->size - (q->head - q->tail))
		return false;
	memcpy(q->buf + off, rec, size < room ? size : room);
	if (size > room)
		memcpy(q->buf, (const uint8_t *)rec + room, size - room);
	q->head += size;
	return true;
}
/* Copy whole records from the oldest into dst (cap bytes) without consuming; bytes copied. */
size_t prof_fifo_peek(const prof_fifo_t *q, void *dst, size_t cap);

/* Where the FIFO's oldest bytes are, without copying: one or two pieces. */
typedef struct prof_fifo_span {
	const uint8_t *p[2];
	size_t n[2];
} prof_fifo_span_t;

/*
 * The whole records from the oldest, at most cap bytes, in place: their
 * pieces in *sp (the second is empty unless they wrap); returns their
 * bytes. Nothing is consumed: the pieces stay valid until that many bytes
 * are (prof_fifo_put writes only past head, never over them), so the one
 * consumer may copy them without the lock the FIFO's users hold.
 */
size_t prof_fifo_front(const prof_fifo_t *q, size_t cap, prof_fifo_span_t *sp);
/* Consume n bytes (a sum of whole records returned by prof_fifo_peek). */
void prof_fifo_consume(prof_fifo_t *q, size_t n);

#endif
