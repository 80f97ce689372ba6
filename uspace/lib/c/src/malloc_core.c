/*
 * Boundary-tag allocator with segregated free lists; see malloc_core.h.
 *
 * Arena layout: an arena_t header (32 bytes), then blocks back to back,
 * then an end marker (a block header of size 0 marked used). A block is
 * a block_t header (prev_size, size|flags) followed by its payload; free
 * blocks keep their list links in the payload. A large block has a mapping
 * of its own: its prev_size is then the header's offset in the mapping and
 * its size the mapping's length, flagged MAPPED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malloc_core.h"

#define USED ((size_t)1)
#define MAPPED ((size_t)2)
#define FLAGS (USED | MAPPED)
#define HDR ((size_t)16)
#define MIN_BLOCK ((size_t)32)
#define PAGE ((size_t)4096)
/* Exact 16-byte classes for blocks below this size. */
#define SMALL_LIMIT ((size_t)512)
#define SMALL_BINS (SMALL_LIMIT / 16 - 2)

typedef struct heap_block {
	size_t prev_size;
	size_t size;
	struct heap_block *next_free;   /* free blocks only */
	struct heap_block *prev_free;
} block_t;

typedef struct heap_arena {
	struct heap_arena *next;
	struct heap_arena *prev;
	size_t len;                     /* of the mapping */
	size_t pad;
} arena_t;

#define ARENA_HDR sizeof(arena_t)

static void default_corrupt(const char *msg, void *p)
{
	fprintf(stderr, "%s: malloc: %s (%p)\n", __libc_progname, msg, p);
	abort();
}

void (*__libc_heap_corrupt)(const char *msg, void *p) = default_corrupt;

/* ---------------------------------------------------------------- blocks */

static size_t bsize(const block_t *b)
{
	return b->size & ~FLAGS;
}

static bool bused(const block_t *b)
{
	return (b->size & USED) != 0;
}

static block_t *bnext(block_t *b)
{
	return (block_t *)((char *)b + bsize(b));
}

static block_t *bprev(block_t *b)
{
	return (block_t *)((char *)b - b->prev_size);
}

static void *payload(block_t *b)
{
	return (char *)b + HDR;
}

static block_t *block_of(void *p)
{
	return (block_t *)((char *)p - HDR);
}

/* Set b's size and flags and the following block's back tag. */
static void bset(block_t *b, size_t size, size_t flags)
{
	b->size = size | flags;
	bnext(b)->prev_size = size;
}

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Block size for a request, or 0 if it cannot be satisfied. */
static size_t need_for(size_t size)
{
	if (size > SIZE_MAX / 4)
		return 0;
	size_t n = round_up(size + HDR, HEAP_ALIGN);
	return n < MIN_BLOCK ? MIN_BLOCK : n;
}

/* ---------------------------------------------------------------- bins */

static unsigned bin_of(size_t size)
{
	if (size < SMALL_LIMIT)
		return (unsigned)(size / 16 - 2);
	unsigned log = 63 - (unsigned)__builtin_clzl(size);
	unsigned b = SMALL_BINS + log - 9;
	return b < HEAP_NBINS ? b : HEAP_NBINS - 1;
}

static void bin_insert(heap_t *h, block_t *b)
{
	unsigned i = bin_of(bsize(b));

	b->prev_free = NULL;
	b->next_free = h->bins[i];
	if (b->next_free)
		b->next_free->prev_free = b;
	h->bins[i] = b;
	h->binmap |= (uint64_t)1 << i;
}

static void bin_remove(heap_t *h, block_t *b)
{
	unsigned i = bin_of(bsize(b));

	if (b->prev_free)
		b->prev_free->next_free = b->next_free;
	else
		h->bins[i] = b->next_free;
	if (b->next_free)
		b->next_free->prev_free = b->prev_free;
	if (!h->bins[i])
		h->binmap &= ~((uint64_t)1 << i);
}

/* First fit in bin i, or NULL. */
static block_t *bin_fit(heap_t *h, unsigned i, size_t need)
{
	for (block_t *b = h->bins[i]; b; b = b->next_free) {
		if (bsize(b) >= need)
			return b;
	}
	return NULL;
}

/* A free block of at least need bytes, taken off its list; or NULL. */
static block_t *find_free(heap_t *h, size_t need)
{
	unsigned i = bin_of(need);
	block_t *b = bin_fit(h, i, need);

	if (!b && i + 1 < HEAP_NBINS) {
		uint64_t above = h->binmap & ~(((uint64_t)2 << i) - 1);
		if (above)
			b = h->bins[__builtin_ctzll(above)];
	}
	if (b)
		bin_remove(h, b);
	return b;
}

/* ---------------------------------------------------------------- arenas */

static void arena_unlink(heap_t *h, arena_t *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		h->arenas = a->next;
	if (a->next)
		a->next->prev = a->prev;
	h->narenas--;
	h->mapped -= a->len;
}

/* Map a new arena able to hold a block of need bytes; its free block. */
static block_t *arena_new(heap_t *h, size_t need)
{
	size_t len = round_up(need + ARENA_HDR + HDR, PAGE);

	if (len < HEAP_ARENA_SIZE)
		len = HEAP_ARENA_SIZE;
	arena_t *a = h->pages.map(h->pages.ctx, len);
	if (!a)
		return NULL;
	a->prev = NULL;
	a->next = h->arenas;
	if (a->next)
		a->next->prev = a;
	a->len = len;
	h->arenas = a;
	h->narenas++;
	h->mapped += len;

	block_t *b = (block_t *)((char *)a + ARENA_HDR);
	size_t size = len - ARENA_HDR - HDR;
	b->prev_size = 0;
	bset(b, size, 0);
	bnext(b)->size = USED;    /* end marker */
	return b;
}

/* Whether free block b spans its whole arena. */
static bool fills_arena(block_t *b)
{
	return b->prev_size == 0 && bnext(b)->size == USED;
}

/* ---------------------------------------------------------------- core */

/*
 * Make b (already unlinked, flags cleared by the caller's choice) a free
 * block: merge with free neighbours, then list it or unmap its arena.
 */
static void release(heap_t *h, block_t *b)
{
	size_t size = bsize(b);
	block_t *next = bnext(b);

	if (!bused(next)) {
		bin_remove(h, next);
		size += bsize(next);
	}
	if (b->prev_size != 0 && !bused(bprev(b))) {
		b = bprev(b);
		bin_remove(h, b);
		size += bsize(b);
	}
	bset(b, size, 0);
	if (fills_arena(b) && h->narenas > 1) {
		arena_t *a = (arena_t *)((char *)b - ARENA_HDR);
		arena_unlink(h, a);
		h->pages.unmap(h->pages.ctx, a, a->len);
		return;
	}
	bin_insert(h, b);
}

/* Shrink used block b to size bytes, freeing the tail if big enough. */
static void trim(heap_t *h, block_t *b, size_t size)
{
	size_t have = bsize(b);

	if (have - size < MIN_BLOCK)
		return;
	bset(b, size, USED);
	block_t *tail = bnext(b);
	tail->prev_size = size;
	bset(tail, have - size, 0);
	h->used -= have - size;
	release(h, tail);
}

static void *alloc_large(heap_t *h, size_t size, size_t align)
{
	size_t len = round_up(size + align + HDR, PAGE);
	char *map = len > size ? h->pages.map(h->pages.ctx, len) : NULL;

	if (!map)
		return NULL;
	char *p = (char *)round_up((uintptr_t)map + HDR, align);
	block_t *b = block_of(p);
	b->prev_size = (size_t)((char *)b - map);
	b->size = len | USED | MAPPED;
	h->nlarge++;
	h->mapped += len;
	h->used += len;
	return p;
}

static void free_large(heap_t *h, block_t *b)
{
	size_t len = bsize(b);
	char *map = (char *)b - b->prev_size;

	h->nlarge--;
	h->mapped -= len;
	h->used -= len;
	h->pages.unmap(h->pages.ctx, map, len);
}

static size_t usable(block_t *b)
{
	if (b->size & MAPPED)
		return bsize(b) - b->prev_size - HDR;
	return bsize(b) - HDR;
}

/* Allocate from the arenas; the lock is held. */
static void *alloc_locked(heap_t *h, size_t size)
{
	size_t need = need_for(size);

	if (need == 0)
		return NULL;
	if (size >= HEAP_LARGE_MIN)
		return alloc_large(h, size, HEAP_ALIGN);
	block_t *b = find_free(h, need);
	if (!b)
		b = arena_new(h, need);
	if (!b)
		return NULL;
	bset(b, bsize(b), USED);
	h->used += bsize(b);
	trim(h, b, need);
	return payload(b);
}

/* Check that p looks like a live block; report corruption otherwise. */
static bool valid_live(void *p)
{
	if (((uintptr_t)p & (HEAP_ALIGN - 1)) != 0) {
		__libc_heap_corrupt("misaligned pointer", p);
		return false;
	}
	block_t *b = block_of(p);
	if (!bused(b) || bsize(b) < MIN_BLOCK) {
		__libc_heap_corrupt("double free or invalid pointer", p);
		return false;
	}
	return true;
}

static void free_locked(heap_t *h, void *p)
{
	block_t *b = block_of(p);

	if (b->size & MAPPED) {
		free_large(h, b);
		return;
	}
	h->used -= bsize(b);
	bset(b, bsize(b), 0);
	release(h, b);
}

/* Grow used block b in place to need bytes if its successor is free. */
static bool grow_in_place(heap_t *h, block_t *b, size_t need)
{
	block_t *next = bnext(b);
	size_t have = bsize(b);

	if (bused(next) || have + bsize(next) < need)
		return false;
	bin_remove(h, next);
	h->used += bsize(next);
	bset(b, have + bsize(next), USED);
	trim(h, b, need);
	return true;
}

/* Resize in place if possible; the lock is held. */
static bool resize_locked(heap_t *h, void *p, size_t size)
{
	block_t *b = block_of(p);
	size_t need = need_for(size);

	if (need == 0)
		return false;
	if (b->size & MAPPED)
		return size <= usable(b) && size >= usable(b) / 2;
	if (size >= HEAP_LARGE_MIN)
		return false;
	if (need <= bsize(b)) {
		trim(h, b, need);
		return true;
	}
	return grow_in_place(h, b, need);
}

/* ---------------------------------------------------------------- API */

void __libc_heap_init(heap_t *h, const heap_pages_t *pages)
{
	memset(h, 0, sizeof(*h));
	h->pages = *pages;
}

void *__libc_heap_alloc(heap_t *h, size_t size)
{
	__libc_lock(&h->lock);
	void *p = alloc_locked(h, size);
	__libc_unlock(&h->lock);
	return p;
}

/*
 * Carve an aligned block out of a bigger one: the space before the
 * aligned payload (at least MIN_BLOCK) becomes a free block.
 */
static void *memalign_locked(heap_t *h, size_t align, size_t size)
{
	size_t need = need_for(size);

	if (need == 0 || need > SIZE_MAX / 2 - align)
		return NULL;
	if (need + align + MIN_BLOCK >= HEAP_LARGE_MIN)
		return alloc_large(h, size, align);
	char *p = alloc_locked(h, need + align + MIN_BLOCK);
	if (!p)
		return NULL;
	char *a = (char *)round_up((uintptr_t)p, align);
	if (a == p)
		return p;
	if ((size_t)(a - p) < MIN_BLOCK)
		a += align;
	block_t *b = block_of(p);
	block_t *nb = block_of(a);
	size_t front = (size_t)(a - p);
	size_t rest = bsize(b) - front;
	bset(b, front, 0);
	bset(nb, rest, USED);
	h->used -= front;
	release(h, b);
	trim(h, nb, need);
	return a;
}

void *__libc_heap_memalign(heap_t *h, size_t align, size_t size)
{
	if (align == 0 || (align & (align - 1)) != 0)
		return NULL;
	if (align <= HEAP_ALIGN)
		return __libc_heap_alloc(h, size);
	__libc_lock(&h->lock);
	void *p = memalign_locked(h, align, size);
	__libc_unlock(&h->lock);
	return p;
}

void __libc_heap_free(heap_t *h, void *p)
{
	if (!p)
		return;
	__libc_lock(&h->lock);
	if (valid_live(p))
		free_locked(h, p);
	__libc_unlock(&h->lock);
}

void *__libc_heap_realloc(heap_t *h, void *p, size_t size)
{
	if (!p)
		return __libc_heap_alloc(h, size);
	__libc_lock(&h->lock);
	if (!valid_live(p) || resize_locked(h, p, size)) {
		__libc_unlock(&h->lock);
		return p;
	}
	size_t old = usable(block_of(p));
	void *q = alloc_locked(h, size);
	if (q) {
		memcpy(q, p, old < size ? old : size);
		free_locked(h, p);
	}
	__libc_unlock(&h->lock);
	return q;
}

size_t __libc_heap_usable(heap_t *h, void *p)
{
	return p ? usable(block_of(p)) : 0;
}

void __libc_heap_stats(heap_t *h, heap_stats_t *st)
{
	__libc_lock(&h->lock);
	st->arenas = h->narenas;
	st->large = h->nlarge;
	st->mapped = h->mapped;
	st->used = h->used;
	__libc_unlock(&h->lock);
}

/* ---------------------------------------------------------------- check */

/* Walk one arena; counts its free blocks and used bytes. */
static bool check_arena(arena_t *a, size_t *nfree, size_t *used)
{
	block_t *b = (block_t *)((char *)a + ARENA_HDR);
	char *end = (char *)a + a->len - HDR;
	size_t prev = 0;
	bool prev_free = false;

	while ((char *)b < end) {
		size_t s = bsize(b);
		if (b->prev_size != prev || s < MIN_BLOCK || s % HEAP_ALIGN ||
		    (b->size & MAPPED) || (char *)b + s > end)
			return false;
		if (!bused(b) && prev_free)
			return false;
		prev_free = !bused(b);
		*nfree += prev_free;
		*used += prev_free ? 0 : s;
		prev = s;
		b = bnext(b);
	}
	return (char *)b == end && b->size == USED && b->prev_size == prev;
}

/* Every listed block is free and in the right bin; count them. */
static bool check_bins(heap_t *h, size_t *nlisted)
{
	for (unsigned i = 0; i < HEAP_NBINS; i++) {
		bool nonempty = h->bins[i] != NULL;
		if (nonempty != ((h->binmap >> i) & 1))
			return false;
		block_t *prev = NULL;
		for (block_t *b = h->bins[i]; b; b = b->next_free) {
			if (bused(b) || bin_of(bsize(b)) != i ||
			    b->prev_free != prev)
				return false;
			(*nlisted)++;
			prev = b;
		}
	}
	return true;
}

bool __libc_heap_check(heap_t *h)
{
	size_t nfree = 0, nlisted = 0, used = 0, narenas = 0, mapped = 0;
	bool ok = true;

	__libc_lock(&h->lock);
	for (arena_t *a = h->arenas; a && ok; a = a->next) {
		ok = check_arena(a, &nfree, &used);
		narenas++;
		mapped += a->len;
	}
	ok = ok && check_bins(h, &nlisted) && nfree == nlisted &&
		narenas == h->narenas && mapped <= h->mapped &&
		h->used >= used && h->used - used == h->mapped - mapped;
	__libc_unlock(&h->lock);
	return ok;
}
