/* User address spaces: regions, demand-zero faults, the loader's writes. */
#include <kernel/failinj.h>
#include <abi/syscall.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/task.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

bool user_range_ok(uintptr_t addr, size_t len)
{
	return addr >= PAGE_SIZE && addr + len >= addr && addr + len <= USER_END;
}

vm_space_t *vm_space_create(void)
{
	vm_space_t *s = kzalloc(sizeof(*s));

	if (!s)
		return NULL;
	if (pt_new_root(&s->root) != EOK) {
		kfree(s);
		return NULL;
	}
	s->lock = (spinlock_t)SPINLOCK_INIT("vm_space");
	list_init(&s->regions);
	s->refs = 1;
	return s;
}

void vm_space_get(vm_space_t *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

void vm_space_put(vm_space_t *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		vm_space_destroy(s);
}

void (*vm_destroy_hook)(vm_space_t *s);

void vm_space_destroy(vm_space_t *s)
{
	void (*hook)(vm_space_t *) = __atomic_load_n(&vm_destroy_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(s);
	list_foreach_safe(&s->regions, it, tmp) {
		list_remove(it);
		kfree(list_entry(it, vm_region_t, node));
	}
	pt_destroy(s->root);
	kfree(s);
}

/* The live region holding addr (a dying one is being unmapped: none). */
static vm_region_t *vm_find_region(vm_space_t *s, uintptr_t addr)
{
	list_foreach(&s->regions, it) {
		vm_region_t *r = list_entry(it, vm_region_t, node);
		if (addr >= r->guard_end && addr < r->end && !r->dying)
			return r;
	}
	return NULL;
}

/* Does [start, end) overlap a region? The list is sorted: stop past end. */
static bool vm_overlaps(vm_space_t *s, uintptr_t start, uintptr_t end)
{
	list_foreach(&s->regions, it) {
		vm_region_t *r = list_entry(it, vm_region_t, node);
		if (r->start >= end)
			break;
		if (start < r->end)
			return true;
	}
	return false;
}

/* Insert keeping address order. Space lock held. */
static void vm_insert_region(vm_space_t *s, vm_region_t *r)
{
	list_node_t *pos = &s->regions;
	list_foreach(&s->regions, it) {
		if (list_entry(it, vm_region_t, node)->start > r->start)
			break;
		pos = it;
	}
	list_insert_after(pos, &r->node);
	s->virt_bytes += r->end - r->start;
	s->nregions++;
}

static errno_t vm_add_locked(vm_space_t *s, uintptr_t start, size_t len,
			     unsigned prot, unsigned kind)
{
	if ((start | len) & (PAGE_SIZE - 1) || !len || !user_range_ok(start, len))
		return EINVAL;
	if (vm_overlaps(s, start, start + len))
		return EINVAL;
	if (!vm_space_region_room(s))
		return ELIMIT;
	vm_region_t *r = kzalloc(sizeof(*r));
	if (!r)
		return ENOMEM;
	*r = (vm_region_t){ .start = start, .end = start + len, .prot = prot & ~PROT_GUARD,
			    .kind = kind, .guard_end = start };
	if (prot & PROT_GUARD)
		r->guard_end = start + MAP_GUARD_SIZE;
	vm_insert_region(s, r);
	return EOK;
}

errno_t vm_space_add_region(vm_space_t *s, uintptr_t start, size_t len,
			    unsigned prot, unsigned kind)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	errno_t rc = vm_add_locked(s, start, len, prot, kind);
	spin_unlock_irqrestore(&s->lock, f);
	return rc;
}

/* First gap of len bytes at or above base (regions are sorted). */
static uintptr_t vm_find_gap(vm_space_t *s, uintptr_t base, size_t len)
{
	uintptr_t addr = base;
	list_foreach(&s->regions, it) {
		vm_region_t *r = list_entry(it, vm_region_t, node);
		if (r->end <= addr)
			continue;
		if (r->start >= addr + len + PAGE_SIZE)   /* keep a guard gap */
			break;
		addr = r->end + PAGE_SIZE;
	}
	return addr + len <= USER_STACK_TOP - USER_STACK_SIZE - PAGE_SIZE ? addr : 0;
}

errno_t vm_space_map_anon(vm_space_t *s, uintptr_t hint, size_t len,
			  unsigned prot, uintptr_t *addr)
{
	if (!len || len > GiB(64) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GUARD)))
		return EINVAL;
	if ((prot & PROT_GUARD) && len <= MAP_GUARD_SIZE)
		return EINVAL;
	if ((prot & PROT_WRITE) && (prot & PROT_EXEC))
		return EINVAL;              /* W^X in user space too */
	len = ALIGN_UP(len, PAGE_SIZE);
	uint64_t f = spin_lock_irqsave(&s->lock);
	bool hint_ok = hint && !(hint & (PAGE_SIZE - 1)) && hint >= USER_MAP_BASE &&
		       hint < USER_STACK_TOP - USER_STACK_SIZE;
	uintptr_t base = hint_ok ? hint : USER_MAP_BASE;   /* bad hints are ignored */
	uintptr_t at = vm_find_gap(s, base, len);
	errno_t rc = at ? vm_add_locked(s, at, len, prot, REGION_ANON) : ENOMEM;
	spin_unlock_irqrestore(&s->lock, f);
	if (rc == EOK)
		*addr = at;
	return rc;
}

/* Map physical [pa, pa+len) that the space does not own (never freed by it). */
static errno_t vm_space_map_foreign(vm_space_t *s, paddr_t pa, size_t len, bool writable,
				    unsigned extra, uintptr_t *addr)
{
	paddr_t start = ALIGN_DOWN(pa, PAGE_SIZE);
	size_t size = ALIGN_UP(pa + len, PAGE_SIZE) - start;
	unsigned prot = PROT_READ | (writable ? PROT_WRITE : 0);
	unsigned flags = VM_USER | VM_DEVICE | (writable ? VM_WRITE : 0) | extra;

	if (!len || len > GiB(1) || pa + len < pa)
		return EINVAL;
	uint64_t f = spin_lock_irqsave(&s->lock);
	uintptr_t at = vm_find_gap(s, USER_MAP_BASE, size);
	errno_t rc = at ? vm_add_locked(s, at, size, prot, REGION_DEVICE) : ENOMEM;
	for (size_t off = 0; rc == EOK && off < size; off += PAGE_SIZE)
		rc = pt_map(s->root, at + off, start + off, flags);
	spin_unlock_irqrestore(&s->lock, f);
	if (rc == EOK)
		*addr = at + (pa - start);
	return rc;
}

errno_t vm_space_map_device(vm_space_t *s, paddr_t pa, size_t len, uintptr_t *addr)
{
	if (len && frame_is_ram(ALIGN_DOWN(pa, PAGE_SIZE), ALIGN_UP(pa + len, PAGE_SIZE) - ALIGN_DOWN(pa, PAGE_SIZE)))
		return EPERM;
	return vm_space_map_foreign(s, pa, len, true, VM_NOCACHE, addr);
}

errno_t vm_space_map_readonly_ram(vm_space_t *s, paddr_t pa, size_t len, uintptr_t *addr)
{
	return vm_space_map_foreign(s, pa, len, false, 0, addr);
}

/* ------------------------------------------------------------ unmapping */

/*
 * Frames leave an address space in this order: their entries are cleared
 * (space lock held), every CPU drops its translations (shootdown, lock
 * dropped, interrupts on), and only then are the frames freed. A batch
 * holds at most VM_BATCH pages, so no CPU spends long with interrupts off
 * whatever length the caller asked for; past VM_FLUSH_PAGES pages a CPU
 * flushes its whole TLB instead of invalidating page by page.
 */
#define VM_BATCH 64
#define VM_FLUSH_PAGES 16
#define VM_SCAN_BUDGET 4096         /* page-table entries looked at per lock hold */

typedef struct vm_batch {
	size_t n;                   /* pages unmapped */
	uintptr_t va[VM_BATCH];
	paddr_t pa[VM_BATCH];
	bool owned[VM_BATCH];       /* the space's frame (not device, not foreign) */
} vm_batch_t;

static vm_shoot_stats_t shoot_stats;
void (*vm_shoot_hook)(const uintptr_t *va, size_t n);

/* On each CPU (smp_call_all, interrupts off): drop the batch's translations. */
static void vm_shoot_cpu(void *arg)
{
	const vm_batch_t *b = arg;

	if (b->n > VM_FLUSH_PAGES)
		pt_flush_local_all();
	else
		for (size_t i = 0; i < b->n; i++)
			pt_flush_local(b->va[i]);
	void (*hook)(const uintptr_t *, size_t) = __atomic_load_n(&vm_shoot_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(b->va, b->n);
}

/* Shoot the batch down on every CPU, then free its frames. Interrupts on, no lock held. */
static void vm_batch_finish(vm_batch_t *b)
{
	if (!b->n)
		return;
	smp_call_all(vm_shoot_cpu, b);
	__atomic_add_fetch(&shoot_stats.rounds, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&shoot_stats.unmapped, b->n, __ATOMIC_RELAXED);
	if (b->n > VM_FLUSH_PAGES)
		__atomic_add_fetch(&shoot_stats.full_flushes, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&shoot_stats.pages, b->n, __ATOMIC_RELAXED);
	for (size_t i = 0; i < b->n; i++)
		if (b->owned[i])
			frame_free(b->pa[i], 1);
	b->n = 0;
}

/*
 * Clear the entries of up to VM_BATCH mapped pages of [*cursor, end) into b,
 * advancing *cursor. Space lock held; the walk skips absent tables and
 * looks at no more than VM_SCAN_BUDGET entries, so its cost follows what
 * is mapped, never the length, and stays bounded with interrupts off.
 */
static void vm_batch_collect(vm_space_t *s, uintptr_t *cursor, uintptr_t end, vm_batch_t *b)
{
	size_t budget = VM_SCAN_BUDGET;

	while (b->n < VM_BATCH && *cursor < end) {
		size_t i = b->n;
		unsigned flags;
		if (!pt_unmap_next(s->root, cursor, end, &budget, &b->va[i], &b->pa[i], &flags))
			break;
		b->owned[i] = !(flags & VM_DEVICE);
		if (b->owned[i])
			s->resident_pages--;
		b->n++;
	}
}

/*
 * Unmap every page of [start, end), shooting down and freeing batch by
 * batch. The range must be unreachable for faults meanwhile (a dying
 * region). Interrupts on, space lock not held.
 */
static void vm_release_pages(vm_space_t *s, uintptr_t start, uintptr_t end)
{
	vm_batch_t b = { .n = 0 };
	uintptr_t cursor = start;

	while (cursor < end) {
		uint64_t f = spin_lock_irqsave(&s->lock);
		vm_batch_collect(s, &cursor, end, &b);
		spin_unlock_irqrestore(&s->lock, f);
		vm_batch_finish(&b);
	}
}

/*
 * The first live region of kind (REGION_ANY: any) inside [addr, end),
 * marked dying; or NULL. Lock held.
 */
static vm_region_t *vm_claim_region(vm_space_t *s, uintptr_t addr, uintptr_t end, unsigned kind)
{
	list_foreach(&s->regions, it) {
		vm_region_t *r = list_entry(it, vm_region_t, node);
		if ((kind != REGION_ANY && r->kind != kind) || r->dying ||
		    r->start < addr || r->end > end)
			continue;
		r->dying = true;            /* faults and copies now miss it */
		return r;
	}
	return NULL;
}

static void vm_drop_region(vm_space_t *s, vm_region_t *r)
{
	uint64_t f = spin_lock_irqsave(&s->lock);
	s->virt_bytes -= r->end - r->start;
	s->nregions--;
	list_remove(&r->node);
	spin_unlock_irqrestore(&s->lock, f);
	kfree(r);
}

errno_t vm_space_unmap_kind(vm_space_t *s, uintptr_t addr, size_t len, unsigned kind)
{
	if (addr & (PAGE_SIZE - 1) || !len || !user_range_ok(addr, len))
		return EINVAL;
	uintptr_t end = addr + ALIGN_UP(len, PAGE_SIZE);
	size_t removed = 0;
	for (;;) {
		uint64_t f = spin_lock_irqsave(&s->lock);
		vm_region_t *r = vm_claim_region(s, addr, end, kind);
		spin_unlock_irqrestore(&s->lock, f);
		if (!r)
			break;
		vm_release_pages(s, r->start, r->end);
		vm_drop_region(s, r);      /* its range is free again only now */
		removed++;
	}
	return removed ? EOK : EINVAL;
}

errno_t vm_space_unmap(vm_space_t *s, uintptr_t addr, size_t len)
{
	return vm_space_unmap_kind(s, addr, len, REGION_ANY);
}

vm_shoot_stats_t vm_shoot_stats(void)
{
	vm_shoot_stats_t st;
	st.rounds = __atomic_load_n(&shoot_stats.rounds, __ATOMIC_RELAXED);
	st.unmapped = __atomic_load_n(&shoot_stats.unmapped, __ATOMIC_RELAXED);
	st.pages = __atomic_load_n(&shoot_stats.pages, __ATOMIC_RELAXED);
	st.full_flushes = __atomic_load_n(&shoot_stats.full_flushes, __ATOMIC_RELAXED);
	return st;
}

static unsigned vm_prot_flags(unsigned prot)
{
	return VM_USER | ((prot & PROT_WRITE) ? VM_WRITE : 0) |
	       ((prot & PROT_EXEC) ? VM_EXEC : 0);
}

/*
 * What an access asks of a region: VM_ACC_WRITE / VM_ACC_EXEC as a fault
 * reports them (x86 semantics, vm_prot_allows), or with VM_ACC_COPY a
 * kernel copy (reads need PROT_READ), or VM_ACC_ANY (the loader: any
 * protection).
 */
#define VM_ACC_WRITE 1u
#define VM_ACC_EXEC 2u
#define VM_ACC_COPY 4u
#define VM_ACC_ANY 8u

/*
 * May a fault with this access map a page? Writes need PROT_WRITE, fetches
 * PROT_EXEC, reads any protection bit (x86 cannot map write- or exec-only
 * pages unreadable): PROT_NONE allows nothing.
 */
static bool vm_prot_allows(unsigned prot, bool write, bool exec)
{
	if (write)
		return prot & PROT_WRITE;
	if (exec)
		return prot & PROT_EXEC;
	return prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
}

static bool vm_access_ok(unsigned prot, unsigned acc)
{
	if (acc & VM_ACC_ANY)
		return true;
	if (acc & VM_ACC_COPY)
		return prot & ((acc & VM_ACC_WRITE) ? PROT_WRITE : PROT_READ);
	return vm_prot_allows(prot, acc & VM_ACC_WRITE, acc & VM_ACC_EXEC);
}

/*
 * Page va's frame for access acc into *pa, with the space lock held. A page
 * not mapped yet gets *fresh (which becomes 0); without one: EAGAIN. EFAULT
 * if no live region allows acc, ENOMEM if a page table cannot be made.
 */
static errno_t vm_page_locked(vm_space_t *s, uintptr_t va, unsigned acc, paddr_t *fresh,
			      paddr_t *pa)
{
	vm_region_t *r = vm_find_region(s, va);
	unsigned flags;

	if (!r || !vm_access_ok(r->prot, acc))
		return EFAULT;
	if (pt_query(s->root, va, pa, &flags))
		return EOK;              /* mapped already, maybe by another thread */
	if (!*fresh)
		return EAGAIN;
	errno_t rc = pt_map(s->root, va, *fresh, vm_prot_flags(r->prot));
	if (rc != EOK)
		return rc;
	*pa = *fresh;
	*fresh = 0;
	s->resident_pages++;
	return EOK;
}

/* A zeroed frame into *pa. No lock held: interrupts as the caller has them. */
static errno_t vm_frame_zeroed(paddr_t *pa)
{
	errno_t rc = frame_alloc(pa);

	if (rc == EOK)
		memset(phys_to_virt(*pa), 0, PAGE_SIZE);
	return rc;
}

/*
 * Lock s with page va mapped for access acc: EOK with the lock held (*irq
 * for spin_unlock_irqrestore) and the frame in *pa. A page without a
 * frame gets a zeroed one, allocated and cleared with the lock dropped (so
 * with interrupts as the caller has them); if another thread mapped the
 * page meanwhile, that frame wins and ours is freed. EFAULT (no region
 * allows acc, out of memory) without the lock.
 */
static errno_t vm_page_lock(vm_space_t *s, uintptr_t va, unsigned acc, paddr_t *pa,
			    uint64_t *irq)
{
	paddr_t fresh = 0;
	errno_t rc;

	for (;;) {
		*irq = spin_lock_irqsave(&s->lock);
		rc = vm_page_locked(s, va, acc, &fresh, pa);
		if (rc != EAGAIN)
			break;
		spin_unlock_irqrestore(&s->lock, *irq);
		if (vm_frame_zeroed(&fresh) != EOK)
			return EFAULT;
	}
	if (rc != EOK)
		spin_unlock_irqrestore(&s->lock, *irq);
	if (fresh)
		frame_free(fresh, 1);    /* space lock → frame lock is the order */
	return rc == EOK ? EOK : EFAULT;
}

void (*vm_fault_hook)(vm_space_t *s, uintptr_t addr);

errno_t vm_space_fault(vm_space_t *s, uintptr_t addr, bool write, bool exec)
{
	void (*hook)(vm_space_t *, uintptr_t) = __atomic_load_n(&vm_fault_hook, __ATOMIC_ACQUIRE);
	unsigned acc = (write ? VM_ACC_WRITE : 0) | (exec ? VM_ACC_EXEC : 0);
	paddr_t pa;
	uint64_t f;

	if (hook)
		hook(s, addr);
	if (vm_page_lock(s, ALIGN_DOWN(addr, PAGE_SIZE), acc, &pa, &f) != EOK)
		return EFAULT;
	spin_unlock_irqrestore(&s->lock, f);
	return EOK;
}

errno_t vm_fault_current(uintptr_t addr, bool write, bool exec, bool irq_on)
{
	vm_space_t *s = vm_space_current();
	errno_t rc;

	if (!s)
		return EFAULT;
	if (!irq_on)
		return vm_space_fault(s, addr, write, exec);
	preempt_disable();          /* the exception's accounting stays on this CPU */
	irq_enable();
	rc = vm_space_fault(s, addr, write, exec);
	irq_disable();
	preempt_enable();
	return rc;
}

/*
 * Copy between kernel memory and a space's user memory (write: into the
 * space), allocating demand-zero pages; acc says what the regions must
 * allow (VM_ACC_COPY or VM_ACC_ANY, with VM_ACC_WRITE). Page by page, the
 * space lock held for one page's copy at a time, so interrupts come
 * between pages whatever the length. EOK or EFAULT.
 */
static errno_t vm_space_access(vm_space_t *s, uintptr_t addr, void *buf, size_t len,
			       unsigned acc)
{
	uint8_t *p = buf;

	if (!user_range_ok(addr, len))
		return EFAULT;
	while (len) {
		uintptr_t va = ALIGN_DOWN(addr, PAGE_SIZE);
		size_t off = addr - va, n = MIN(len, PAGE_SIZE - off);
		paddr_t pa;
		uint64_t f;
		if (vm_page_lock(s, va, acc, &pa, &f) != EOK)
			return EFAULT;
		uint8_t *page = (uint8_t *)phys_to_virt(pa) + off;
		memcpy((acc & VM_ACC_WRITE) ? page : p, (acc & VM_ACC_WRITE) ? p : page, n);
		spin_unlock_irqrestore(&s->lock, f);
		addr += n;
		p += n;
		len -= n;
	}
	return EOK;
}

errno_t vm_space_write(vm_space_t *s, uintptr_t addr, const void *src, size_t len)
{
	return vm_space_access(s, addr, (void *)src, len, VM_ACC_WRITE | VM_ACC_ANY);
}

errno_t vm_space_read(vm_space_t *s, uintptr_t addr, void *dst, size_t len)
{
	return vm_space_access(s, addr, dst, len, VM_ACC_COPY);
}

errno_t vm_space_copy_out(vm_space_t *s, uintptr_t addr, const void *src, size_t len)
{
	return vm_space_access(s, addr, (void *)src, len, VM_ACC_WRITE | VM_ACC_COPY);
}

vm_space_t *vm_space_current(void)
{
	thread_t *t = thread_current();
	return t && t->task ? t->task->space : NULL;
}

errno_t copy_from_user(void *dst, const void *usrc, size_t len)
{
	if (!user_range_ok((uintptr_t)usrc, len) || failinj_hit(FAILINJ_COPY))
		return EFAULT;
	return arch_copy_user(dst, usrc, len) ? EFAULT : EOK;
}

errno_t copy_to_user(void *udst, const void *src, size_t len)
{
	if (!user_range_ok((uintptr_t)udst, len) || failinj_hit(FAILINJ_COPY))
		return EFAULT;
	return arch_copy_user(udst, src, len) ? EFAULT : EOK;
}

errno_t copy_string_from_user(char *dst, const char *usrc, size_t size)
{
	uintptr_t a = (uintptr_t)usrc;
	size_t done = 0;

	while (done < size) {
		size_t n = MIN(size - done, PAGE_SIZE - ((a + done) & (PAGE_SIZE - 1)));
		if (copy_from_user(dst + done, usrc + done, n) != EOK)
			return EFAULT;
		for (size_t i = 0; i < n; i++)
			if (dst[done + i] == '\0')
				return EOK;
		done += n;
	}
	dst[size - 1] = '\0';
	return E2BIG;
}

#define XFER_CHUNK 1024

/* Move len bytes between the current task (cur) and another space (other). */
static errno_t vm_space_transfer(vm_space_t *other, uintptr_t other_addr,
				 uintptr_t cur, size_t len, bool to_current)
{
	uint8_t buf[XFER_CHUNK];

	if (!user_range_ok(cur, len))
		return EFAULT;
	if (!user_range_ok(other_addr, len))
		return EIO;
	for (size_t done = 0; done < len;) {
		size_t n = MIN(len - done, sizeof(buf));
		void *cur_p = (void *)(cur + done);
		if (to_current) {
			if (vm_space_access(other, other_addr + done, buf, n, VM_ACC_COPY) != EOK)
				return EIO;
			if (copy_to_user(cur_p, buf, n) != EOK)
				return EFAULT;
		} else {
			if (copy_from_user(buf, cur_p, n) != EOK)
				return EFAULT;
			if (vm_space_access(other, other_addr + done, buf, n,
					    VM_ACC_WRITE | VM_ACC_COPY) != EOK)
				return EIO;
		}
		done += n;
	}
	return EOK;
}

errno_t vm_space_copy_to_current(uintptr_t dst, vm_space_t *src_space, uintptr_t src, size_t len)
{
	return vm_space_transfer(src_space, src, dst, len, true);
}

errno_t vm_space_copy_from_current(vm_space_t *dst_space, uintptr_t dst, uintptr_t src, size_t len)
{
	return vm_space_transfer(dst_space, dst, src, len, false);
}

void vm_space_usage(vm_space_t *s, uint64_t *virt, uint64_t *resident)
{
	uint64_t f = spin_lock_irqsave(&s->lock);

	*virt = s->virt_bytes;
	*resident = s->resident_pages * PAGE_SIZE;
	spin_unlock_irqrestore(&s->lock, f);
}
