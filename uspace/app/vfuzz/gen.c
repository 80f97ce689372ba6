/*
 * vfuzz argument generators: a xorshift64* generator per thread, the
 * boundary values, the buffer pool and the handle rings.
 */
#include <abi/syscall.h>
#include <lib/xorshift.h>
#include <string.h>
#include <vernier.h>

#include "vfuzz.h"

#define USER_END 0x00007ffffffff000ull

static const uint64_t fz_bounds[] = {
	0, 1, 0xfff, 0x1000, 0x7fffffff, 0xffffffff, 0x100000000ull,
	~0ull, ~0ull - 1, 0x8000000000000000ull, 0x7fffffffffffffffull,
	USER_END - 1, USER_END, USER_END + 1,
	0x0000800000000000ull,   /* the first non-canonical address */
	0xffff800000000000ull,   /* the kernel half; the direct map's start */
	0xffff800000100000ull,   /* in the direct map */
	0xffffffff80000000ull,   /* kernel text */
	0xffffffff80100000ull,
};
#define FZ_NBOUNDS (sizeof(fz_bounds) / sizeof(fz_bounds[0]))

uint64_t fz_rand(fz_t *f)
{
	return xorshift64s_next(&f->rng);
}

uint64_t fz_below(fz_t *f, uint64_t n)
{
	return n ? fz_rand(f) % n : 0;
}

bool fz_chance(fz_t *f, unsigned percent)
{
	return fz_below(f, 100) < percent;
}

/* A boundary value. */
uint64_t fz_boundary(fz_t *f)
{
	return fz_bounds[fz_below(f, FZ_NBOUNDS)];
}

/* A pointer the kernel must refuse: boundary, hole, read-only, random. */
uint64_t fz_bad_ptr(fz_t *f)
{
	switch (fz_below(f, 4)) {
	case 0: return FZ_POOL_HOLE + fz_below(f, 0x4000);
	case 1: return FZ_POOL_EDGE + 0x1000 - 1 - fz_below(f, 8);
	case 2: return fz_rand(f) | 0x8000000000000000ull;
	default: return fz_bounds[FZ_NBOUNDS - 1 - fz_below(f, 9)];
	}
}

/* A pointer into the pool: read-write, read-only, unmapped or straddling. */
uint64_t fz_pool_ptr(fz_t *f)
{
	uint64_t off = fz_chance(f, 50) ? fz_below(f, 64) * 8 : fz_below(f, 0x1000);

	switch (fz_below(f, 5)) {
	case 0: case 1: return FZ_POOL_RW + fz_below(f, 16) * 0x1000 + off;
	case 2: return FZ_POOL_RO + (off & 0x3fff);
	case 3: return FZ_POOL_HOLE + (off & 0x3fff);
	default: return FZ_POOL_EDGE + 0x1000 - 1 - fz_below(f, 64);
	}
}

/* The generic argument: 40% boundary, 40% pool pointer, 20% random. */
uint64_t fz_arg(fz_t *f)
{
	uint64_t p = fz_below(f, 10);

	if (p < 4)
		return fz_boundary(f);
	if (p < 8)
		return fz_pool_ptr(f);
	return fz_rand(f);
}

/* A length: small, page-ish, huge or a boundary value. */
uint64_t fz_size(fz_t *f)
{
	switch (fz_below(f, 5)) {
	case 0: return fz_below(f, 64);
	case 1: return fz_below(f, 0x3000);
	case 2: return 0x1000ull << fz_below(f, 8);
	case 3: return fz_boundary(f);
	default: return fz_rand(f) >> fz_below(f, 64);
	}
}

void fz_handle_add(fz_t *f, unsigned kind, uint64_t v)
{
	f->handles[kind][f->hcount[kind]++ % FZ_HANDLES] = v;
}

/* A handle of kind seen before (70%), else a generic argument. */
uint64_t fz_handle(fz_t *f, unsigned kind)
{
	unsigned n = f->hcount[kind] < FZ_HANDLES ? f->hcount[kind] : FZ_HANDLES;

	if (n && fz_chance(f, 70))
		return f->handles[kind][fz_below(f, n)];
	return fz_chance(f, 50) ? fz_below(f, 300) : fz_arg(f);
}

/* Words [slot, slot + words) of the thread's private scratch area. */
void *fz_scratch(fz_t *f, unsigned slot, unsigned words)
{
	(void)words;
	return &f->scratch[slot];
}

static errno_t fz_map_at(uint64_t at, uint64_t len, unsigned prot)
{
	void *got;
	errno_t rc = sys_map((void *)at, len, prot, &got);

	if (rc == EOK && (uint64_t)got != at)
		rc = EEXIST;
	return rc;
}

/* Map the pool (once per task, before any thread starts). */
errno_t fz_pool_init(void)
{
	errno_t rc = fz_map_at(FZ_POOL_RW, 0x10000, PROT_READ | PROT_WRITE);

	if (rc == EOK)
		rc = fz_map_at(FZ_POOL_RO, 0x4000, PROT_READ);
	if (rc == EOK)
		rc = fz_map_at(FZ_POOL_EDGE, 0x1000, PROT_READ | PROT_WRITE);
	if (rc == EOK)
		memset((void *)FZ_POOL_RW, 'v', 0x10000);
	return rc;
}
