/*
 * The per-task bound on memory regions (LIMIT_REGIONS): every region is
 * a kernel allocation a task can ask for with SYS_MAP, so their number is
 * capped. The space keeps a running count (vm_space_t.nregions, changed
 * where a region is inserted or dropped), so neither the check nor the
 * count that sysinfo reports for every task walks the list.
 */
#include <abi/limits.h>
#include <kernel/vm_space.h>

bool vm_space_region_room(vm_space_t *s)
{
	return s->nregions < LIMIT_REGIONS;
}

size_t vm_space_region_count(vm_space_t *s)
{
	return __atomic_load_n(&s->nregions, __ATOMIC_RELAXED);
}
