/* ktest: frame allocator, page tables, heap, kernel stacks. */
#include <arch/boot.h>
#include <kernel/fault.h>
#include <kernel/ktest.h>
#include <kernel/vm.h>
#include <lib/string.h>

/* Take every free frame, chaining them through their first word. */
static paddr_t mm_drain_frames(size_t *count)
{
	paddr_t head = 0, p;

	*count = 0;
	while (frame_alloc_contig(1, 1, 0, &p) == EOK) {
		*(paddr_t *)phys_to_virt(p) = head;
		head = p;
		(*count)++;
	}
	return head;
}

static void mm_release_frames(paddr_t head)
{
	while (head) {
		paddr_t next = *(paddr_t *)phys_to_virt(head);
		frame_free(head, 1);
		head = next;
	}
}

KTEST(frame_exhaustion, "frame: exhaustion returns ENOMEM and everything comes back")
{
	frame_stats_t before = frame_stats();
	size_t got;
	paddr_t head = mm_drain_frames(&got);
	frame_stats_t empty = frame_stats();
	paddr_t p;
	uintptr_t top;
	bool heap_failed = kmalloc(64 * 1024) == NULL;
	errno_t rc = frame_alloc(&p);
	/* 6 pages: no other stack has that size, so none is cached (a freed
	 * thread stack would be handed out again without a frame) */
	errno_t stack_rc = kstack_alloc(6, &top);

	mm_release_frames(head);
	frame_stats_t after = frame_stats();
	KT_CHECK(got == before.free, "allocated %zu of %lu free frames", got, before.free);
	KT_CHECK(empty.free == 0, "%lu frames still free", empty.free);
	KT_CHECK(rc == ENOMEM, "frame_alloc on empty pool gave %d", rc);
	KT_CHECK(heap_failed, "kmalloc succeeded with no frames");
	KT_CHECK(stack_rc == ENOMEM, "kstack_alloc gave %d", stack_rc);
	KT_CHECK(after.free == before.free, "free %lu, was %lu", after.free, before.free);
	KT_CHECK(after.used == before.used, "used %lu, was %lu", after.used, before.used);
	return true;
}

KTEST(frame_contig, "frame: contiguous, aligned and limited allocations")
{
	paddr_t p, q;

	KT_CHECK(frame_alloc_contig(16, 16, 0, &p) == EOK, "no 16-frame block");
	KT_CHECK(p % (16 * PAGE_SIZE) == 0, "block %#lx not aligned", p);
	/*
	 * The pool hands out its lowest frames first, so the boot's own
	 * allocations (the flight recorder's 4 MiB among them) may have
	 * taken all below 16 MiB on a 256 MiB guest with the call-profiled
	 * kernel: the limit is 64 MiB, still well below its memory's end.
	 */
	KT_CHECK(frame_alloc_contig(1, 1, MiB(64), &q) == EOK, "nothing below 64 MiB");
	KT_CHECK(q + PAGE_SIZE <= MiB(64), "frame %#lx above the limit", q);
	frame_free(p, 16);
	frame_free(q, 1);
	KT_CHECK(frame_alloc_contig(0, 1, 0, &p) == EINVAL, "count 0 accepted");
	KT_CHECK(frame_alloc_contig(1, 3, 0, &p) == EINVAL, "alignment 3 accepted");
	return true;
}

KTEST(heap_patterns, "heap: objects of every class keep their contents")
{
	static void *objs[64];
	size_t sizes[] = { 1, 24, 32, 33, 100, 500, 1024, 2000, 2048, 3000, 9000, 70000 };

	for (size_t r = 0; r < 3; r++) {
		for (size_t i = 0; i < 64; i++) {
			size_t sz = sizes[i % ARRAY_SIZE(sizes)];
			objs[i] = kmalloc(sz);
			KT_CHECK(objs[i] != NULL, "kmalloc(%zu) failed", sz);
			KT_CHECK(((uintptr_t)objs[i] & 15) == 0, "%p misaligned", objs[i]);
			memset(objs[i], (int)i, sz);
		}
		for (size_t i = 0; i < 64; i++) {
			size_t sz = sizes[i % ARRAY_SIZE(sizes)];
			const uint8_t *b = objs[i];
			KT_CHECK(b[0] == (uint8_t)i && b[sz - 1] == (uint8_t)i,
				 "object %zu overwritten", i);
			kfree(objs[i]);
		}
	}
	KT_CHECK(kmalloc(0) == NULL, "kmalloc(0) returned memory");
	KT_CHECK(kmalloc(GiB(2)) == NULL, "kmalloc(2 GiB) returned memory");
	return true;
}

KTEST(no_identity_map, "vm: low memory is not mapped after boot")
{
	paddr_t pa;
	KT_CHECK(!vm_translate(0, &pa), "page 0 mapped");
	KT_CHECK(!vm_translate(0x8000, &pa), "trampoline page mapped");
	KT_CHECK(!vm_translate(0x200000, &pa), "kernel load address identity-mapped");
	KT_CHECK(!vm_translate((uintptr_t)boot_stack_guard, &pa), "boot stack guard mapped");
	KT_CHECK(vm_translate((uintptr_t)__text_start, &pa), "kernel text unmapped");
	KT_CHECK(pa == kernel_virt_to_phys(__text_start), "text maps to %#lx", pa);
	return true;
}

static void mm_write_byte(void *p)
{
	*(volatile uint8_t *)p = 0x90;
}

static bool mm_write_faults(void *addr, uint64_t *fault_addr)
{
	fault_catch_t fc = { 0 };
	bool faulted = fault_catch_run(&fc, mm_write_byte, addr);
	*fault_addr = fc.addr;
	return faulted && fc.vector == 14;
}

KTEST(wx_protection, "vm: kernel text and rodata are read-only")
{
	uint64_t a;
	KT_CHECK(mm_write_faults(__text_start, &a) && a == (uintptr_t)__text_start,
		 "write to text did not fault at it (%#lx)", a);
	KT_CHECK(mm_write_faults(__rodata_start, &a) && a == (uintptr_t)__rodata_start,
		 "write to rodata did not fault at it (%#lx)", a);
	return true;
}

KTEST(stack_guard, "vm: kernel stacks have a guard page below them")
{
	uintptr_t top;
	uint64_t a;

	KT_CHECK(kstack_alloc(2, &top) == EOK, "kstack_alloc failed");
	uint8_t *guard = (uint8_t *)(top - 2 * PAGE_SIZE - 8);
	mm_write_byte((void *)(top - 8));     /* the stack itself is writable */
	KT_CHECK(mm_write_faults(guard, &a) && a == (uintptr_t)guard,
		 "write below the stack did not fault (%#lx)", a);
	KT_CHECK(mm_write_faults(boot_stack_guard, &a), "boot stack guard writable");
	return true;
}

KTEST(wx_audit, "vm: no kernel mapping is W+X, none maps text or rodata writable")
{
	vm_audit_t a = vm_audit_kernel();

	KT_CHECK(a.leaves > 0, "the walk found no mappings");
	KT_CHECK(a.wx == 0, "%zu of %zu mappings are writable and executable", a.wx, a.leaves);
	KT_CHECK(a.text_aliases == 0, "%zu writable mappings of text or rodata", a.text_aliases);
	return true;
}
