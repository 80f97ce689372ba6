/*
 * x86-64 kernel page tables: 4-level paging, a direct map of RAM with
 * 2 MiB pages at HHDM_BASE, the kernel image in 4 KiB pages with W^X
 * permissions, guard pages left unmapped, and no identity map.
 */
#include <arch/boot.h>
#include <arch/cpu.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <lib/string.h>

#define LOG_PREFIX "mm"
#define PT_ENTRIES 512

uintptr_t hhdm_offset;
static paddr_t kernel_root;
static spinlock_t vm_lock = SPINLOCK_INIT("vm");
static size_t table_frames;   /* kernel and user page-table frames */
static bool nx_supported;

static unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (12 + 9 * (level - 1))) & 0x1ff;
}

static uint64_t *pt_table(paddr_t pa)
{
	return phys_to_virt(pa & PTE_ADDR);
}

static errno_t pt_new_table(paddr_t *out)
{
	errno_t rc = frame_alloc(out);
	if (rc != EOK)
		return rc;
	memset(phys_to_virt(*out), 0, PAGE_SIZE);
	__atomic_add_fetch(&table_frames, 1, __ATOMIC_RELAXED);
	return EOK;
}

/* Entry for va at level (1 = 4 KiB PTE, 2 = 2 MiB PDE), creating tables. */
static uint64_t *pt_walk(paddr_t root, uintptr_t va, int level, bool create)
{
	uint64_t *table = pt_table(root);

	for (int l = 4; l > level; l--) {
		uint64_t *e = &table[pt_index(va, l)];
		if (!(*e & PTE_P)) {
			paddr_t t;
			if (!create || pt_new_table(&t) != EOK)
				return NULL;
			*e = t | PTE_P | PTE_W;
		} else if (*e & PTE_PS) {
			return NULL;      /* a large page is in the way */
		}
		table = pt_table(*e);
	}
	return &table[pt_index(va, level)];
}

static uint64_t pt_flags(unsigned flags)
{
	uint64_t f = PTE_P;
	if (flags & VM_WRITE)
		f |= PTE_W;
	if (flags & VM_USER)
		f |= PTE_U;
	if (flags & VM_NOCACHE)
		f |= PTE_PCD | PTE_PWT;
	if (flags & VM_GLOBAL)
		f |= PTE_G;
	if (flags & VM_DEVICE)
		f |= PTE_DEV;
	if (!(flags & VM_EXEC) && nx_supported)
		f |= PTE_NX;
	return f;
}

static errno_t vm_map_locked(paddr_t root, uintptr_t va, paddr_t pa,
			     size_t npages, unsigned flags)
{
	for (size_t i = 0; i < npages; i++) {
		uint64_t *e = pt_walk(root, va + i * PAGE_SIZE, 1, true);
		if (!e)
			return ENOMEM;
		if (*e & PTE_P)
			return EEXIST;
		*e = (pa + i * PAGE_SIZE) | pt_flags(flags);
	}
	return EOK;
}

errno_t vm_map(uintptr_t va, paddr_t pa, size_t npages, unsigned flags)
{
	uint64_t f = spin_lock_irqsave(&vm_lock);
	errno_t rc = vm_map_locked(kernel_root, va, pa, npages, flags);
	spin_unlock_irqrestore(&vm_lock, f);
	return rc;
}

void vm_unmap(uintptr_t va, size_t npages)
{
	uint64_t f = spin_lock_irqsave(&vm_lock);
	for (size_t i = 0; i < npages; i++) {
		uint64_t *e = pt_walk(kernel_root, va + i * PAGE_SIZE, 1, false);
		if (e)
			*e = 0;
		invlpg(va + i * PAGE_SIZE);
	}
	spin_unlock_irqrestore(&vm_lock, f);
}

/* Lock-free walk (readers tolerate a racing map): used by backtraces. */
bool vm_translate(uintptr_t va, paddr_t *pa)
{
	uint64_t *table = pt_table(read_cr3());

	for (int l = 4; l >= 1; l--) {
		uint64_t e = table[pt_index(va, l)];
		if (!(e & PTE_P))
			return false;
		if (l == 1 || (l <= 3 && (e & PTE_PS))) {
			uint64_t span = 1ul << (12 + 9 * (l - 1));
			*pa = (e & PTE_ADDR & ~(span - 1)) | (va & (span - 1));
			return true;
		}
		table = pt_table(e);
	}
	return false;
}

bool vm_kernel_readable(uintptr_t va, size_t len)
{
	paddr_t pa;

	if (va < HHDM_BASE || va + len < va)
		return false;
	for (uintptr_t p = ALIGN_DOWN(va, PAGE_SIZE); p < va + len; p += PAGE_SIZE)
		if (!vm_translate(p, &pa))
			return false;
	return true;
}

void *vm_map_mmio(paddr_t pa, size_t len)
{
	paddr_t start = ALIGN_DOWN(pa, PAGE_SIZE);
	paddr_t end = ALIGN_UP(pa + len, PAGE_SIZE);
	paddr_t dummy;
	uint64_t f = spin_lock_irqsave(&vm_lock);

	for (paddr_t p = start; p < end; p += PAGE_SIZE) {
		uintptr_t va = HHDM_BASE + p;
		if (vm_translate(va, &dummy))
			continue;
		if (vm_map_locked(kernel_root, va, p, 1,
				  VM_WRITE | VM_NOCACHE | VM_GLOBAL) != EOK) {
			spin_unlock_irqrestore(&vm_lock, f);
			return NULL;
		}
	}
	spin_unlock_irqrestore(&vm_lock, f);
	return (void *)(HHDM_BASE + pa);
}

static void vm_map_large(uintptr_t va, paddr_t pa, uint64_t len)
{
	for (uint64_t off = 0; off < len; off += LARGE_PAGE_SIZE) {
		uint64_t *e = pt_walk(kernel_root, va + off, 2, true);
		if (!e)
			panic("mm: out of memory building the direct map");
		if (!(*e & PTE_P))
			*e = (pa + off) | PTE_PS | pt_flags(VM_WRITE | VM_GLOBAL);
	}
}

static bool vm_is_direct_mapped(mem_type_t t)
{
	return t == MEM_USABLE || t == MEM_ACPI_RECLAIM || t == MEM_ACPI_NVS;
}

static void vm_map_direct(void)
{
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (!vm_is_direct_mapped(m->type) || !m->len)
			continue;
		paddr_t s = ALIGN_DOWN(m->base, LARGE_PAGE_SIZE);
		paddr_t e = ALIGN_UP(m->base + m->len, LARGE_PAGE_SIZE);
		vm_map_large(HHDM_BASE + s, s, e - s);
	}
}

static bool vm_is_guard(uintptr_t va)
{
	return va == (uintptr_t)boot_stack_guard || arch_is_image_guard(va);
}

static void vm_map_image_range(const char *start, const char *end, unsigned flags)
{
	for (uintptr_t va = (uintptr_t)start; va < (uintptr_t)end; va += PAGE_SIZE) {
		if (vm_is_guard(va))
			continue;
		if (vm_map_locked(kernel_root, va, kernel_virt_to_phys((void *)va), 1,
				  flags | VM_GLOBAL) != EOK)
			panic("mm: cannot map the kernel image");
	}
}

/* Replace the 2 MiB direct-map page holding va by 512 4 KiB pages alike. */
static void vm_split_large(uintptr_t va)
{
	uint64_t *pde = pt_walk(kernel_root, va, 2, false);
	paddr_t t;

	if (!pde || !(*pde & PTE_PS))
		return;
	if (pt_new_table(&t) != EOK)
		panic("mm: out of memory splitting the direct map");
	uint64_t *pt = pt_table(t);
	uint64_t flags = *pde & ~PTE_ADDR & ~PTE_PS;
	paddr_t base = *pde & PTE_ADDR & ~(LARGE_PAGE_SIZE - 1);
	for (int i = 0; i < PT_ENTRIES; i++)
		pt[i] = (base + (paddr_t)i * PAGE_SIZE) | flags;
	*pde = t | PTE_P | PTE_W;
}

/* The direct map's alias of the kernel's text and rodata: read-only too. */
static void vm_protect_image_alias(void)
{
	paddr_t s = ALIGN_DOWN(kernel_virt_to_phys(__text_start), PAGE_SIZE);
	paddr_t e = ALIGN_UP(kernel_virt_to_phys(__rodata_end), PAGE_SIZE);

	for (paddr_t p = s; p < e; p += PAGE_SIZE) {
		vm_split_large(HHDM_BASE + p);
		uint64_t *pte = pt_walk(kernel_root, HHDM_BASE + p, 1, false);
		if (pte)
			*pte &= ~PTE_W;
	}
}

static void vm_map_image(void)
{
	vm_map_image_range(__text_start, __text_end, VM_EXEC);
	vm_map_image_range(__rodata_start, __rodata_end, 0);
	vm_map_image_range(__data_start, __kernel_end, VM_WRITE);
}

paddr_t vm_kernel_root(void)
{
	return kernel_root;
}

void vm_activate(void)
{
	write_cr3(kernel_root);
	write_cr4(read_cr4() | CR4_PGE);
}

void vm_init(void)
{
	nx_supported = rdmsr(MSR_EFER) & EFER_NXE;
	if (pt_new_table(&kernel_root) != EOK)
		panic("mm: no frame for the kernel page table");
	vm_map_direct();
	/* Kernel-half tables for the stack area exist from the start. */
	pt_walk(kernel_root, KSTACK_BASE, 3, true);
	vm_map_image();
	vm_protect_image_alias();
	vm_activate();
	uintptr_t old = hhdm_offset;
	hhdm_offset = HHDM_BASE;
	frame_rebase(old);
	pr_info("kernel page tables live: direct map at %#lx, no identity map%s",
		HHDM_BASE, nx_supported ? ", NX on" : ", no NX on this CPU");
}

/* Count one kernel leaf mapping [va, va+span) → pa with entry e into a. */
static void vm_audit_leaf(vm_audit_t *a, uint64_t e, paddr_t pa, uint64_t span)
{
	paddr_t ts = kernel_virt_to_phys(__text_start);
	paddr_t te = kernel_virt_to_phys(__rodata_end);

	a->leaves++;
	if ((e & PTE_W) && !(e & PTE_NX))
		a->wx++;
	if ((e & PTE_W) && pa < te && pa + span > ts)
		a->text_aliases++;
}

static void vm_audit_level(vm_audit_t *a, paddr_t table, int level, int first)
{
	const uint64_t *t = pt_table(table);

	for (int i = first; i < PT_ENTRIES; i++) {
		uint64_t e = t[i];
		if (!(e & PTE_P))
			continue;
		uint64_t span = 1ul << (12 + 9 * (level - 1));
		if (level == 1 || (e & PTE_PS))
			vm_audit_leaf(a, e, e & PTE_ADDR & ~(span - 1), span);
		else
			vm_audit_level(a, e & PTE_ADDR, level - 1, 0);
	}
}

vm_audit_t vm_audit_kernel(void)
{
	vm_audit_t a = { 0 };
	uint64_t f = spin_lock_irqsave(&vm_lock);
	vm_audit_level(&a, kernel_root, 4, 256);
	spin_unlock_irqrestore(&vm_lock, f);
	return a;
}

size_t vm_table_frames(void)
{
	return table_frames;
}

/* ---------------------------------------------------------------- user spaces */

errno_t pt_new_root(paddr_t *root)
{
	errno_t rc = pt_new_table(root);
	if (rc != EOK)
		return rc;
	const uint64_t *k = pt_table(kernel_root);
	uint64_t *u = pt_table(*root);
	for (int i = 256; i < PT_ENTRIES; i++)
		u[i] = k[i];
	return EOK;
}

/* Like pt_walk for the user half: intermediate entries are user-accessible. */
static uint64_t *pt_walk_user(paddr_t root, uintptr_t va, bool create)
{
	uint64_t *table = pt_table(root);

	for (int l = 4; l > 1; l--) {
		uint64_t *e = &table[pt_index(va, l)];
		if (!(*e & PTE_P)) {
			paddr_t t;
			if (!create || pt_new_table(&t) != EOK)
				return NULL;
			*e = t | PTE_P | PTE_W | PTE_U;
		}
		table = pt_table(*e);
	}
	return &table[pt_index(va, 1)];
}

errno_t pt_map(paddr_t root, uintptr_t va, paddr_t pa, unsigned flags)
{
	uint64_t *e = pt_walk_user(root, va, true);

	if (!e)
		return ENOMEM;
	if (*e & PTE_P)
		return EEXIST;
	*e = pa | pt_flags(flags);
	return EOK;
}

bool pt_unmap(paddr_t root, uintptr_t va, paddr_t *pa)
{
	uint64_t *e = pt_walk_user(root, va, false);

	if (!e || !(*e & PTE_P))
		return false;
	*pa = *e & PTE_ADDR;
	*e = 0;
	return true;
}

bool pt_query(paddr_t root, uintptr_t va, paddr_t *pa, unsigned *flags)
{
	uint64_t *e = pt_walk_user(root, va, false);

	if (!e || !(*e & PTE_P))
		return false;
	*pa = *e & PTE_ADDR;
	*flags = ((*e & PTE_W) ? VM_WRITE : 0) | ((*e & PTE_U) ? VM_USER : 0) |
		 ((*e & PTE_NX) ? 0 : VM_EXEC);
	return true;
}

static void pt_free_level(paddr_t table, int level)
{
	uint64_t *t = pt_table(table);
	int n = level == 4 ? 256 : PT_ENTRIES;     /* user half only at the top */

	for (int i = 0; i < n; i++) {
		if (!(t[i] & PTE_P))
			continue;
		if (level == 1 && !(t[i] & PTE_DEV))
			frame_free(t[i] & PTE_ADDR, 1);
		else if (level == 1)
			continue;
		else
			pt_free_level(t[i] & PTE_ADDR, level - 1);
	}
	frame_free(table, 1);
	__atomic_sub_fetch(&table_frames, 1, __ATOMIC_RELAXED);
}

void pt_destroy(paddr_t root)
{
	pt_free_level(root, 4);
}

static unsigned pt_entry_flags(uint64_t e)
{
	return ((e & PTE_W) ? VM_WRITE : 0) | ((e & PTE_U) ? VM_USER : 0) |
	       ((e & PTE_NX) ? 0 : VM_EXEC) | ((e & PTE_DEV) ? VM_DEVICE : 0);
}

/* The 4 KiB entry for va, or NULL with *level the first absent level's. */
static uint64_t *pt_find_user(paddr_t root, uintptr_t va, int *level)
{
	uint64_t *table = pt_table(root);

	for (int l = 4; l > 1; l--) {
		uint64_t e = table[pt_index(va, l)];
		if (!(e & PTE_P)) {
			*level = l;
			return NULL;
		}
		table = pt_table(e);
	}
	return &table[pt_index(va, 1)];
}

bool pt_unmap_next(paddr_t root, uintptr_t *va, uintptr_t end, size_t *budget,
		   uintptr_t *at, paddr_t *pa, unsigned *flags)
{
	for (; *va < end && *budget; (*budget)--) {
		int level = 1;
		uintptr_t v = *va;
		uint64_t *e = pt_find_user(root, v, &level);
		if (!e) {                          /* skip what the absent table spans */
			uint64_t span = 1ul << (12 + 9 * (level - 1));
			*va = MIN(ALIGN_DOWN(v, span) + span, end);
			continue;
		}
		*va = v + PAGE_SIZE;
		if (!(*e & PTE_P))
			continue;
		*at = v;
		*pa = *e & PTE_ADDR;
		*flags = pt_entry_flags(*e);
		*e = 0;
		return true;
	}
	return false;
}

void pt_flush_local(uintptr_t va)
{
	invlpg(va);
}

void pt_flush_local_all(void)
{
	write_cr3(read_cr3());
}

/*
 * A kernel-half top-level entry created after a user space was made (MMIO
 * mapped high, say) is missing from that space's table: copy it over on
 * the first fault. Returns true if that was the reason for the fault.
 */
bool vm_sync_kernel_half(uintptr_t va)
{
	paddr_t cur = read_cr3() & PTE_ADDR;
	unsigned i = pt_index(va, 4);

	if (va < HHDM_BASE || cur == kernel_root)
		return false;
	uint64_t *u = pt_table(cur);
	const uint64_t *k = pt_table(kernel_root);
	if ((u[i] & PTE_P) || !(k[i] & PTE_P))
		return false;
	u[i] = k[i];
	return true;
}
