/*
 * Single-producer / single-consumer record rings. The producer owns head
 * and next, the consumer owns tail; each reads the other's position with
 * an acquire load and publishes its own with a release store. Records wrap
 * by a padding record, never split (see lib/ring.h).
 */
#include <lib/ring.h>
#include <lib/string.h>

#include <stdbool.h>

static inline uint64_t ring_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void ring_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline ring_hdr_t *ring_hdr_at(const ring_t *r, uint64_t pos)
{
	return (ring_hdr_t *)(r->buf + (pos & (r->size - 1)));
}

errno_t ring_init(ring_t *r, void *buf, size_t size)
{
	if (buf == NULL || (uintptr_t)buf % RING_ALIGN != 0)
		return EINVAL;
	if (size < RING_MIN_SIZE || size > RING_MAX_SIZE ||
	    (size & (size - 1)) != 0)
		return EINVAL;
	r->buf = buf;
	r->size = size;
	r->head = 0;
	r->next = 0;
	r->tail = 0;
	r->dropped_records = 0;
	r->dropped_bytes = 0;
	return EOK;
}

size_t ring_record_size(size_t len)
{
	size_t mask = RING_ALIGN - 1;

	return sizeof(ring_hdr_t) + ((len + mask) & ~mask);
}

size_t ring_max_payload(const ring_t *r)
{
	return r->size / 2 - sizeof(ring_hdr_t);
}

errno_t ring_drop(ring_t *r, size_t bytes)
{
	__atomic_fetch_add(&r->dropped_records, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->dropped_bytes, bytes, __ATOMIC_RELAXED);
	return ENOSPC;
}

errno_t ring_reserve(ring_t *r, uint16_t type, size_t len, void **payload)
{
	if (type == RING_TYPE_PAD || len > ring_max_payload(r))
		return EINVAL;
	*payload = ring_reserve_inline(r, type, len);
	return *payload ? EOK : ENOSPC;
}

void ring_commit(ring_t *r)
{
	ring_commit_inline(r);
}

errno_t ring_put(ring_t *r, uint16_t type, const void *data, size_t len)
{
	void *payload;
	errno_t rc = ring_reserve(r, type, len, &payload);

	if (rc != EOK)
		return rc;
	if (len != 0)
		memcpy(payload, data, len);
	ring_commit(r);
	return EOK;
}

/*
 * The header at tail, checked against what is published: EOK, EAGAIN when
 * empty, EIO when it claims more than head - tail or crosses the end.
 */
static errno_t ring_front(ring_t *r, uint64_t tail, const ring_hdr_t **hp)
{
	uint64_t avail = ring_load(&r->head) - tail;
	const ring_hdr_t *h = ring_hdr_at(r, tail);

	if (avail == 0)
		return EAGAIN;
	uint64_t size = ring_record_size(h->len);
	if (avail < sizeof(*h) || size > avail ||
	    size > r->size - (tail & (r->size - 1)))
		return EIO;
	*hp = h;
	return EOK;
}

errno_t ring_peek(ring_t *r, ring_rec_t *rec)
{
	uint64_t tail = r->tail;
	const ring_hdr_t *h;
	errno_t rc;

	/* At most one padding record precedes a real one. */
	for (int i = 0; i < 2; i++) {
		rc = ring_front(r, tail, &h);
		if (rc != EOK)
			return rc;
		if (h->type != RING_TYPE_PAD)
			break;
		tail += ring_record_size(h->len);
		ring_store(&r->tail, tail);
	}
	if (h->type == RING_TYPE_PAD)
		return EIO;
	rec->type = h->type;
	rec->len = h->len;
	rec->data = h + 1;
	return EOK;
}

void ring_release(ring_t *r)
{
	ring_rec_t rec;

	if (ring_peek(r, &rec) != EOK)
		return;
	ring_store(&r->tail, r->tail + ring_record_size(rec.len));
}

void ring_release_peeked(ring_t *r, const ring_rec_t *rec)
{
	ring_store(&r->tail, r->tail + ring_record_size(rec->len));
}

errno_t ring_get(ring_t *r, uint16_t *type, void *buf, size_t cap,
		 size_t *len)
{
	ring_rec_t rec;
	errno_t rc = ring_peek(r, &rec);

	if (rc != EOK)
		return rc;
	*type = rec.type;
	*len = rec.len;
	if (rec.len > cap)
		return ERANGE;
	if (rec.len != 0)
		memcpy(buf, rec.data, rec.len);
	ring_release(r);
	return EOK;
}

size_t ring_used(ring_t *r)
{
	uint64_t tail = ring_load(&r->tail);

	return ring_load(&r->head) - tail;
}

void ring_take_dropped(ring_t *r, uint64_t *records, uint64_t *bytes)
{
	*records = __atomic_exchange_n(&r->dropped_records, 0, __ATOMIC_RELAXED);
	*bytes = __atomic_exchange_n(&r->dropped_bytes, 0, __ATOMIC_RELAXED);
}
