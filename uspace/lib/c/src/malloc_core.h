/*
 * The allocator engine behind malloc (src/malloc_core.c), independent of
 * where its pages come from so that tests can run it over their own page
 * source.
 *
 * Small and medium blocks live in arenas (ARENA_SIZE bytes or more, one
 * mapping each). Every block starts with a 16-byte header holding its own
 * size and the size of the block before it (boundary tags), so freeing
 * merges with both neighbours in O(1); free blocks sit in size-segregated
 * doubly linked lists (exact 16-byte classes below 512 bytes, powers of
 * two above) and a bitmap of non-empty lists finds the next fit quickly.
 * An arena that becomes entirely free is unmapped unless it is the last
 * one. Requests of LARGE_MIN bytes and more get a mapping of their own.
 * Every entry point takes the heap's lock.
 */
#ifndef LIBC_MALLOC_CORE_H
#define LIBC_MALLOC_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libc.h"

#define HEAP_ALIGN 16
#define HEAP_ARENA_SIZE (256 * 1024)
#define HEAP_LARGE_MIN (128 * 1024)
#define HEAP_NBINS 48

/*
 * Where pages come from: map returns len bytes (a multiple of 4096),
 * page aligned, or NULL; unmap gives back exactly a range map returned.
 */
typedef struct heap_pages {
	void *(*map)(void *ctx, size_t len);
	void (*unmap)(void *ctx, void *addr, size_t len);
	void *ctx;
} heap_pages_t;

struct heap_block;
struct heap_arena;

typedef struct heap {
	libc_lock_t lock;
	heap_pages_t pages;
	struct heap_block *bins[HEAP_NBINS];
	uint64_t binmap;              /* bit i: bins[i] is not empty */
	struct heap_arena *arenas;
	size_t narenas;
	size_t nlarge;                /* blocks with their own mapping */
	size_t mapped;                /* bytes mapped (arenas and large) */
	size_t used;                  /* bytes in allocated blocks, headers included */
} heap_t;

typedef struct heap_stats {
	size_t arenas, large, mapped, used;
} heap_stats_t;

/* Prepare an empty heap over pages (maps nothing yet). */
void __libc_heap_init(heap_t *h, const heap_pages_t *pages);
/* size bytes, 16-byte aligned (a unique block for 0); NULL if out of memory. */
void *__libc_heap_alloc(heap_t *h, size_t size);
/*
 * size bytes aligned to align (a power of two); NULL if out of memory or
 * align is not a power of two.
 */
void *__libc_heap_memalign(heap_t *h, size_t align, size_t size);
/*
 * Free p (NULL is ignored). A pointer that is not an allocated block
 * (double free, a stray pointer) calls the heap's corruption handler.
 */
void __libc_heap_free(heap_t *h, void *p);
/*
 * Resize p to size keeping its contents up to the smaller size; NULL p
 * allocates. Returns the block (maybe moved), or NULL when out of memory
 * (p is then untouched). size 0 is a 0-byte block, not a free.
 */
void *__libc_heap_realloc(heap_t *h, void *p, size_t size);
/* Usable bytes of the allocated block p. */
size_t __libc_heap_usable(heap_t *h, void *p);
/* Counters: arenas, large mappings, bytes mapped and in use. */
void __libc_heap_stats(heap_t *h, heap_stats_t *st);
/*
 * Walk every arena and free list checking the invariants (sizes, boundary
 * tags, no adjacent free blocks, list membership, bitmap). Returns true
 * when consistent; for tests.
 */
bool __libc_heap_check(heap_t *h);

/*
 * Called with a message when free/realloc meet a pointer that is not a
 * live block; must not return. Default: print on stderr and abort; tests
 * may replace it.
 */
extern void (*__libc_heap_corrupt)(const char *msg, void *p);

#endif
