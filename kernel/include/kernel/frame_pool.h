/*
 * A pool of physical page frames tracked by a bitmap (bit set = not free).
 * Pure logic with no locking, shared by the kernel's frame allocator and
 * the host unit tests.
 */
#ifndef KERNEL_FRAME_POOL_H
#define KERNEL_FRAME_POOL_H

#include <kernel/types.h>
#include <lib/bitmap.h>

#define FRAME_SIZE 4096ul

typedef struct frame_pool {
	bitmap_t map;
	size_t nframes;     /* frames covered: [0, nframes * FRAME_SIZE) */
	size_t total;       /* usable frames added */
	size_t free;        /* usable frames not allocated or reserved */
	size_t hint;        /* where the next single-frame search starts */
} frame_pool_t;

/* Bytes of bitmap storage for physical addresses below end. */
size_t frame_pool_storage_size(paddr_t end);

/* Cover [0, end) with every frame unusable; storage from frame_pool_storage_size(). */
void frame_pool_init(frame_pool_t *p, void *storage, paddr_t end);

/* Make the whole frames inside [base, base+len) usable and free. */
void frame_pool_add(frame_pool_t *p, paddr_t base, uint64_t len);

/*
 * Mark the frames touching [base, base+len) as used (not free). Frames that
 * were never added are left alone. Returns the number of frames taken.
 */
size_t frame_pool_reserve(frame_pool_t *p, paddr_t base, uint64_t len);

/*
 * Allocate count contiguous frames aligned to align frames (power of two)
 * ending at or below limit (0: no limit). Returns EOK and *out, or ENOMEM.
 */
errno_t frame_pool_alloc(frame_pool_t *p, size_t count, size_t align,
			 paddr_t limit, paddr_t *out);

/*
 * Free count frames at addr. Returns EINVAL (and changes nothing) if any
 * of them is outside the pool or already free.
 */
errno_t frame_pool_free(frame_pool_t *p, paddr_t addr, size_t count);

#endif
