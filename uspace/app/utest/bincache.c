/*
 * utest bincache: the kernel's cache of checked program images. Spawning
 * more distinct images from memory than the cache holds (BINARY_CACHE_MAX,
 * 512) keeps working: unreferenced entries are evicted, least recently
 * used first (before: ELIMIT for every new image after the 512th, until
 * reboot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utest.h"

#define BINCACHE_IMAGES 560

/* /bin/hello read into memory with 8 spare bytes at the end; its size. */
static uint8_t *bincache_read(size_t *size)
{
	FILE *f = fopen("/bin/hello", "rb");
	uint8_t *buf = NULL;
	long n = -1;

	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 8)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*size = n > 0 ? (size_t)n : 0;
	return buf;
}

/*
 * Spawn image (size bytes) as /bin/hello, stopped (it never needs to run),
 * then kill and reap it: the spawn's error, or the kill's or wait's.
 */
static errno_t bincache_run(const uint8_t *image, size_t size)
{
	const char *const argv[] = { "hello", NULL };
	spawn_args_t a = { .path = "/bin/hello", .argv = argv, .image = image,
			   .image_size = size, .flags = SPAWN_F_STOPPED };
	task_id_t id;
	errno_t rc = sys_spawn_args(&a, &id);

	if (rc == EOK)
		rc = sys_kill(id);
	if (rc == EOK)
		rc = sys_wait(id, NULL, 0, NULL);
	return rc;
}

static void test_bincache_evicts(void)
{
	size_t size;
	uint8_t *image = bincache_read(&size);
	unsigned ran = 0;
	errno_t rc = image ? EOK : ENOENT;

	/* Each image is hello with 8 more bytes (a counter) after the file. */
	for (uint64_t i = 0; i < BINCACHE_IMAGES && rc == EOK; i++, ran++) {
		memcpy(image + size, &i, sizeof(i));
		rc = bincache_run(image, size + sizeof(i));
	}
	tap_ok(rc == EOK && ran == BINCACHE_IMAGES,
	       "bincache: %u distinct images spawned from memory (error %d)", ran, rc);
	if (image) {
		uint64_t i = 0;
		memcpy(image + size, &i, sizeof(i));
		tap_ok(bincache_run(image, size + sizeof(i)) == EOK,
		       "bincache: the first image (long evicted) spawns again");
	}
	free(image);
}

void test_bincache(void)
{
	test_bincache_evicts();
}
