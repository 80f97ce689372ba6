/*
 * The per-task bound on memory regions (LIMIT_REGIONS): every region is
 * a kernel allocation a task can ask for with SYS_MAP, so their number is
 * capped. Counting walks the region list, which every insertion walks
 * anyway, so the limit needs no counter kept in step with the unmap paths.
 */
#include <abi/limits.h>
#include <kernel/vm_space.h>

/* Regions of s. Space lock held. */
static size_t vm_regions_locked(vm_space_t *s)
{
	size_t n = 0;

	list_foreach(&s->regions, it)
		n++;
	return n;
}

bool vm_space_region_room(vm_space_t *s)
{
	return vm_regions_locked(s) < LIMIT_REGIONS;
}

size_t vm_space_region_count(vm_space_t *s)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	size_t n = vm_regions_locked(s);

	spin_unlock_irqrestore(&s->lock, f);
	return n;
}
