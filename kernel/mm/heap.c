/*
 * The kernel heap: power-of-two size classes from 32 to 2048 bytes carved
 * out of single pages, and whole frames for anything larger. Every heap
 * page starts with a header, so kfree() finds it by rounding down. A small
 * page whose last object is freed goes back to the frame pool unless it is
 * its class's only partial page (one spare per class saves churn), so
 * memory a task made the kernel allocate comes back when it is freed.
 */
#include <kernel/failinj.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <lib/string.h>

#define LOG_PREFIX "heap"
#define HEAP_MAGIC 0x6b68656170ul        /* "kheap" */
#define HEAP_MIN_SHIFT 5
#define HEAP_MAX_SHIFT 11
#define HEAP_CLASSES (HEAP_MAX_SHIFT - HEAP_MIN_SHIFT + 1)
#define HEAP_HDR 64
#define HEAP_POISON 0x6b

typedef struct heap_page {
	uint64_t magic;
	uint32_t shift;          /* object size class, 0 for a large block */
	uint32_t inuse;
	size_t npages;           /* large blocks: frames in the block */
	void *free;              /* free objects of this page */
	struct heap_page *next;  /* pages of the class with free objects */
	struct heap_page *prev;  /* (doubly linked: an empty page leaves) */
} heap_page_t;

_Static_assert(sizeof(heap_page_t) <= HEAP_HDR, "heap header too big");

static heap_page_t *heap_partial[HEAP_CLASSES];
static spinlock_t heap_lock = SPINLOCK_INIT("heap");
static size_t heap_frames;
static size_t heap_live;          /* bytes of live objects */

void heap_init(void)
{
	pr_info("size classes %u..%u bytes, larger blocks in whole frames",
		1u << HEAP_MIN_SHIFT, 1u << HEAP_MAX_SHIFT);
}

static unsigned heap_shift(size_t size)
{
	unsigned s = HEAP_MIN_SHIFT;
	while ((1ul << s) < size)
		s++;
	return s;
}

static heap_page_t *heap_new_page(unsigned shift)
{
	paddr_t pa;
	if (frame_alloc(&pa) != EOK)
		return NULL;
	heap_frames++;
	heap_page_t *pg = phys_to_virt(pa);
	size_t sz = 1ul << shift;
	*pg = (heap_page_t){ .magic = HEAP_MAGIC, .shift = shift };
	for (uintptr_t o = ALIGN_UP((uintptr_t)pg + HEAP_HDR, sz);
	     o + sz <= (uintptr_t)pg + PAGE_SIZE; o += sz) {
		*(void **)o = pg->free;
		pg->free = (void *)o;
	}
	return pg;
}

static void heap_unlink(heap_page_t **head, heap_page_t *pg)
{
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		*head = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	pg->next = pg->prev = NULL;
}

static void heap_push(heap_page_t **head, heap_page_t *pg)
{
	pg->prev = NULL;
	pg->next = *head;
	if (*head)
		(*head)->prev = pg;
	*head = pg;
}

static void *heap_alloc_small(unsigned shift)
{
	heap_page_t **head = &heap_partial[shift - HEAP_MIN_SHIFT];

	if (!*head) {
		heap_page_t *pg = heap_new_page(shift);
		if (!pg)
			return NULL;
		heap_push(head, pg);
	}
	heap_page_t *pg = *head;
	void *obj = pg->free;
	pg->free = *(void **)obj;
	pg->inuse++;
	heap_live += 1ul << shift;
	if (!pg->free)
		heap_unlink(head, pg);
	return obj;
}

static void *heap_alloc_large(size_t size)
{
	size_t n = ALIGN_UP(size + HEAP_HDR, PAGE_SIZE) / PAGE_SIZE;
	paddr_t pa;

	if (frame_alloc_contig(n, 1, 0, &pa) != EOK)
		return NULL;
	heap_frames += n;
	heap_live += n * PAGE_SIZE;
	heap_page_t *pg = phys_to_virt(pa);
	*pg = (heap_page_t){ .magic = HEAP_MAGIC, .npages = n, .inuse = 1 };
	return (char *)pg + HEAP_HDR;
}

void *kmalloc(size_t size)
{
	if (size == 0 || size > GiB(1) || failinj_hit(FAILINJ_SLAB))
		return NULL;
	uint64_t f = spin_lock_irqsave(&heap_lock);
	void *p = size <= (1ul << HEAP_MAX_SHIFT) ? heap_alloc_small(heap_shift(size))
						   : heap_alloc_large(size);
	spin_unlock_irqrestore(&heap_lock, f);
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

static void heap_free_small(heap_page_t *pg, void *p)
{
	heap_page_t **head = &heap_partial[pg->shift - HEAP_MIN_SHIFT];

	memset(p, HEAP_POISON, 1ul << pg->shift);   /* use-after-free shows */
	if (!pg->free)            /* was full: back on the partial list */
		heap_push(head, pg);
	*(void **)p = pg->free;
	pg->free = p;
	pg->inuse--;
	heap_live -= 1ul << pg->shift;
	if (pg->inuse == 0 && (pg->next || pg->prev)) {   /* empty, not the only one */
		heap_unlink(head, pg);
		pg->magic = 0;
		heap_frames--;
		frame_free(hhdm_to_phys(pg), 1);
	}
}

/*
 * Free a whole-frames object: poisoned before the lock is taken (its
 * owner is done with it, no one else reaches it), so a large object
 * costs no interrupts-off time in proportion to its size.
 */
static void heap_free_large(heap_page_t *pg)
{
	size_t n = pg->npages;

	memset(pg, HEAP_POISON, n * PAGE_SIZE);   /* use-after-free shows */
	uint64_t f = spin_lock_irqsave(&heap_lock);
	heap_frames -= n;
	heap_live -= n * PAGE_SIZE;
	spin_unlock_irqrestore(&heap_lock, f);
	frame_free(hhdm_to_phys(pg), n);
}

void kfree(void *p)
{
	if (!p)
		return;
	heap_page_t *pg = (heap_page_t *)ALIGN_DOWN((uintptr_t)p, PAGE_SIZE);
	if (pg->magic != HEAP_MAGIC || pg->inuse == 0)
		panic("heap: kfree(%p): not a live heap object", p);
	if (!pg->shift) {
		heap_free_large(pg);
		return;
	}
	uint64_t f = spin_lock_irqsave(&heap_lock);
	heap_free_small(pg, p);
	spin_unlock_irqrestore(&heap_lock, f);
}

size_t heap_footprint(void)
{
	return heap_frames * PAGE_SIZE;
}

/* Bytes of live objects (each rounded to its size class). */
size_t heap_live_bytes(void)
{
	return __atomic_load_n(&heap_live, __ATOMIC_RELAXED);
}

/* The bytes kmalloc reserved for live object p (its size class or blocks). */
size_t kmalloc_size(const void *p)
{
	const heap_page_t *pg = (const heap_page_t *)ALIGN_DOWN((uintptr_t)p, PAGE_SIZE);

	return pg->shift ? 1ul << pg->shift : pg->npages * PAGE_SIZE;
}
