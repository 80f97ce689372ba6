/* x86-64 boot entry points and image layout symbols. */
#ifndef ARCH_BOOT_H
#define ARCH_BOOT_H

#include <arch/mm.h>
#include <kernel/types.h>

extern uint32_t boot_mb_magic, boot_mb_info;
extern char __boot_start[], __boot_end[];
extern char __kernel_start[], __kernel_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[];
extern char boot_stack_guard[], boot_stack_bottom[], boot_stack_top[];

/* Physical address of a kernel image symbol. */
static inline paddr_t kernel_virt_to_phys(const void *p)
{
	return (paddr_t)((uintptr_t)p - KERNEL_VMA);
}

/*
 * Parse the multiboot2 information at physical address info into
 * boot_info. Must run while the boot identity map exists.
 */
void boot_parse(uint32_t magic, paddr_t info);

/* True if va is a guard page inside the kernel image (left unmapped). */
bool arch_is_image_guard(uintptr_t va);

#endif
