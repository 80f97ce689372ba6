/*
 * User address spaces: page tables whose kernel half is shared, and a list
 * of regions (program image, stack, anonymous mappings). Anonymous and
 * stack pages are allocated on first touch.
 *
 *   0x0000000000400000  program image (ELF PT_LOAD segments)
 *   0x0000100000000000  SYS_MAP area
 *   0x00007fff00000000  main stack top (8 MiB, guard page below)
 *
 * Lock order: space->lock → frame lock. Never hold space->lock across a
 * user copy (the page fault handler takes it).
 */
#ifndef KERNEL_VM_SPACE_H
#define KERNEL_VM_SPACE_H

#include <abi/task.h>            /* USER_STACK_TOP, USER_STACK_SIZE */
#include <kernel/spinlock.h>
#include <kernel/types.h>
#include <lib/list.h>

#define USER_BASE 0x0000000000400000ul
#define USER_MAP_BASE 0x0000100000000000ul
#define USER_END 0x00007ffffffff000ul

#define REGION_ANY 0               /* vm_space_unmap_kind: every kind */
#define REGION_IMAGE 1
#define REGION_STACK 2
#define REGION_ANON 3
#define REGION_DEVICE 4

typedef struct vm_region {
	list_node_t node;
	uintptr_t start, end;      /* page aligned, [start, end) */
	unsigned prot;             /* PROT_* from abi/syscall.h */
	unsigned kind;
	bool dying;                /* being unmapped: no faults, range reserved */
	uintptr_t guard_end;       /* [start, guard_end) never maps (PROT_GUARD) */
} vm_region_t;

typedef struct vm_space {
	paddr_t root;
	spinlock_t lock;
	list_t regions;            /* sorted by address */
	uint64_t virt_bytes;       /* sum of region sizes (kept on add and drop) */
	uint64_t resident_pages;   /* frames mapped */
	uint32_t nregions;         /* regions in the list, dying ones too */
	uint32_t refs;             /* the task's, plus transfers in progress */
} vm_space_t;

/* Is there room for one more region in s (LIMIT_REGIONS)? Space lock held. */
bool vm_space_region_room(vm_space_t *s);
/* Regions in s (kernel/mm/vm_limit.c): O(1), a running count. */
size_t vm_space_region_count(vm_space_t *s);

/* A new space with only the kernel half mapped. NULL when out of memory. */
vm_space_t *vm_space_create(void);

/* Free every user frame, page table and region, and the space. */
void vm_space_destroy(vm_space_t *s);

/* Take / drop a reference; the last vm_space_put() destroys the space. */
void vm_space_get(vm_space_t *s);
void vm_space_put(vm_space_t *s);

/*
 * Add a region [start, start+len) with prot. EOK, EINVAL (unaligned,
 * outside user space, overlapping), ENOMEM or ELIMIT (LIMIT_REGIONS).
 */
errno_t vm_space_add_region(vm_space_t *s, uintptr_t start, size_t len,
			    unsigned prot, unsigned kind);

/*
 * SYS_MAP: a new anonymous region of len bytes; EOK and *addr. With
 * PROT_GUARD its lowest MAP_GUARD_SIZE bytes are a guard that never maps.
 */
errno_t vm_space_map_anon(vm_space_t *s, uintptr_t hint, size_t len,
			  unsigned prot, uintptr_t *addr);

/*
 * Map device memory [pa, pa+len) (never RAM) uncached into the space.
 * EOK and *addr, EINVAL, EPERM (it is RAM) or ENOMEM.
 */
errno_t vm_space_map_device(vm_space_t *s, paddr_t pa, size_t len, uintptr_t *addr);

/*
 * Map kernel-owned RAM [pa, pa+len) read-only (the initrd). The kernel
 * decides what may be shared this way; the space never frees it.
 */
errno_t vm_space_map_readonly_ram(vm_space_t *s, paddr_t pa, size_t len, uintptr_t *addr);

/*
 * SYS_UNMAP: remove the whole regions of every kind inside [addr,
 * addr+len) (vm_space_unmap_kind with REGION_ANY): anonymous memory, the
 * image, the stack, device and kernel-owned RAM (the initrd), the last
 * two unmapped but never freed.
 */
errno_t vm_space_unmap(vm_space_t *s, uintptr_t addr, size_t len);

/*
 * Remove the whole regions of kind (REGION_*, REGION_ANY: all) inside [addr, addr+len):
 * entries cleared, every CPU's TLB shot down, then the space's own frames
 * freed (device and foreign frames are only unmapped). Interrupts on, no
 * spinlock held. EOK, or EINVAL if no such region was there.
 */
errno_t vm_space_unmap_kind(vm_space_t *s, uintptr_t addr, size_t len, unsigned kind);

/*
 * TLB shootdowns since boot: rounds, pages unmapped by them, pages
 * invalidated one by one, rounds that flushed whole TLBs instead.
 */
typedef struct vm_shoot_stats {
	uint64_t rounds;
	uint64_t unmapped;
	uint64_t pages;
	uint64_t full_flushes;
} vm_shoot_stats_t;

vm_shoot_stats_t vm_shoot_stats(void);

/* Tests only: called on every CPU inside each shootdown, interrupts off. */
extern void (*vm_shoot_hook)(const uintptr_t *va, size_t n);

/*
 * Resolve a fault at addr (write/exec access): map a zero page if addr is
 * inside a region that allows the access. The frame is allocated and
 * zeroed with no lock held (interrupts as the caller left them), then
 * mapped under the space lock unless another thread mapped the page
 * first (then it is freed). EOK or EFAULT.
 */
errno_t vm_space_fault(vm_space_t *s, uintptr_t addr, bool write, bool exec);

/* Tests only: called first in every vm_space_fault(), as its caller left interrupts. */
extern void (*vm_fault_hook)(vm_space_t *s, uintptr_t addr);

/* Tests only: called first in every vm_space_destroy(), as its caller left interrupts. */
extern void (*vm_destroy_hook)(vm_space_t *s);

/*
 * A not-present fault at user address addr of the current task, from the
 * arch exception path with interrupts off and the fault address already
 * saved. With irq_on (the faulting context had interrupts on: user mode,
 * or a kernel user copy with interrupts on) the fault is resolved with
 * interrupts enabled and preemption disabled, so interrupts and timer
 * samples due meanwhile land in the fault path, not on the instruction
 * after it; returns with interrupts off again. EOK or EFAULT.
 */
errno_t vm_fault_current(uintptr_t addr, bool write, bool exec, bool irq_on);

/*
 * Copy len bytes from kernel memory src to addr in s, where s's regions
 * must allow writing (demand-zero pages are allocated). For kernel
 * threads serving a task. EOK or EFAULT.
 */
errno_t vm_space_copy_out(vm_space_t *s, uintptr_t addr, const void *src, size_t len);

/*
 * Copy len bytes into the space at addr, mapping pages as needed,
 * regardless of region protection (the loader uses it). EOK or EFAULT.
 */
errno_t vm_space_write(vm_space_t *s, uintptr_t addr, const void *src, size_t len);

/*
 * Read len bytes at addr of space s into kernel memory dst (the regions
 * must be readable; demand-zero pages are made). EOK or EFAULT.
 */
errno_t vm_space_read(vm_space_t *s, uintptr_t addr, void *dst, size_t len);

/* The calling thread's space (NULL for kernel threads). */
vm_space_t *vm_space_current(void);

/*
 * Copy between kernel and user memory of the current task, recovering
 * from bad addresses. EOK or EFAULT. Never with a spinlock held that the
 * page fault path takes.
 */
errno_t copy_from_user(void *dst, const void *usrc, size_t len);
errno_t copy_to_user(void *udst, const void *src, size_t len);
/* Copy a NUL-terminated string of at most size-1 chars: EOK, EFAULT, E2BIG. */
errno_t copy_string_from_user(char *dst, const char *usrc, size_t size);

/*
 * Move len bytes between the current task and another space (IPC data
 * transfer). Returns EOK, EFAULT if the current task's buffer is bad, EIO
 * if the other space's buffer is bad (a partial copy may remain).
 */
errno_t vm_space_copy_to_current(uintptr_t dst, vm_space_t *src_space, uintptr_t src, size_t len);
errno_t vm_space_copy_from_current(vm_space_t *dst_space, uintptr_t dst, uintptr_t src, size_t len);

/* True if [addr, addr+len) lies inside user space (no overflow). */
bool user_range_ok(uintptr_t addr, size_t len);

/*
 * Bytes of s's regions (*virt) and of the frames mapped (*resident): the
 * running totals, O(1) whatever the number of regions (sysinfo reads them
 * for every task with the task table locked).
 */
void vm_space_usage(vm_space_t *s, uint64_t *virt, uint64_t *resident);

#endif
