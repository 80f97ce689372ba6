/* ktest: user address spaces: unmapping, TLB shootdown order and cost, protections. */
#include <abi/syscall.h>
#include <kernel/ktest.h>
#include <kernel/smp.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

/* Seen by the shootdown hook on every CPU. */
static struct {
	paddr_t pa;                 /* the frame being unmapped */
	unsigned calls;             /* CPUs that ran the shootdown */
	unsigned early;             /* of them, saw the frame already freed */
} vm_order;

static void vm_order_hook(const uintptr_t *va, size_t n)
{
	(void)va;
	(void)n;
	if (!frame_in_use(vm_order.pa))
		__atomic_add_fetch(&vm_order.early, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vm_order.calls, 1, __ATOMIC_RELAXED);
}

/* A space with one anonymous region of len at *addr whose first page is made. */
static vm_space_t *vm_test_space(size_t len, unsigned prot, uintptr_t *addr)
{
	vm_space_t *s = vm_space_create();
	uint8_t byte = 0x5a;

	if (s && (vm_space_map_anon(s, 0, len, prot, addr) != EOK ||
		  vm_space_write(s, *addr, &byte, 1) != EOK)) {
		vm_space_put(s);
		return NULL;
	}
	return s;
}

static paddr_t vm_frame_of(vm_space_t *s, uintptr_t va)
{
	paddr_t pa = 0;
	unsigned flags;
	pt_query(s->root, va, &pa, &flags);
	return pa;
}

KTEST(vm_unmap_order, "vm: unmap frees a frame only after every CPU's TLB was shot down")
{
	uintptr_t a;
	vm_space_t *s = vm_test_space(PAGE_SIZE, PROT_READ | PROT_WRITE, &a);

	KT_CHECK(s, "no test space");
	vm_order.pa = vm_frame_of(s, a);
	vm_order.calls = vm_order.early = 0;
	__atomic_store_n(&vm_shoot_hook, vm_order_hook, __ATOMIC_RELEASE);
	errno_t rc = vm_space_unmap(s, a, PAGE_SIZE);
	__atomic_store_n(&vm_shoot_hook, NULL, __ATOMIC_RELEASE);
	bool freed = !frame_in_use(vm_order.pa);
	vm_space_put(s);
	KT_CHECK(rc == EOK, "unmap gave %d", rc);
	KT_CHECK(vm_order.calls == cpus_online, "shootdown ran on %u of %u CPUs",
		 vm_order.calls, cpus_online);
	KT_CHECK(vm_order.early == 0, "%u CPUs saw the frame freed before their shootdown",
		 vm_order.early);
	KT_CHECK(freed, "the frame was not freed after the unmap");
	return true;
}

KTEST(vm_unmap_bounded, "vm: unmapping 16 GiB with one page mapped shoots down one page")
{
	uintptr_t a;
	vm_space_t *s = vm_test_space(GiB(16), PROT_READ | PROT_WRITE, &a);

	KT_CHECK(s, "no test space");
	vm_shoot_stats_t b = vm_shoot_stats();
	errno_t rc = vm_space_unmap(s, a, GiB(16));
	vm_shoot_stats_t e = vm_shoot_stats();
	vm_space_put(s);
	KT_CHECK(rc == EOK, "unmap gave %d", rc);
	KT_CHECK(e.pages - b.pages == 1, "%lu pages invalidated", e.pages - b.pages);
	KT_CHECK(e.full_flushes == b.full_flushes, "%lu full flushes",
		 e.full_flushes - b.full_flushes);
	KT_CHECK(e.rounds - b.rounds == 1, "%lu shootdown rounds", e.rounds - b.rounds);
	return true;
}

/* Touch n pages of s at a + i * step; their frames into pa[]. */
static bool vm_touch(vm_space_t *s, uintptr_t a, size_t step, unsigned n, paddr_t *pa)
{
	uint8_t byte = 1;

	for (unsigned i = 0; i < n; i++) {
		if (vm_space_write(s, a + i * step, &byte, 1) != EOK)
			return false;
		pa[i] = vm_frame_of(s, a + i * step);
	}
	return true;
}

static unsigned vm_frames_back(const paddr_t *pa, unsigned n)
{
	unsigned back = 0;
	for (unsigned i = 0; i < n; i++)
		back += pa[i] && !frame_in_use(pa[i]);
	return back;
}

KTEST(vm_unmap_many, "vm: unmapping 200 pages: rounds of 64, full flushes past 16, frames back")
{
	static paddr_t pa[200];
	uintptr_t a;
	vm_space_t *s = vm_test_space(MiB(1), PROT_READ | PROT_WRITE, &a);

	KT_CHECK(s && vm_touch(s, a, PAGE_SIZE, 200, pa), "no test space");
	vm_shoot_stats_t b = vm_shoot_stats();
	errno_t rc = vm_space_unmap(s, a, MiB(1));
	vm_shoot_stats_t e = vm_shoot_stats();
	unsigned back = vm_frames_back(pa, 200);
	vm_space_put(s);
	KT_CHECK(rc == EOK, "unmap gave %d", rc);
	KT_CHECK(e.rounds - b.rounds == 4, "%lu rounds for 200 pages", e.rounds - b.rounds);
	/* 64 + 64 + 64 pages flush whole TLBs, the last 8 go one by one */
	KT_CHECK(e.full_flushes - b.full_flushes == 3 && e.pages - b.pages == 8,
		 "%lu full flushes, %lu single pages", e.full_flushes - b.full_flushes,
		 e.pages - b.pages);
	KT_CHECK(back == 200, "%u frames came back of 200", back);
	return true;
}

KTEST(vm_unmap_sparse, "vm: 200 pages spread over 64 GiB: all unmapped and freed in bounded rounds")
{
	static paddr_t pa[200];
	uintptr_t a;
	vm_space_t *s = vm_test_space(GiB(64), PROT_READ | PROT_WRITE, &a);

	KT_CHECK(s && vm_touch(s, a, MiB(300), 200, pa), "no test space");
	vm_shoot_stats_t b = vm_shoot_stats();
	errno_t rc = vm_space_unmap(s, a, GiB(64));
	vm_shoot_stats_t e = vm_shoot_stats();
	unsigned back = vm_frames_back(pa, 200);
	vm_space_put(s);
	KT_CHECK(rc == EOK, "unmap gave %d", rc);
	KT_CHECK(e.unmapped - b.unmapped == 200, "%lu pages unmapped", e.unmapped - b.unmapped);
	KT_CHECK(e.rounds - b.rounds >= 4, "%lu rounds for 200 pages", e.rounds - b.rounds);
	KT_CHECK(back == 200, "%u frames came back of 200", back);
	return true;
}

KTEST(vm_unmap_foreign, "vm: a kernel-owned page mapped into a space can be unmapped, not freed")
{
	vm_space_t *s = vm_space_create();
	paddr_t pa, q;
	uintptr_t va, va2;
	unsigned flags;

	KT_CHECK(s && frame_alloc(&pa) == EOK, "no space or frame");
	KT_CHECK(vm_space_map_readonly_ram(s, pa, PAGE_SIZE, &va) == EOK &&
		 vm_space_map_readonly_ram(s, pa, PAGE_SIZE, &va2) == EOK, "map failed");
	errno_t user_rc = vm_space_unmap(s, va, PAGE_SIZE);     /* SYS_UNMAP: any kind */
	bool still = pt_query(s->root, va, &q, &flags);
	errno_t rc = vm_space_unmap_kind(s, va2, PAGE_SIZE, REGION_DEVICE);
	bool still2 = pt_query(s->root, va2, &q, &flags);
	bool owned = frame_in_use(pa);
	vm_space_put(s);
	if (owned)
		frame_free(pa, 1);
	KT_CHECK(user_rc == EOK, "SYS_UNMAP-style unmap of it gave %d", user_rc);
	KT_CHECK(rc == EOK, "unmap of kind REGION_DEVICE gave %d", rc);
	KT_CHECK(!still && !still2, "the page is still mapped");
	KT_CHECK(owned, "the space freed a frame it does not own");
	return true;
}

KTEST(vm_prot_none, "vm: PROT_NONE memory faults on read, write and fetch")
{
	uintptr_t a;
	vm_space_t *s = vm_space_create();
	uint8_t byte;

	KT_CHECK(s, "no space");
	KT_CHECK(vm_space_map_anon(s, 0, PAGE_SIZE, 0, &a) == EOK, "map failed");
	errno_t r = vm_space_fault(s, a, false, false);
	errno_t w = vm_space_fault(s, a, true, false);
	errno_t x = vm_space_fault(s, a, false, true);
	errno_t copy = vm_space_read(s, a, &byte, 1);
	uint64_t virt, res;
	vm_space_usage(s, &virt, &res);
	vm_space_put(s);
	KT_CHECK(r == EFAULT && w == EFAULT && x == EFAULT, "read %d write %d fetch %d", r, w, x);
	KT_CHECK(copy == EFAULT, "kernel read of it gave %d", copy);
	KT_CHECK(res == 0, "%lu bytes made resident", res);
	return true;
}

#define KT_STACKS 200

/* Allocate KT_STACKS stacks, free them all, drain; false if one failed. */
static bool kt_stack_cycle(uintptr_t *tops)
{
	size_t n = 0;

	while (n < KT_STACKS && kstack_alloc(4, &tops[n]) == EOK)
		n++;
	for (size_t i = 0; i < n; i++)
		kstack_free(tops[i], 4);
	kstack_drain();
	return n == KT_STACKS;
}

/* The highest stack top of a round. */
static uintptr_t kt_stack_max(const uintptr_t *tops)
{
	uintptr_t m = 0;
	for (size_t i = 0; i < KT_STACKS; i++)
		m = MAX(m, tops[i]);
	return m;
}

KTEST(kstack_reuse, "kstack: 600 stacks in 3 rounds reuse the same ranges and page tables")
{
	static uintptr_t tops[KT_STACKS];

	KT_CHECK(kt_stack_cycle(tops), "first round failed");
	size_t tables = vm_table_frames();
	uintptr_t high = kt_stack_max(tops);
	for (int round = 0; round < 2; round++)
		KT_CHECK(kt_stack_cycle(tops), "round %d failed", round + 2);
	uintptr_t high3 = kt_stack_max(tops);
	/*
	 * Other threads may come and go meanwhile: allow them 64 ranges, and
	 * the one page table those take (without reuse, 600 stacks of 4
	 * pages in 8-page slots would need 9 more a round).
	 */
	KT_CHECK(vm_table_frames() <= tables + 1, "page-table frames %zu, were %zu",
		 vm_table_frames(), tables);
	KT_CHECK(high3 <= high + 64 * 8 * PAGE_SIZE, "round 3 reached %#lx, round 1 %#lx",
		 high3, high);
	return true;
}

KTEST(kstack_area_full, "kstack: a full stack area gives ELIMIT, no panic, and recovers")
{
	uintptr_t tops[8];
	errno_t rc = EOK;
	int n = 0;

	kstack_drain();
	size_t old = kstack_test_limit(kstack_slots_used() + 2);
	while (n < 8 && (rc = kstack_alloc(5, &tops[n])) == EOK)   /* 5 pages: never cached */
		n++;
	kstack_test_limit(old);
	for (int i = 0; i < n; i++)
		kstack_free(tops[i], 5);
	KT_CHECK(n >= 1, "no stack below the limit (%d)", rc);
	KT_CHECK(n < 8 && rc == ELIMIT, "%d stacks, then %d", n, rc);
	uintptr_t t;
	KT_CHECK(kstack_alloc(5, &t) == EOK, "no stack after the limit was lifted");
	kstack_free(t, 5);
	return true;
}

/* Cached (same range, same frames) or queued and drained (range reused): zero either way. */
KTEST(kstack_zeroed, "kstack: a recycled kernel stack comes back zeroed")
{
	uintptr_t top, again;

	KT_CHECK(kstack_alloc(3, &top) == EOK, "alloc");
	memset((void *)(top - 3 * PAGE_SIZE), 0xa5, 3 * PAGE_SIZE);
	kstack_free(top, 3);
	KT_CHECK(kstack_alloc(3, &again) == EOK, "realloc");
	size_t dirty = 0;
	for (size_t i = 0; i < 3 * PAGE_SIZE; i++)
		dirty += ((uint8_t *)(again - 3 * PAGE_SIZE))[i] != 0;
	kstack_free(again, 3);
	KT_CHECK(dirty == 0, "%zu bytes left from the last user", dirty);
	return true;
}
