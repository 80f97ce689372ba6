/*
 * Kernel memory: physical frames, kernel page tables, the heap and kernel
 * stacks. Lock order: vm_lock (page tables) → frame_lock.
 */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <arch/mm.h>
#include <kernel/types.h>

/* Mapping flags (generic; the arch translates them). */
#define VM_WRITE (1u << 0)
#define VM_EXEC (1u << 1)
#define VM_USER (1u << 2)
#define VM_NOCACHE (1u << 3)
#define VM_GLOBAL (1u << 4)
#define VM_DEVICE (1u << 5)   /* not owned by the space: never freed with it */

typedef struct frame_stats {
	uint64_t total;        /* usable RAM frames */
	uint64_t free;
	uint64_t used;
	uint64_t unavailable;  /* reserved/firmware frames below the top of RAM */
} frame_stats_t;

/* Offset of the direct map; 0 (identity) until vm_init() switches tables. */
extern uintptr_t hhdm_offset;

static inline void *phys_to_virt(paddr_t p)
{
	return (void *)(uintptr_t)(p + hhdm_offset);
}

static inline paddr_t hhdm_to_phys(const void *v)
{
	return (paddr_t)((uintptr_t)v - hhdm_offset);
}

/* Build the frame allocator from boot_info's memory map. */
void frame_init(void);
/* One frame; EOK and *out, or ENOMEM. Any context but NMI. */
errno_t frame_alloc(paddr_t *out);
/* count contiguous frames aligned to align frames, below limit (0: any). */
errno_t frame_alloc_contig(size_t count, size_t align, paddr_t limit, paddr_t *out);
/* Give frames back; panics on a double free (kernel bug). */
void frame_free(paddr_t p, size_t count);
/* True if the frame at pa is allocated or reserved (not free). For tests. */
bool frame_in_use(paddr_t pa);
/* True if any frame of [pa, pa+len) is usable RAM. */
bool frame_is_ram(paddr_t pa, size_t len);
/* Current counts, for monitoring and tests. */
frame_stats_t frame_stats(void);

/*
 * Build the kernel page tables (direct map of RAM, the kernel image with
 * per-section permissions, nothing at low addresses) and switch to them.
 */
void vm_init(void);
/* Physical address of the kernel top-level table, for other CPUs. */
paddr_t vm_kernel_root(void);
/* Load the kernel page tables on this CPU. */
void vm_activate(void);
/* Map npages 4 KiB pages at va → pa with VM_* flags. EOK, ENOMEM, EEXIST. */
errno_t vm_map(uintptr_t va, paddr_t pa, size_t npages, unsigned flags);
/* Unmap npages at va on this CPU (no shootdown yet: boot-time use only). */
void vm_unmap(uintptr_t va, size_t npages);
/* Translate a kernel virtual address; false if unmapped. */
bool vm_translate(uintptr_t va, paddr_t *pa);
/* True if [va, va+len) is mapped kernel memory (safe to read). */
bool vm_kernel_readable(uintptr_t va, size_t len);
/* Map MMIO [pa, pa+len) uncached in the direct map; returns its address or NULL. */
void *vm_map_mmio(paddr_t pa, size_t len);
/* What a walk of the kernel half of the page tables found. */
typedef struct vm_audit {
	size_t leaves;          /* mappings (4 KiB, 2 MiB or 1 GiB) */
	size_t wx;              /* writable and executable */
	size_t text_aliases;    /* writable mappings of kernel text or rodata frames */
} vm_audit_t;

/* Walk every kernel mapping (takes vm_lock; MMIO may be mapped meanwhile). */
vm_audit_t vm_audit_kernel(void);
/* Frames used by kernel page tables. */
size_t vm_table_frames(void);

/* Heap. Returns NULL when out of memory. */
void heap_init(void);
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);
/* Bytes of frames the heap holds. */
size_t heap_footprint(void);
/* Bytes of live kmalloc objects (rounded to their size class). */
size_t heap_live_bytes(void);
/* The bytes kmalloc reserved for the live object p. */
size_t kmalloc_size(const void *p);

/*
 * Allocate a zeroed kernel stack of npages (1-7) with unmapped guard pages
 * below it, reusing freed stack ranges. Returns EOK and the stack's top
 * (initial stack pointer) in *top; EINVAL, ENOMEM, or ELIMIT when the
 * stack area is full.
 */
errno_t kstack_alloc(size_t npages, uintptr_t *top);
/* Give a stack back (cached, or queued for kstack_drain). Any context but NMI. */
void kstack_free(uintptr_t top, size_t npages);
/*
 * Release the queued stacks: unmap, shoot down on every CPU, free frames
 * and ranges. No spinlock held; does nothing with interrupts off.
 */
void kstack_drain(void);
/* Pages in use by kernel stacks (cached and queued ones included). */
size_t kstack_pages(void);
/* Slots (stack ranges) taken. */
size_t kstack_slots_used(void);
/* Tests only: allow at most slots ranges; returns the previous limit. */
size_t kstack_test_limit(size_t slots);
/* Kernel stacks handed out and not freed (cached ones not counted). */
size_t kstack_live(void);

/* Internal to mm: move the frame bitmap into the direct map; bitmap bytes. */
void frame_rebase(uintptr_t old_offset);
size_t frame_map_bytes(void);

/* Print "mm: kernel footprint: ..." */
void mm_report_footprint(void);

/*
 * Page tables of user address spaces (arch). Roots come with the kernel
 * half already shared. Not locked: callers hold their space's lock.
 */
errno_t pt_new_root(paddr_t *root);
errno_t pt_map(paddr_t root, uintptr_t va, paddr_t pa, unsigned flags);
/* Unmap va; returns true and the frame if it was mapped. */
bool pt_unmap(paddr_t root, uintptr_t va, paddr_t *pa);
/* True if va is mapped; *pa and *flags (VM_*) describe the mapping. */
bool pt_query(paddr_t root, uintptr_t va, paddr_t *pa, unsigned *flags);
/* Free every user-half frame and table, then the root. */
void pt_destroy(paddr_t root);
/* Fix a kernel-half fault in a user space whose top table lacks a newer kernel entry. */
bool vm_sync_kernel_half(uintptr_t va);
/*
 * Clear the entry of the first mapped page in [*va, end) (absent tables
 * are skipped whole, each entry looked at costs one of *budget): true with
 * its address, frame and VM_* flags (VM_DEVICE: not the space's frame).
 * *va moves past what was looked at; false when it reached end or the
 * budget ran out.
 */
bool pt_unmap_next(paddr_t root, uintptr_t *va, uintptr_t end, size_t *budget,
		   uintptr_t *at, paddr_t *pa, unsigned *flags);
/* Flush va from this CPU's TLB. */
void pt_flush_local(uintptr_t va);
/* Flush every non-global translation from this CPU's TLB. */
void pt_flush_local_all(void);

/*
 * Copy n bytes between kernel and user memory (arch, with fault recovery).
 * Returns 0, or nonzero if a user page could not be mapped.
 */
int arch_copy_user(void *dst, const void *src, size_t n);

#endif
