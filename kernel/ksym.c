/*
 * The kernel's own symbol table. GRUB loads .symtab and .strtab next to
 * the kernel (multiboot2 ELF sections tag); we sort the symbols in place
 * once and answer address → name queries for backtraces and profilers.
 */
#include <arch/unwind.h>
#include <kernel/ksym.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/vm.h>
#include <lib/elf.h>

#define LOG_PREFIX "ksym"

static elfsym_table_t ksym_table;
static bool ksym_ready;

void ksym_init(void)
{
	if (!boot_info.symtab || !boot_info.strtab) {
		pr_warn("no kernel symbol table from the boot loader; backtraces show addresses only");
		return;
	}
	elf64_sym_t *syms = phys_to_virt(boot_info.symtab);
	const char *str = phys_to_virt(boot_info.strtab);
	size_t n = boot_info.symtab_size / sizeof(elf64_sym_t);

	if (elfsym_prepare(&ksym_table, syms, n, str, boot_info.strtab_size) != EOK) {
		pr_warn("kernel symbol table is malformed");
		return;
	}
	ksym_ready = true;
	pr_info("%zu kernel symbols", ksym_table.count);
}

const char *ksym_lookup(uintptr_t addr, uint64_t *off)
{
	if (!ksym_ready)
		return NULL;
	return elfsym_lookup(&ksym_table, addr, off);
}

const char *ksym_lookup_pc(uintptr_t pc, bool is_return, uint64_t *off)
{
	const char *s = ksym_lookup(pc - is_return, off);
	if (s)
		*off += is_return;
	return s;
}

uintptr_t ksym_address(const char *name)
{
	return ksym_ready ? elfsym_address(&ksym_table, name) : 0;
}

size_t ksym_count(void)
{
	return ksym_ready ? ksym_table.count : 0;
}

size_t backtrace_walk(uintptr_t pc, uintptr_t fp, uintptr_t *out, size_t max)
{
	if (max == 0)
		return 0;
	out[0] = pc;
	return 1 + arch_unwind(&fp, &UNWIND_ANY, out + 1, max - 1);
}

size_t backtrace_here(uintptr_t *out, size_t max)
{
	uintptr_t pc, fp;

	arch_unwind_caller(&pc, &fp);
	return backtrace_walk(pc, fp, out, max);
}

void backtrace_print(const uintptr_t *pcs, size_t n, bool locked)
{
	void (*out)(const char *, ...) = locked ? printk : printk_unlocked;

	out("  backtrace:\n");
	for (size_t i = 0; i < n; i++) {
		uint64_t off = 0;
		const char *s = ksym_lookup_pc(pcs[i], i > 0, &off);
		out("    #%zu %016lx %s+%#lx\n", i, pcs[i], s ? s : "?", off);
	}
}
