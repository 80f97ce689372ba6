/* Host tests for kernel/mm/frame_pool.c: the frame allocator's logic. */
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include <kernel/frame_pool.h>

#define MB (1024ul * 1024)

static frame_pool_t pool;
static uint64_t *storage;

/* A 64 MiB machine: RAM at 0-640K and 1M-64M, a hole at 640K-1M. */
static void setup(void)
{
	free(storage);
	storage = malloc(frame_pool_storage_size(64 * MB));
	frame_pool_init(&pool, storage, 64 * MB);
	frame_pool_add(&pool, 0, 640 * 1024);
	frame_pool_add(&pool, 1 * MB, 63 * MB);
}

static void test_counts(void)
{
	setup();
	is_uint(pool.nframes, 64 * MB / FRAME_SIZE, "covers 64 MiB");
	is_uint(pool.total, (640 * 1024 + 63 * MB) / FRAME_SIZE, "usable frames counted");
	is_uint(pool.free, pool.total, "all usable frames free");
	frame_pool_add(&pool, 1 * MB, 4 * MB);
	is_uint(pool.total, (640 * 1024 + 63 * MB) / FRAME_SIZE, "adding twice counts once");
	frame_pool_add(&pool, 100, 8000);
	is_uint(pool.total, (640 * 1024 + 63 * MB) / FRAME_SIZE,
		"partial frames are not added (inward rounding)");
	frame_pool_add(&pool, 60 * MB, 100 * MB);
	is_uint(pool.total, (640 * 1024 + 63 * MB) / FRAME_SIZE, "ranges past the end clipped");
}

static void test_reserve(void)
{
	setup();
	size_t before = pool.free;
	is_uint(frame_pool_reserve(&pool, 0, 1 * MB), 160, "first MiB: 160 usable frames taken");
	is_uint(frame_pool_reserve(&pool, 2 * MB + 5, 10), 1, "a touched frame is taken whole");
	is_uint(frame_pool_reserve(&pool, 2 * MB, 4096), 0, "reserving again takes nothing");
	is_uint(pool.free, before - 161, "free count follows reservations");
	paddr_t p;
	ok(frame_pool_alloc(&pool, 1, 1, 0, &p) == EOK && p >= 1 * MB && p != 2 * MB,
	   "no reserved frame handed out (%#lx)", (unsigned long)p);
}

static void test_exhaustion(void)
{
	setup();
	size_t n = 0;
	paddr_t p, last = 0;
	bool unique = true;
	uint8_t *seen = calloc(pool.nframes, 1);

	while (frame_pool_alloc(&pool, 1, 1, 0, &p) == EOK) {
		unique &= !seen[p / FRAME_SIZE];
		seen[p / FRAME_SIZE] = 1;
		last = p;
		n++;
	}
	is_uint(n, pool.total, "every usable frame allocated once");
	ok(unique, "no frame handed out twice");
	is_uint(pool.free, 0, "pool empty");
	is_int(frame_pool_alloc(&pool, 1, 1, 0, &p), ENOMEM, "ENOMEM when empty");
	is_int(frame_pool_free(&pool, last, 1), EOK, "free one");
	ok(frame_pool_alloc(&pool, 1, 1, 0, &p) == EOK && p == last, "the freed frame comes back");
	for (size_t i = 0; i < pool.nframes; i++)
		if (seen[i] && i * FRAME_SIZE != last)
			frame_pool_free(&pool, i * FRAME_SIZE, 1);
	frame_pool_free(&pool, last, 1);
	is_uint(pool.free, pool.total, "recovered after freeing everything");
	free(seen);
}

static void test_contig(void)
{
	setup();
	paddr_t p, q;
	is_int(frame_pool_alloc(&pool, 512, 512, 0, &p), EOK, "2 MiB block");
	is_uint(p % (2 * MB), 0, "aligned to 2 MiB");
	is_int(frame_pool_alloc(&pool, 200, 1, 0, &q), EOK, "200-frame block");
	ok(q + 200 * FRAME_SIZE <= p || q >= p + 2 * MB, "blocks do not overlap");
	is_int(frame_pool_alloc(&pool, 1, 1, 640 * 1024, &q), EOK, "frame below 640 KiB");
	ok(q + FRAME_SIZE <= 640 * 1024, "limit respected (%#lx)", (unsigned long)q);
	is_int(frame_pool_alloc(&pool, 200, 1, 640 * 1024, &q), ENOMEM,
	       "no 200-frame block below 640 KiB");
	is_int(frame_pool_alloc(&pool, 16385, 1, 0, &q), ENOMEM, "bigger than RAM");
	is_int(frame_pool_alloc(&pool, 0, 1, 0, &q), EINVAL, "count 0");
	is_int(frame_pool_alloc(&pool, 1, 3, 0, &q), EINVAL, "alignment not a power of two");
	is_int(frame_pool_free(&pool, p, 512), EOK, "free the 2 MiB block");
}

static void test_bad_free(void)
{
	setup();
	paddr_t p;
	frame_pool_alloc(&pool, 2, 1, 0, &p);
	size_t free_before = pool.free;
	is_int(frame_pool_free(&pool, p + 100, 1), EINVAL, "unaligned address");
	is_int(frame_pool_free(&pool, 128 * MB, 1), EINVAL, "outside the pool");
	is_int(frame_pool_free(&pool, p, 3), EINVAL, "range includes a free frame");
	is_int(frame_pool_free(&pool, 64 * MB - FRAME_SIZE, 2), EINVAL, "range past the end");
	is_uint(pool.free, free_before, "failed frees change nothing");
	is_int(frame_pool_free(&pool, p, 2), EOK, "good free");
	is_int(frame_pool_free(&pool, p, 1), EINVAL, "double free detected");
}

int main(void)
{
	test_counts();
	test_reserve();
	test_exhaustion();
	test_contig();
	test_bad_free();
	free(storage);
	return done_testing();
}
