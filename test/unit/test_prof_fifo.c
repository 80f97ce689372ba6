/*
 * Unit tests for the profiler's session FIFO (kernel/prof/fifo.c): whole
 * records in order, across the wrap of a small buffer, a read never
 * splitting a record, peek not consuming, a full FIFO refusing a record
 * without writing any of it, and front's in-place pieces holding what a
 * peek copies.
 */
#include "tap.h"

#include <string.h>

#include <kernel/prof_fifo.h>

/* A record of size bytes (multiple of 8) tagged with n in every byte after the header. */
static void make(uint8_t *rec, size_t size, uint8_t n)
{
	prof_rec_t *h = (prof_rec_t *)rec;

	memset(rec, n, size);
	h->type = PROF_REC_SAMPLE;
	h->size = (uint16_t)size;
	h->cpu = n;
	h->tsc = n;
}

/* Do the n records in buf (len bytes) carry tags first, first+1, ... whole? */
static int check(const uint8_t *buf, size_t len, uint8_t first, int *count)
{
	size_t at = 0;

	*count = 0;
	while (at < len) {
		const prof_rec_t *h = (const prof_rec_t *)(buf + at);
		if (h->size < sizeof(*h) || at + h->size > len || h->cpu != (uint32_t)(first + *count))
			return 0;
		for (size_t i = sizeof(*h); i < h->size; i++)
			if (buf[at + i] != (uint8_t)(first + *count))
				return 0;
		at += h->size;
		(*count)++;
	}
	return 1;
}

int main(void)
{
	uint8_t mem[200], rec[64], out[256];
	prof_fifo_t q;
	int n;

	prof_fifo_init(&q, mem, sizeof(mem));
	ok(prof_fifo_used(&q) == 0 && prof_fifo_peek(&q, out, sizeof(out)) == 0, "starts empty");
	for (uint8_t i = 0; i < 4; i++) {
		make(rec, 48, i);
		ok(prof_fifo_put(&q, rec, 48), "put record %u of 48 bytes", i);
	}
	make(rec, 16, 4);
	ok(!prof_fifo_put(&q, rec, 16) && prof_fifo_used(&q) == 192,
	   "a record that does not fit is refused and nothing is written");
	size_t got = prof_fifo_peek(&q, out, 100);
	int two = check(out, got, 0, &n);
	ok(got == 96 && two && n == 2,
	   "a 100-byte read takes two whole records (%zu bytes)", got);
	ok(prof_fifo_used(&q) == 192, "peek does not consume");
	prof_fifo_consume(&q, got);
	make(rec, 64, 4);
	ok(prof_fifo_put(&q, rec, 64), "a record that wraps around the end goes in");
	make(rec, 24, 5);
	ok(prof_fifo_put(&q, rec, 24), "and one after it");
	got = prof_fifo_peek(&q, out, sizeof(out));
	int whole = check(out, got, 2, &n);
	ok(got == 184 && whole && n == 4,
	   "the wrapped records come out whole and in order (%zu bytes, %d records)", got, n);
	prof_fifo_consume(&q, got);
	ok(prof_fifo_used(&q) == 0, "consumed: empty again");
	int round;
	for (round = 0; round < 50; round++) {
		size_t size = 16 + 8 * (round % 6);
		make(rec, size, (uint8_t)round);
		if (!prof_fifo_put(&q, rec, size))
			break;
		got = prof_fifo_peek(&q, out, sizeof(out));
		if (!check(out, got, (uint8_t)round, &n) || n != 1)
			break;
		prof_fifo_consume(&q, got);
	}
	ok(round == 50, "50 records of 16..56 bytes through every wrap position (%d)", round);
	ok(prof_fifo_used(&q) == 0, "nothing left over");

	int wrapped = 0;
	for (round = 0; round < 60; round++) {
		uint8_t joined[256];
		prof_fifo_span_t sp;
		for (int k = 0; k < 3; k++) {
			size_t size = 16 + 8 * ((round + k) % 5);
			make(rec, size, (uint8_t)(round * 3 + k));
			prof_fifo_put(&q, rec, size);
		}
		size_t cap = 40 + (size_t)round % 4 * 30;
		size_t front = prof_fifo_front(&q, cap, &sp);
		got = prof_fifo_peek(&q, out, cap);
		memcpy(joined, sp.p[0], sp.n[0]);
		memcpy(joined + sp.n[0], sp.p[1], sp.n[1]);
		wrapped += sp.n[1] != 0;
		if (front != got || sp.n[0] + sp.n[1] != got || memcmp(joined, out, got) ||
		    !check(out, got, (uint8_t)(round * 3), &n))
			break;
		prof_fifo_consume(&q, prof_fifo_used(&q));
	}
	ok(round == 60 && wrapped > 5, "front: its pieces are what peek copies (%d rounds, %d wrapped)",
	   round, wrapped);
	return done_testing();
}
