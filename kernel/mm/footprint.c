/* The kernel's memory footprint, reported at boot (and later to monitoring). */
#include <arch/boot.h>
#include <kernel/printk.h>
#include <kernel/vm.h>

#define LOG_PREFIX "mm"

void mm_report_footprint(void)
{
	size_t image = (size_t)(__kernel_end - __kernel_start) + (size_t)(__boot_end - __boot_start);
	size_t tables = vm_table_frames() * PAGE_SIZE;
	size_t heap = heap_footprint();
	size_t stacks = kstack_pages() * PAGE_SIZE;
	size_t fmap = frame_map_bytes();
	frame_stats_t s = frame_stats();

	pr_info("kernel footprint: %zu KiB (image %zu, page tables %zu, heap %zu, stacks %zu, frame map %zu KiB)",
		(image + tables + heap + stacks + fmap) >> 10, image >> 10,
		tables >> 10, heap >> 10, stacks >> 10, fmap >> 10);
	pr_info("frames: %lu total, %lu used, %lu free, %lu unavailable",
		s.total, s.used, s.free, s.unavailable);
}
