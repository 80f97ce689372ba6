/*
 * Kernel stacks in their own area, each above an unmapped guard page so an
 * overflow faults instead of corrupting the neighbour.
 */
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>

static uintptr_t kstack_next = KSTACK_BASE;
static spinlock_t kstack_lock = SPINLOCK_INIT("kstack");
static size_t kstack_inuse;

static void kstack_release(uintptr_t va, size_t mapped)
{
	for (size_t i = 0; i < mapped; i++) {
		paddr_t pa;
		if (vm_translate(va + i * PAGE_SIZE, &pa))
			frame_free(pa, 1);
	}
	vm_unmap(va, mapped);
}

errno_t kstack_alloc(size_t npages, uintptr_t *top)
{
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
	*top = base + npages * PAGE_SIZE;
	return EOK;
}

size_t kstack_pages(void)
{
	return kstack_inuse;
}
