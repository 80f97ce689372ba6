/* The initrd and the cache of checked program images. */
#include <kernel/binary.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <kernel/sysimpl.h>
#include <lib/string.h>
#include <lib/ustar.h>

#define LOG_PREFIX "initrd"

static const void *initrd;
static size_t initrd_size;
static list_t binaries = LIST_INIT(binaries);
static spinlock_t binaries_lock = SPINLOCK_INIT("binaries");

void initrd_init(void)
{
	size_t off = 0, files = 0;
	ustar_entry_t e;

	for (size_t i = 0; i < boot_info.nmodules && !initrd; i++) {
		const boot_module_t *m = &boot_info.modules[i];
		if (strcmp(m->name, "initrd") && boot_info.nmodules > 1)
			continue;
		initrd = phys_to_virt(m->start);
		initrd_size = m->end - m->start;
	}
	if (!initrd) {
		pr_warn("no initrd module: no user programs");
		return;
	}
	while (ustar_next(initrd, initrd_size, &off, &e) == EOK)
		files += e.type == '0';
	pr_info("%zu KiB, %zu files", initrd_size >> 10, files);
}

errno_t initrd_find(const char *path, const void **data, size_t *size)
{
	ustar_entry_t e;

	if (!initrd || ustar_find(initrd, initrd_size, path, &e) != EOK)
		return ENOENT;
	*data = e.data;
	*size = e.size;
	return EOK;
}

static void binary_load_symbols(binary_t *b)
{
	const elf64_shdr_t *sym, *str;

	if (elf_find_symtab(b->image, b->size, &sym, &str) != EOK)
		return;
	elf64_sym_t *copy = kmalloc(sym->sh_size);
	if (!copy)
		return;
	memcpy(copy, (const char *)b->image + sym->sh_offset, sym->sh_size);
	b->have_syms = elfsym_prepare(&b->syms, copy, sym->sh_size / sizeof(*copy),
				      (const char *)b->image + str->sh_offset,
				      str->sh_size) == EOK;
	if (!b->have_syms)
		kfree(copy);
}

static binary_t *binary_cached(const char *path)
{
	list_foreach(&binaries, it) {
		binary_t *b = list_entry(it, binary_t, node);
		if (!strcmp(b->path, path))
			return b;
	}
	return NULL;
}

static errno_t binary_load(const char *path, binary_t **out)
{
	binary_t *b = kzalloc(sizeof(*b));

	if (!b)
		return ENOMEM;
	strlcpy(b->path, path, sizeof(b->path));
	if (initrd_find(path, &b->image, &b->size) != EOK) {
		kfree(b);
		return ENOENT;
	}
	if (elf_load_plan(b->image, b->size, USER_BASE, USER_MAP_BASE, &b->plan) != EOK) {
		kfree(b);
		return ENOEXEC;
	}
	binary_load_symbols(b);
	*out = b;
	return EOK;
}

errno_t binary_get(const char *path, binary_t **out)
{
	uint64_t f = spin_lock_irqsave(&binaries_lock);
	binary_t *b = binary_cached(path);
	spin_unlock_irqrestore(&binaries_lock, f);
	if (b) {
		*out = b;
		return EOK;
	}
	errno_t rc = binary_load(path, &b);
	if (rc != EOK)
		return rc;
	f = spin_lock_irqsave(&binaries_lock);
	binary_t *raced = binary_cached(path);
	if (!raced)
		list_append(&binaries, &b->node);
	spin_unlock_irqrestore(&binaries_lock, f);
	if (raced) {                 /* another CPU loaded it meanwhile */
		if (b->have_syms)
			kfree(b->syms.syms);
		kfree(b);
		b = raced;
	}
	*out = b;
	return EOK;
}

const char *binary_symbol(const binary_t *b, uint64_t addr, uint64_t *off)
{
	return b && b->have_syms ? elfsym_lookup(&b->syms, addr, off) : NULL;
}

/* SYS_INITRD_MAP: the whole initrd, read-only, for the file service. */
int64_t sys_initrd_map(SYSCALL_ARGS)
{
	vm_space_t *s = vm_space_current();
	uintptr_t addr;
	uint64_t size = initrd_size;

	if (!initrd || !s)
		return -ENOENT;
	if (!user_range_ok(a0, sizeof(addr)) || !user_range_ok(a1, sizeof(size)))
		return -EFAULT;
	errno_t rc = vm_space_map_readonly_ram(s, hhdm_to_phys(initrd), initrd_size, &addr);
	if (rc != EOK)
		return -rc;
	if (copy_to_user((void *)a0, &addr, sizeof(addr)) != EOK ||
	    copy_to_user((void *)a1, &size, sizeof(size)) != EOK)
		return -EFAULT;
	return 0;
}
