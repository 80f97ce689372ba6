/*
 * The kernel's memory footprint, reported at boot and to monitoring
 * (sysinfo system.physmem and system.memory).
 */
#include <abi/sysinfo.h>
#include <arch/boot.h>
#include <kernel/binary.h>
#include <kernel/cprof.h>
#include <kernel/printk.h>
#include <kernel/sysinfo.h>
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

/* system.physmem: the frame pool in bytes. */
static errno_t mm_si_physmem(si_buf_t *b, uint64_t arg)
{
	frame_stats_t st = frame_stats();
	sysinfo_physmem_t r = {
		.total = st.total * PAGE_SIZE, .unavailable = st.unavailable * PAGE_SIZE,
		.used = st.used * PAGE_SIZE, .free = st.free * PAGE_SIZE,
	};

	return si_put(b, &r, sizeof(r));
}

/* system.memory: the kernel's memory counters (vfuzz's leak check). */
static errno_t mm_si_memory(si_buf_t *b, uint64_t arg)
{
	sysinfo_memory_t r = {
		.frames_free = frame_stats().free, .heap_frames = heap_footprint() / PAGE_SIZE,
		.heap_live = heap_live_bytes(),
		.heap_cached = cprof_kept_heap_bytes() + binary_cache_bytes(),
		.kstacks = kstack_live(), .kstack_frames = kstack_pages(),
		.table_frames = vm_table_frames(),
	};

	return si_put(b, &r, sizeof(r));
}

SYSINFO_DATA_NODE(physmem, "system.physmem", 170, mm_si_physmem);
SYSINFO_DATA_NODE(memory, "system.memory", 270, mm_si_memory);
