/*
 * Kernel stacks in their own area, each above an unmapped guard page so an
 * overflow faults instead of corrupting the neighbour.
 *
 * Freed thread stacks go to a small cache and are reused as they are, still
 * mapped: no other CPU can hold a stale translation for them. Past the
 * cache's size, a freed stack's frames go back to the allocator and its
 * virtual range is never used again, so stale TLB entries elsewhere are
 * harmless.
 */
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>

static uintptr_t kstack_next = KSTACK_BASE;
static spinlock_t kstack_lock = SPINLOCK_INIT("kstack");
static size_t kstack_inuse;
static size_t kstack_nlive;          /* stacks handed out, not freed */

#define KSTACK_CACHE_MAX 64

typedef struct kstack_cached {
	uintptr_t top;
	size_t npages;
} kstack_cached_t;

static kstack_cached_t kstack_cache[KSTACK_CACHE_MAX];
static size_t kstack_cached;

static void kstack_release(uintptr_t va, size_t mapped)
{
	for (size_t i = 0; i < mapped; i++) {
		paddr_t pa;
		if (vm_translate(va + i * PAGE_SIZE, &pa))
			frame_free(pa, 1);
	}
	vm_unmap(va, mapped);
}

/* A cached stack of npages, or 0. */
static uintptr_t kstack_from_cache(size_t npages)
{
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	uintptr_t top = 0;

	for (size_t i = 0; i < kstack_cached; i++) {
		if (kstack_cache[i].npages != npages)
			continue;
		top = kstack_cache[i].top;
		kstack_cache[i] = kstack_cache[--kstack_cached];
		break;
	}
	spin_unlock_irqrestore(&kstack_lock, f);
	return top;
}

errno_t kstack_alloc(size_t npages, uintptr_t *top)
{
	uintptr_t cached = kstack_from_cache(npages);
	if (cached) {
		__atomic_add_fetch(&kstack_nlive, 1, __ATOMIC_RELAXED);
		*top = cached;
		return EOK;
	}
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	uintptr_t base = kstack_next + PAGE_SIZE;   /* guard page first */
	kstack_next = base + npages * PAGE_SIZE;
	spin_unlock_irqrestore(&kstack_lock, f);

	for (size_t i = 0; i < npages; i++) {
		paddr_t pa;
		if (frame_alloc(&pa) != EOK) {
			kstack_release(base, i);
			return ENOMEM;
		}
		if (vm_map(base + i * PAGE_SIZE, pa, 1, VM_WRITE | VM_GLOBAL) != EOK) {
			frame_free(pa, 1);
			kstack_release(base, i);
			return ENOMEM;
		}
	}
	__atomic_add_fetch(&kstack_inuse, npages, __ATOMIC_RELAXED);
	__atomic_add_fetch(&kstack_nlive, 1, __ATOMIC_RELAXED);
	*top = base + npages * PAGE_SIZE;
	return EOK;
}

size_t kstack_pages(void)
{
	return kstack_inuse;
}

void kstack_free(uintptr_t top, size_t npages)
{
	__atomic_sub_fetch(&kstack_nlive, 1, __ATOMIC_RELAXED);
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	if (kstack_cached < KSTACK_CACHE_MAX) {
		kstack_cache[kstack_cached++] = (kstack_cached_t){ top, npages };
		spin_unlock_irqrestore(&kstack_lock, f);
		return;
	}
	spin_unlock_irqrestore(&kstack_lock, f);
	kstack_release(top - npages * PAGE_SIZE, npages);
	__atomic_sub_fetch(&kstack_inuse, npages, __ATOMIC_RELAXED);
}

/* Stacks handed out by kstack_alloc and not yet freed. */
size_t kstack_live(void)
{
	return __atomic_load_n(&kstack_nlive, __ATOMIC_RELAXED);
}
