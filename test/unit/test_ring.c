/*
 * Unit tests for lib/ring.c: init checks, put/get and peek/release,
 * ordering, exact fill and drop counting, size limits, wrap-around over
 * many cycles with varying sizes, corruption detection, and a two-thread
 * stress test where every record is verified and received + dropped ==
 * produced.
 */
#include "tap.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <lib/ring.h>

#define SMALL 256
#define BIG 4096

static _Alignas(64) uint8_t buf[BIG + 64];

/* Deterministic payload byte i of record seq. */
static uint8_t pattern(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + 1);
}

static void fill(uint8_t *p, uint64_t seq, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(seq, i);
}

static bool check(const uint8_t *p, uint64_t seq, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(seq, i))
			return false;
	return true;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void test_init(void)
{
	ring_t r;
	ring_rec_t rec;

	is_int(ring_init(&r, NULL, SMALL), EINVAL, "NULL buffer refused");
	is_int(ring_init(&r, buf + 4, SMALL), EINVAL, "misaligned buffer refused");
	is_int(ring_init(&r, buf, 0), EINVAL, "size 0 refused");
	is_int(ring_init(&r, buf, 8), EINVAL, "size below minimum refused");
	is_int(ring_init(&r, buf, 24), EINVAL, "size not a power of two refused");
	is_int(ring_init(&r, buf, (size_t)RING_MAX_SIZE * 2), EINVAL,
	       "size above maximum refused");
	is_int(ring_init(&r, buf, RING_MIN_SIZE), EOK, "minimum size accepted");
	is_uint(ring_max_payload(&r), 0, "minimum ring carries empty records");
	is_int(ring_init(&r, buf, SMALL), EOK, "init");
	is_uint(ring_used(&r), 0, "new ring is empty");
	is_int(ring_peek(&r, &rec), EAGAIN, "peek on empty ring: EAGAIN");
	is_uint(ring_record_size(0), 8, "record size of 0 bytes");
	is_uint(ring_record_size(1), 16, "record size of 1 byte");
	is_uint(ring_record_size(8), 16, "record size of 8 bytes");
	is_uint(ring_record_size(9), 24, "record size of 9 bytes");
}

static void test_basic(void)
{
	ring_t r;
	char out[32];
	uint16_t type;
	size_t len;

	ring_init(&r, buf, SMALL);
	is_int(ring_put(&r, 3, "hello", 5), EOK, "put");
	is_uint(ring_used(&r), 16, "used counts header and padding");
	is_int(ring_get(&r, &type, out, sizeof(out), &len), EOK, "get");
	ok(type == 3 && len == 5 && memcmp(out, "hello", 5) == 0,
	   "get returns type, length and contents");
	is_uint(ring_used(&r), 0, "empty after get");
	is_int(ring_get(&r, &type, out, sizeof(out), &len), EAGAIN,
	       "get on empty ring: EAGAIN");
}

static void test_order_and_peek(void)
{
	ring_t r;
	ring_rec_t rec;
	bool good = true;

	ring_init(&r, buf, SMALL);
	for (uint64_t i = 0; i < 10; i++) {
		uint8_t tmp[16];

		fill(tmp, i, i);
		good &= ring_put(&r, (uint16_t)i, tmp, i) == EOK;
	}
	ok(good, "ten records of 0..9 bytes put");
	is_int(ring_peek(&r, &rec), EOK, "peek");
	is_int(ring_peek(&r, &rec), EOK, "peek again");
	ok(rec.type == 0 && rec.len == 0, "peek does not consume");
	for (uint64_t i = 0; i < 10; i++) {
		good &= ring_peek(&r, &rec) == EOK && rec.type == i &&
			rec.len == i && check(rec.data, i, i);
		good &= (uintptr_t)rec.data % 8 == 0;
		ring_release(&r);
	}
	ok(good, "records come out in order, aligned, intact");
	ring_release(&r);
	is_uint(ring_used(&r), 0, "release on empty ring does nothing");
}

/* ring_release_peeked consumes what ring_peek saw, padding and wrap included. */
static void test_release_peeked(void)
{
	ring_t r;
	ring_rec_t rec;
	bool good = true;
	uint64_t put = 0, got = 0;

	ring_init(&r, buf, SMALL);
	for (int round = 0; round < 40; round++) {
		uint8_t tmp[64];
		size_t len = 8 + (size_t)round % 5 * 11;

		fill(tmp, put, len);
		while (ring_put(&r, (uint16_t)(put % 7 + 1), tmp, len) == EOK) {
			put++;
			fill(tmp, put, len);
		}
		while (ring_peek(&r, &rec) == EOK) {
			good &= rec.type == got % 7 + 1 && check(rec.data, got, rec.len);
			ring_release_peeked(&r, &rec);
			got++;
		}
	}
	ok(good && put == got && put > 100, "release_peeked: %lu records through a wrapping ring",
	   (unsigned long)got);
	is_uint(ring_used(&r), 0, "release_peeked: the ring is empty at the end");
}

static void test_fill_and_drop(void)
{
	ring_t r;
	uint8_t eight[8] = { 0 };
	uint64_t recs, bytes;
	bool good = true;

	ring_init(&r, buf, SMALL);
	for (int i = 0; i < SMALL / 16; i++)
		good &= ring_put(&r, 1, eight, 8) == EOK;
	ok(good, "16 records of 16 bytes fill 256 bytes");
	is_uint(ring_used(&r), SMALL, "ring exactly full");
	is_int(ring_put(&r, 1, eight, 8), ENOSPC, "next put: ENOSPC");
	is_int(ring_put(&r, 1, NULL, 0), ENOSPC, "even an empty record");
	ring_take_dropped(&r, &recs, &bytes);
	ok(recs == 2 && bytes == 24, "dropped: 2 records, 24 bytes (got %llu, %llu)",
	   (unsigned long long)recs, (unsigned long long)bytes);
	ring_take_dropped(&r, &recs, &bytes);
	ok(recs == 0 && bytes == 0, "take_dropped resets the counters");
	ring_release(&r);
	is_int(ring_put(&r, 1, eight, 8), EOK, "room again after one release");
	is_uint(ring_used(&r), SMALL, "full again");
}

static void test_limits(void)
{
	ring_t r;
	ring_rec_t rec;
	uint8_t big[SMALL];
	uint64_t recs, bytes;
	uint16_t type;
	size_t len;
	bool good = true;

	ring_init(&r, buf, SMALL);
	is_uint(ring_max_payload(&r), SMALL / 2 - 8,
		"max payload is half the ring less a header");
	is_int(ring_put(&r, 1, big, SMALL / 2 - 7), EINVAL,
	       "oversized record refused");
	is_int(ring_put(&r, RING_TYPE_PAD, big, 1), EINVAL, "padding type refused");
	ring_take_dropped(&r, &recs, &bytes);
	ok(recs == 0 && bytes == 0, "refusals are not counted as drops");

	/* A maximum record fits an empty ring at every offset. */
	for (size_t off = 0; off < SMALL; off += 8) {
		fill(big, off, SMALL / 2 - 8);
		good &= ring_put(&r, 2, big, SMALL / 2 - 8) == EOK;
		good &= ring_peek(&r, &rec) == EOK && rec.type == 2 &&
			rec.len == SMALL / 2 - 8 && check(rec.data, off, rec.len);
		ring_release(&r);
		good &= ring_used(&r) == 0;
		/* Move on 8 bytes with an empty record. */
		good &= ring_put(&r, 5, NULL, 0) == EOK;
		good &= ring_get(&r, &type, NULL, 0, &len) == EOK &&
			type == 5 && len == 0;
	}
	ok(good, "maximum and empty records at every offset");

	ring_put(&r, 1, big, 9);
	is_int(ring_get(&r, &type, big, 8, &len), ERANGE, "small buffer: ERANGE");
	is_uint(len, 9, "ERANGE reports the needed length");
	is_int(ring_get(&r, &type, big, 9, &len), EOK, "record kept, got afterwards");
}

static void test_corrupt(void)
{
	ring_t r;
	ring_rec_t rec;

	ring_init(&r, buf, SMALL);
	ring_put(&r, 1, "abc", 3);
	((ring_hdr_t *)buf)->len = 100;
	is_int(ring_peek(&r, &rec), EIO, "header longer than published: EIO");
}

/* Random put/get over a 1 KiB ring: many wraps, every record checked. */
static void test_wrap(void)
{
	ring_t r;
	uint8_t tmp[BIG];
	size_t lens[256];  /* a 1 KiB ring holds at most 128 records */
	uint64_t put = 0, got = 0, drops = 0, recs, bytes;
	bool good = true;

	ring_init(&r, buf, 1024);
	for (uint64_t step = 0; step < 200000 && good; step++) {
		uint64_t x = mix(step);
		size_t len = (size_t)(x % (ring_max_payload(&r) + 1));

		if (x % 3 != 0) {
			fill(tmp, put, len);
			errno_t rc = ring_put(&r, (uint16_t)(put & 0x7fff), tmp, len);
			if (rc == EOK)
				lens[put++ % 256] = len;
			else
				drops += rc == ENOSPC;
			continue;
		}
		for (unsigned n = (x >> 8) % 4; n > 0; n--) {
			ring_rec_t rec;

			if (ring_peek(&r, &rec) != EOK)
				break;
			good &= rec.type == (got & 0x7fff) &&
				rec.len == lens[got % 256] &&
				check(rec.data, got, rec.len);
			ring_release(&r);
			got++;
		}
		good &= ring_used(&r) <= 1024;
	}
	ok(good, "%llu records checked through the wrap", (unsigned long long)got);
	ok(r.head > 1000 * 1024, "head went round the buffer over 1000 times");
	ring_take_dropped(&r, &recs, &bytes);
	is_uint(recs, drops, "every ENOSPC counted as a drop");
	ok(drops > 0 && got > 1000, "both drops (%llu) and traffic happened",
	   (unsigned long long)drops);
}

/* ---------------------------------------------------------------- stress */

struct stress {
	ring_t r;
	int done;
	uint64_t produced;
	uint64_t refused;       /* producer's ENOSPC count */
	uint64_t received;
	uint64_t dropped;       /* taken by the consumer */
	uint64_t next;          /* consumer: the sequence number expected */
	uint64_t gaps;          /* sequence numbers never seen */
	bool good;
};

static size_t stress_len(const ring_t *r, uint64_t seq)
{
	return 8 + (size_t)(mix(seq) % (ring_max_payload(r) - 7));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static errno_t stress_put(struct stress *s, uint64_t seq)
{
	size_t len = stress_len(&s->r, seq);
	uint8_t tmp[BIG];
	void *p;

	if (seq % 2 == 0) {
		fill(tmp, seq, len);
		memcpy(tmp, &seq, 8);
		return ring_put(&s->r, (uint16_t)(seq & 0x7fff), tmp, len);
	}
	errno_t rc = ring_reserve(&s->r, (uint16_t)(seq & 0x7fff), len, &p);
	if (rc != EOK)
		return rc;
	fill(p, seq, len);
	memcpy(p, &seq, 8);
	ring_commit(&s->r);
	return EOK;
}

static void *stress_producer(void *arg)
{
	struct stress *s = arg;
	double end = now() + 0.5;

	for (uint64_t seq = 0;; seq++) {
		if (seq % 1024 == 0 && now() > end)
			break;
		if (stress_put(s, seq) == EOK) {
			s->produced++;
		} else {
			/* On few CPUs, give the consumer a turn. */
			s->refused++;
			sched_yield();
		}
	}
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void stress_take(struct stress *s)
{
	uint64_t recs, bytes;

	ring_take_dropped(&s->r, &recs, &bytes);
	s->dropped += recs;
}

static void stress_check(struct stress *s, const ring_rec_t *rec)
{
	uint64_t seq;

	memcpy(&seq, rec->data, 8);
	s->good &= seq >= s->next && rec->type == (seq & 0x7fff) &&
		rec->len == stress_len(&s->r, seq);
	for (size_t i = 8; i < rec->len; i++)
		s->good &= ((const uint8_t *)rec->data)[i] == pattern(seq, i);
	s->gaps += seq - s->next;
	s->next = seq + 1;
	s->received++;
}

static void *stress_consumer(void *arg)
{
	struct stress *s = arg;
	ring_rec_t rec;

	for (;;) {
		int done = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);

		if (ring_peek(&s->r, &rec) == EOK) {
			stress_check(s, &rec);
			ring_release(&s->r);
			if (s->received % 4096 == 0)
				stress_take(s);
		} else if (done) {
			break;
		}
	}
	stress_take(s);
	return NULL;
}

static void test_stress(void)
{
	static struct stress s;
	pthread_t p, c;

	ring_init(&s.r, buf, BIG);
	s.good = true;
	pthread_create(&c, NULL, stress_consumer, &s);
	pthread_create(&p, NULL, stress_producer, &s);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	/* Drops after the last record received are gaps too. */
	s.gaps += s.produced + s.refused - s.next;
	note("stress: %llu produced, %llu received, %llu dropped",
	     (unsigned long long)(s.produced + s.refused),
	     (unsigned long long)s.received, (unsigned long long)s.dropped);
	ok(s.good, "every record received in order and intact");
	is_uint(s.received + s.dropped, s.produced + s.refused,
		"received + dropped == produced");
	is_uint(s.dropped, s.refused, "dropped == producer's ENOSPC count");
	is_uint(s.gaps, s.dropped, "sequence gaps == dropped");
	ok(s.received > 0, "records got through");
}

int main(void)
{
	test_init();
	test_basic();
	test_order_and_peek();
	test_release_peeked();
	test_fill_and_drop();
	test_limits();
	test_corrupt();
	test_wrap();
	test_stress();
	return done_testing();
}
