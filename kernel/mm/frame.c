/*
 * The physical frame allocator: a frame_pool over all RAM the memory map
 * reports, minus the kernel image, the boot loader's data and the first
 * megabyte (firmware areas; the SMP trampoline asks for it explicitly).
 */
#include <kernel/failinj.h>
#include <arch/boot.h>
#include <kernel/bootinfo.h>
#include <kernel/frame_pool.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>

#define LOG_PREFIX "mm"

static frame_pool_t pool;
static spinlock_t frame_lock = SPINLOCK_INIT("frame");
static uint64_t frames_unavailable;
static void *pool_storage;
static size_t pool_storage_size;

static paddr_t frame_ram_end(void)
{
	paddr_t end = 0;
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (m->type == MEM_USABLE)
			end = MAX(end, m->base + m->len);
	}
	return end;
}

static bool frame_overlaps_boot(paddr_t s, paddr_t e)
{
	if (s < kernel_virt_to_phys(__kernel_end) && e > (paddr_t)__boot_start)
		return true;
	for (size_t i = 0; i < boot_info.nreserved; i++)
		if (s < boot_info.reserved[i].end && e > boot_info.reserved[i].start)
			return true;
	return false;
}

/* A home for the bitmap: usable, page aligned, below 4 GiB, unused. */
static paddr_t frame_find_storage(size_t bytes)
{
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (m->type != MEM_USABLE)
			continue;
		paddr_t s = ALIGN_UP(MAX(m->base, MiB(1)), FRAME_SIZE);
		paddr_t end = MIN(m->base + m->len, GiB(4));
		for (; s + bytes <= end; s += FRAME_SIZE)
			if (!frame_overlaps_boot(s, s + bytes))
				return s;
	}
	panic("mm: no room for the frame bitmap (%zu bytes)", bytes);
}

static void frame_count_unavailable(paddr_t end)
{
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (m->type != MEM_USABLE && m->base < end)
			frames_unavailable += (MIN(m->base + m->len, end) - m->base) / FRAME_SIZE;
	}
}

void frame_init(void)
{
	paddr_t end = frame_ram_end();
	pool_storage_size = frame_pool_storage_size(end);
	paddr_t store = frame_find_storage(pool_storage_size);

	pool_storage = phys_to_virt(store);
	frame_pool_init(&pool, pool_storage, end);
	for (size_t i = 0; i < boot_info.nmem; i++)
		if (boot_info.mem[i].type == MEM_USABLE)
			frame_pool_add(&pool, boot_info.mem[i].base, boot_info.mem[i].len);
	frame_pool_reserve(&pool, 0, MiB(1));
	frame_pool_reserve(&pool, (paddr_t)__boot_start,
			   kernel_virt_to_phys(__kernel_end) - (paddr_t)__boot_start);
	for (size_t i = 0; i < boot_info.nreserved; i++)
		frame_pool_reserve(&pool, boot_info.reserved[i].start,
				   boot_info.reserved[i].end - boot_info.reserved[i].start);
	frame_pool_reserve(&pool, store, pool_storage_size);
	frame_count_unavailable(end);
	pr_info("%lu MiB usable RAM, %lu MiB free, top of RAM %#lx",
		pool.total * FRAME_SIZE >> 20, pool.free * FRAME_SIZE >> 20, end);
}

/* Called by vm_init() once the direct map is live: the bitmap moves with it. */
void frame_rebase(uintptr_t old_offset)
{
	pool.map.words = (uint64_t *)((uintptr_t)pool.map.words - old_offset + hhdm_offset);
}

errno_t frame_alloc_contig(size_t count, size_t align, paddr_t limit, paddr_t *out)
{
	if (failinj_hit(FAILINJ_FRAME))
		return ENOMEM;
	uint64_t f = spin_lock_irqsave(&frame_lock);
	errno_t rc = frame_pool_alloc(&pool, count, align, limit, out);
	spin_unlock_irqrestore(&frame_lock, f);
	return rc;
}

errno_t frame_alloc(paddr_t *out)
{
	/* Before the direct map exists only identity-mapped frames are reachable. */
	return frame_alloc_contig(1, 1, hhdm_offset ? 0 : GiB(4), out);
}

void frame_free(paddr_t p, size_t count)
{
	uint64_t f = spin_lock_irqsave(&frame_lock);
	errno_t rc = frame_pool_free(&pool, p, count);
	spin_unlock_irqrestore(&frame_lock, f);
	if (rc != EOK)
		panic("mm: bad frame_free(%#lx, %zu)", p, count);
}

frame_stats_t frame_stats(void)
{
	uint64_t f = spin_lock_irqsave(&frame_lock);
	frame_stats_t s = {
		.total = pool.total,
		.free = pool.free,
		.used = pool.total - pool.free,
		.unavailable = frames_unavailable,
	};
	spin_unlock_irqrestore(&frame_lock, f);
	return s;
}

/* Bytes of the frame bitmap. */
size_t frame_map_bytes(void)
{
	return pool_storage_size;
}

bool frame_is_ram(paddr_t pa, size_t len)
{
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (m->type == MEM_USABLE && pa < m->base + m->len && pa + len > m->base)
			return true;
	}
	return false;
}

bool frame_in_use(paddr_t pa)
{
	uint64_t f = spin_lock_irqsave(&frame_lock);
	bool used = bitmap_test(&pool.map, pa / FRAME_SIZE);
	spin_unlock_irqrestore(&frame_lock, f);
	return used;
}
