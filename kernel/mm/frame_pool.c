/* Bitmap frame pool: see kernel/frame_pool.h. Pure logic, host-tested. */
#include <kernel/frame_pool.h>

size_t frame_pool_storage_size(paddr_t end)
{
	return bitmap_storage_size(ALIGN_UP(end, FRAME_SIZE) / FRAME_SIZE);
}

void frame_pool_init(frame_pool_t *p, void *storage, paddr_t end)
{
	p->nframes = ALIGN_UP(end, FRAME_SIZE) / FRAME_SIZE;
	bitmap_init(&p->map, storage, p->nframes, true);
	p->total = 0;
	p->free = 0;
	p->hint = 0;
}

void frame_pool_add(frame_pool_t *p, paddr_t base, uint64_t len)
{
	size_t first = ALIGN_UP(base, FRAME_SIZE) / FRAME_SIZE;
	size_t last = ALIGN_DOWN(base + len, FRAME_SIZE) / FRAME_SIZE;

	last = MIN(last, p->nframes);
	if (first >= last)
		return;
	size_t was_used = bitmap_count_range(&p->map, first, last - first);
	bitmap_clear_range(&p->map, first, last - first);
	/* Frames added twice are counted once. */
	p->total += was_used;
	p->free += was_used;
}

size_t frame_pool_reserve(frame_pool_t *p, paddr_t base, uint64_t len)
{
	size_t first = ALIGN_DOWN(base, FRAME_SIZE) / FRAME_SIZE;
	size_t last = ALIGN_UP(base + len, FRAME_SIZE) / FRAME_SIZE;
	size_t taken = 0;

	last = MIN(last, p->nframes);
	for (size_t i = first; i < last; i++) {
		if (!bitmap_test(&p->map, i)) {
			bitmap_set(&p->map, i);
			taken++;
		}
	}
	p->free -= taken;
	return taken;
}

static size_t frame_pool_search(frame_pool_t *p, size_t count, size_t align,
				size_t limit)
{
	size_t i;

	if (count == 1 && align == 1) {
		i = bitmap_find_clear(&p->map, p->hint, limit);
		if (i == SIZE_MAX && p->hint)
			i = bitmap_find_clear(&p->map, 0, limit);
		return i;
	}
	return bitmap_find_clear_run(&p->map, 0, limit, count, align);
}

errno_t frame_pool_alloc(frame_pool_t *p, size_t count, size_t align,
			 paddr_t limit, paddr_t *out)
{
	size_t lim = limit ? MIN(p->nframes, limit / FRAME_SIZE) : p->nframes;

	if (count == 0 || align == 0 || (align & (align - 1)) || count > p->free)
		return count == 0 || align == 0 || (align & (align - 1)) ? EINVAL : ENOMEM;
	size_t i = frame_pool_search(p, count, align, lim);
	if (i == SIZE_MAX)
		return ENOMEM;
	bitmap_set_range(&p->map, i, count);
	p->free -= count;
	if (count == 1)
		p->hint = i + 1;
	*out = (paddr_t)i * FRAME_SIZE;
	return EOK;
}

errno_t frame_pool_free(frame_pool_t *p, paddr_t addr, size_t count)
{
	size_t first = addr / FRAME_SIZE;

	if (addr % FRAME_SIZE || first >= p->nframes || count > p->nframes - first)
		return EINVAL;
	if (bitmap_count_range(&p->map, first, count) != count)
		return EINVAL;
	bitmap_clear_range(&p->map, first, count);
	p->free += count;
	if (first < p->hint)
		p->hint = first;
	return EOK;
}
