/*
 * Kernel stacks in their own area, in fixed slots of KSTACK_SLOT_PAGES
 * pages: a stack sits at the top of its slot and the unmapped pages below
 * it (at least one) are its guard, so an overflow faults instead of
 * corrupting the neighbour.
 *
 * A slot bitmap reuses freed ranges together with their page-table frames;
 * when every slot is taken kstack_alloc() fails with ELIMIT. Stacks are
 * zeroed whenever they are handed out, fresh or recycled, so no thread
 * finds another's leftovers on its stack.
 *
 * Freed stacks go to a small cache and are reused still mapped. Past the
 * cache's size they wait, still mapped and linked through their own first
 * word, until a caller with interrupts on drains them (kstack_free runs
 * in the scheduler with interrupts off): unmap, TLB shootdown on every
 * CPU (the mappings are global), and only then free the frames and the
 * slot.
 *
 * Lock order: kstack_lock → vm_lock → frame_lock (frames are freed outside it).
 */
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <lib/bitmap.h>
#include <lib/string.h>

#define KSTACK_SLOT_PAGES 8                       /* 32 KiB: up to 7 stack pages */
#define KSTACK_SLOTS 65536                        /* 2 GiB of the area */
#define KSTACK_CACHE_MAX 64
#define KSTACK_DRAIN_BATCH 16                     /* stacks per shootdown */

_Static_assert((uint64_t)KSTACK_SLOTS * KSTACK_SLOT_PAGES * PAGE_SIZE <= KSTACK_AREA_SIZE,
	       "kernel stack slots exceed the stack area");

typedef struct kstack_cached {
	uintptr_t top;
	size_t npages;
} kstack_cached_t;

static spinlock_t kstack_lock = SPINLOCK_INIT("kstack");
static uint64_t kstack_slot_words[KSTACK_SLOTS / 64];
static bitmap_t kstack_slots = { kstack_slot_words, KSTACK_SLOTS };
static size_t kstack_slot_limit = KSTACK_SLOTS;   /* lowered by tests only */
static size_t kstack_nslots;                      /* slots taken */
static size_t kstack_slot_hint;
static size_t kstack_inuse;                       /* pages: live, cached, pending */
static size_t kstack_nlive;                       /* stacks handed out, not freed */
static kstack_cached_t kstack_cache[KSTACK_CACHE_MAX];
static size_t kstack_cached;
static uintptr_t kstack_pending;                  /* bottom of the first waiting stack */

typedef struct kstack_pending_hdr {
	uintptr_t next;             /* bottom of the next waiting stack, or 0 */
	size_t npages;
} kstack_pending_hdr_t;

static uintptr_t kstack_slot_top(size_t slot)
{
	return KSTACK_BASE + (slot + 1) * KSTACK_SLOT_PAGES * PAGE_SIZE;
}

static size_t kstack_slot_of(uintptr_t top)
{
	return (top - KSTACK_BASE) / (KSTACK_SLOT_PAGES * PAGE_SIZE) - 1;
}

/* A free slot, marked used; SIZE_MAX when none is left. */
static size_t kstack_slot_take(void)
{
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	size_t s = SIZE_MAX;
	if (kstack_nslots < kstack_slot_limit)
		s = bitmap_find_clear(&kstack_slots, kstack_slot_hint, KSTACK_SLOTS);
	if (s == SIZE_MAX && kstack_nslots < kstack_slot_limit)
		s = bitmap_find_clear(&kstack_slots, 0, KSTACK_SLOTS);
	if (s != SIZE_MAX) {
		bitmap_set(&kstack_slots, s);
		kstack_slot_hint = s + 1;
		kstack_nslots++;
	}
	spin_unlock_irqrestore(&kstack_lock, f);
	return s;
}

static void kstack_slot_give(size_t slot)
{
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	bitmap_clear(&kstack_slots, slot);
	kstack_nslots--;
	if (slot < kstack_slot_hint)
		kstack_slot_hint = slot;
	spin_unlock_irqrestore(&kstack_lock, f);
}

/*
 * Unmap npages at va and collect their frames into pa[] (no shootdown on
 * other CPUs yet). Returns the number of frames collected.
 */
static size_t kstack_unmap(uintptr_t va, size_t npages, paddr_t *pa)
{
	size_t n = 0;

	for (size_t i = 0; i < npages; i++)
		if (vm_translate(va + i * PAGE_SIZE, &pa[n]))
			n++;
	vm_unmap(va, npages);
	return n;
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

/* Map npages fresh frames below top; on failure nothing stays mapped. */
static errno_t kstack_populate(uintptr_t top, size_t npages)
{
	uintptr_t base = top - npages * PAGE_SIZE;
	paddr_t pa[KSTACK_SLOT_PAGES];

	for (size_t i = 0; i < npages; i++) {
		paddr_t p;
		errno_t rc = frame_alloc(&p);
		if (rc == EOK && vm_map(base + i * PAGE_SIZE, p, 1, VM_WRITE | VM_GLOBAL) != EOK) {
			frame_free(p, 1);
			rc = ENOMEM;
		}
		if (rc != EOK) {
			size_t n = kstack_unmap(base, i, pa);   /* never used: no shootdown */
			for (size_t j = 0; j < n; j++)
				frame_free(pa[j], 1);
			return rc;
		}
	}
	return EOK;
}

errno_t kstack_alloc(size_t npages, uintptr_t *top)
{
	if (!npages || npages >= KSTACK_SLOT_PAGES)
		return EINVAL;
	kstack_drain();
	uintptr_t t = kstack_from_cache(npages);
	if (!t) {
		size_t slot = kstack_slot_take();
		if (slot == SIZE_MAX)
			return ELIMIT;
		t = kstack_slot_top(slot);
		errno_t rc = kstack_populate(t, npages);
		if (rc != EOK) {
			kstack_slot_give(slot);
			return rc;
		}
		__atomic_add_fetch(&kstack_inuse, npages, __ATOMIC_RELAXED);
	}
	memset((void *)(t - npages * PAGE_SIZE), 0, npages * PAGE_SIZE);
	__atomic_add_fetch(&kstack_nlive, 1, __ATOMIC_RELAXED);
	*top = t;
	return EOK;
}

size_t kstack_pages(void)
{
	return kstack_inuse;
}

void kstack_free(uintptr_t top, size_t npages)
{
	kstack_pending_hdr_t *h = (kstack_pending_hdr_t *)(top - npages * PAGE_SIZE);
	__atomic_sub_fetch(&kstack_nlive, 1, __ATOMIC_RELAXED);
	uint64_t f = spin_lock_irqsave(&kstack_lock);

	if (kstack_cached < KSTACK_CACHE_MAX) {
		kstack_cache[kstack_cached++] = (kstack_cached_t){ top, npages };
	} else {                    /* still mapped: its first words link it */
		*h = (kstack_pending_hdr_t){ kstack_pending, npages };
		kstack_pending = (uintptr_t)h;
	}
	spin_unlock_irqrestore(&kstack_lock, f);
}

/* On every CPU (smp_call_all): drop the global translations of the batch. */
static void kstack_shoot_cpu(void *arg)
{
	const uintptr_t *range = arg;   /* pairs: bottom, pages; 0-terminated */

	for (size_t i = 0; range[i]; i += 2)
		for (size_t p = 0; p < range[i + 1]; p++)
			pt_flush_local(range[i] + p * PAGE_SIZE);
}

/* Unmap, shoot down and free up to KSTACK_DRAIN_BATCH waiting stacks; false when none wait. */
static bool kstack_drain_batch(void)
{
	uintptr_t range[2 * KSTACK_DRAIN_BATCH + 1];
	paddr_t pa[KSTACK_DRAIN_BATCH * KSTACK_SLOT_PAGES];
	size_t nstacks = 0, nframes = 0, pages = 0;
	uint64_t f = spin_lock_irqsave(&kstack_lock);

	while (kstack_pending && nstacks < KSTACK_DRAIN_BATCH) {
		kstack_pending_hdr_t *h = (kstack_pending_hdr_t *)kstack_pending;
		kstack_pending = h->next;
		range[2 * nstacks] = (uintptr_t)h;
		range[2 * nstacks + 1] = h->npages;
		nstacks++;
	}
	spin_unlock_irqrestore(&kstack_lock, f);
	if (!nstacks)
		return false;
	range[2 * nstacks] = 0;
	for (size_t i = 0; i < nstacks; i++) {
		nframes += kstack_unmap(range[2 * i], range[2 * i + 1], &pa[nframes]);
		pages += range[2 * i + 1];
	}
	smp_call_all(kstack_shoot_cpu, range);
	for (size_t i = 0; i < nframes; i++)
		frame_free(pa[i], 1);
	for (size_t i = 0; i < nstacks; i++)
		kstack_slot_give(kstack_slot_of(range[2 * i] + range[2 * i + 1] * PAGE_SIZE));
	__atomic_sub_fetch(&kstack_inuse, pages, __ATOMIC_RELAXED);
	return true;
}

void kstack_drain(void)
{
	if (!__atomic_load_n(&kstack_pending, __ATOMIC_RELAXED) || !irq_enabled())
		return;
	while (kstack_drain_batch())
		;
}

size_t kstack_test_limit(size_t slots)
{
	uint64_t f = spin_lock_irqsave(&kstack_lock);
	size_t old = kstack_slot_limit;
	kstack_slot_limit = MIN(slots, (size_t)KSTACK_SLOTS);
	spin_unlock_irqrestore(&kstack_lock, f);
	return old;
}

size_t kstack_slots_used(void)
{
	return __atomic_load_n(&kstack_nslots, __ATOMIC_RELAXED);
}

/* Stacks handed out by kstack_alloc and not yet freed. */
size_t kstack_live(void)
{
	return __atomic_load_n(&kstack_nlive, __ATOMIC_RELAXED);
}
