/*
 * Lock-free single-producer / single-consumer rings of variable-length
 * records over a caller-provided buffer (no allocation). Built for the
 * profiler: the producer may run in NMI context, so every producer call
 * takes bounded time, never waits for the consumer and calls nothing that
 * locks; a record that does not fit is dropped and counted.
 *
 * Layout: head and tail are 64-bit byte positions that only grow (they
 * never wrap in practice) and are masked into the power-of-two buffer;
 * head - tail bytes are in use. A record is an 8-byte header (payload
 * length and type) followed by the payload, padded to a multiple of 8, and
 * always lies contiguous in the buffer: when it would cross the end, the
 * producer first fills the rest of the buffer with a padding record
 * (RING_TYPE_PAD), which the consumer skips without showing it. So the
 * largest record is half the buffer, which always fits in an empty ring.
 *
 * Ordering: the producer publishes with a release store of head, the
 * consumer frees space with a release store of tail, each reads the
 * other's position with an acquire load.
 */
#ifndef LIB_RING_H
#define LIB_RING_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>

#define RING_ALIGN     8u
#define RING_MIN_SIZE  16u
#define RING_MAX_SIZE  (1ull << 32)
/* Reserved type of the padding record before a wrap; never returned. */
#define RING_TYPE_PAD  0xffffu

/* Keeps the producer's and the consumer's fields on separate cache lines. */
#define RING_CACHELINE __attribute__((aligned(64)))

typedef struct ring_hdr {
	uint32_t len;    /* payload bytes, without header or padding */
	uint16_t type;   /* caller-defined, anything but RING_TYPE_PAD */
	uint16_t flags;  /* 0; reserved */
} ring_hdr_t;

typedef struct ring {
	/* Set by ring_init, read-only afterwards. */
	uint8_t *buf;
	uint64_t size;
	/* Producer: head is published, next is private (head after reserve). */
	RING_CACHELINE uint64_t head;
	uint64_t next;
	/* Consumer. */
	RING_CACHELINE uint64_t tail;
	/* Added to by the producer, taken (exchanged) by the consumer. */
	RING_CACHELINE uint64_t dropped_records;
	uint64_t dropped_bytes;
} ring_t;

/* A record seen by the consumer: points into the ring until released. */
typedef struct ring_rec {
	uint16_t type;
	uint32_t len;
	const void *data;
} ring_rec_t;

/*
 * Attach buf (size bytes, size a power of two in [RING_MIN_SIZE,
 * RING_MAX_SIZE], buf 8-byte aligned) and empty the ring and its drop
 * counters. No producer or consumer may be running. Returns EOK or EINVAL.
 */
errno_t ring_init(ring_t *r, void *buf, size_t size);

/* Bytes a record of len payload bytes occupies: header, padded payload. */
size_t ring_record_size(size_t len);

/* Largest payload ring_reserve accepts: size / 2 minus the header. */
size_t ring_max_payload(const ring_t *r);

/*
 * Producer: reserve a record of type type with len payload bytes and set
 * *payload to its (8-byte aligned) payload, to be filled and then
 * published by ring_commit. A second reserve before commit abandons the
 * first. Bounded time, no waiting: NMI-safe. Returns EOK; ENOSPC when the
 * record does not fit now (it is counted in the drop counters); EINVAL for
 * type RING_TYPE_PAD or len > ring_max_payload (not counted).
 */
errno_t ring_reserve(ring_t *r, uint16_t type, size_t len, void **payload);

/* Producer: publish the record of the last successful ring_reserve. */
void ring_commit(ring_t *r);

/* Producer: count a record of bytes that did not fit. NMI-safe; ENOSPC. */
errno_t ring_drop(ring_t *r, size_t bytes);

/*
 * Producer, for hot paths: ring_reserve's body inline, for a type other
 * than RING_TYPE_PAD and a len within ring_max_payload (the caller's to
 * know: neither is checked). Returns the payload, or NULL when the
 * record does not fit now (counted, as ring_reserve's ENOSPC).
 */
static inline void *ring_reserve_inline(ring_t *r, uint16_t type, size_t len)
{
	uint64_t head = r->head, mask = r->size - 1;
	uint64_t free = r->size - (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	uint64_t to_end = r->size - (head & mask);
	size_t need = sizeof(ring_hdr_t) + ((len + RING_ALIGN - 1) & ~(size_t)(RING_ALIGN - 1));
	uint64_t pad = need > to_end ? to_end : 0;
	ring_hdr_t *h;

	if (pad + need > free)
		return ring_drop(r, need), (void *)0;
	if (pad != 0) {
		/* to_end >= 8: positions and sizes are multiples of 8. */
		h = (ring_hdr_t *)(r->buf + (head & mask));
		*h = (ring_hdr_t){ .len = (uint32_t)(to_end - sizeof(*h)), .type = RING_TYPE_PAD };
		head += pad;
	}
	h = (ring_hdr_t *)(r->buf + (head & mask));
	*h = (ring_hdr_t){ .len = (uint32_t)len, .type = type };
	r->next = head + need;
	return h + 1;
}

/* Producer: ring_commit inline. */
static inline void ring_commit_inline(ring_t *r)
{
	__atomic_store_n(&r->head, r->next, __ATOMIC_RELEASE);
}

/*
 * Producer: reserve, copy len bytes from data, commit. NMI-safe. Returns
 * what ring_reserve returns.
 */
errno_t ring_put(ring_t *r, uint16_t type, const void *data, size_t len);

/*
 * Consumer: describe the oldest record in *rec without consuming it
 * (padding records are consumed on the way). Returns EOK, EAGAIN when the
 * ring is empty, or EIO when a header claims more than was published
 * (the ring is corrupt).
 */
errno_t ring_peek(ring_t *r, ring_rec_t *rec);

/* Consumer: consume the record ring_peek returned (nothing when empty). */
void ring_release(ring_t *r);

/*
 * Consumer: consume the record that the last ring_peek returned in *rec
 * (nothing was consumed since), without looking at the ring again: what
 * a drain loop calls (ring_release peeks a second time).
 */
void ring_release_peeked(ring_t *r, const ring_rec_t *rec);

/*
 * Consumer: copy the oldest record's payload into buf (cap bytes), set
 * *type and *len, and consume it. Returns what ring_peek returns, or
 * ERANGE (the record stays, *len says how much room it needs) when cap is
 * too small.
 */
errno_t ring_get(ring_t *r, uint16_t *type, void *buf, size_t cap,
		 size_t *len);

/* Either side: bytes in use (headers and padding included), a snapshot. */
size_t ring_used(ring_t *r);

/*
 * Consumer: return the records and bytes (ring_record_size) dropped since
 * the last call and reset both. Each counter is exchanged atomically, so
 * over time nothing is lost or counted twice, but one drop racing the
 * call may show its record in this call and its bytes in the next.
 */
void ring_take_dropped(ring_t *r, uint64_t *records, uint64_t *bytes);

#endif
