/*
 * x86-64 virtual memory layout and page-table entry bits.
 *
 *   0xffff800000000000  direct map of physical memory (HHDM), RAM only;
 *                       MMIO is mapped there too, on demand, uncached
 *   0xffffc00000000000  kernel stacks, each with an unmapped guard page
 *   0xffffffff80000000  kernel image (linked here: -mcmodel=kernel)
 */
#ifndef ARCH_MM_H
#define ARCH_MM_H

#include <stdint.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE 4096ul
#define LARGE_PAGE_SIZE (2ul << 20)

#define KERNEL_VMA 0xffffffff80000000ul
#define HHDM_BASE 0xffff800000000000ul
#define KSTACK_BASE 0xffffc00000000000ul
#define KSTACK_AREA_SIZE (512ul << 30)
#define USER_TOP 0x00007ffffffff000ul

#define PTE_P (1ul << 0)
#define PTE_W (1ul << 1)
#define PTE_U (1ul << 2)
#define PTE_PWT (1ul << 3)
#define PTE_PCD (1ul << 4)
#define PTE_A (1ul << 5)
#define PTE_D (1ul << 6)
#define PTE_PS (1ul << 7)
#define PTE_G (1ul << 8)
#define PTE_DEV (1ul << 9)      /* software bit: device page, not RAM */
#define PTE_NX (1ul << 63)
#define PTE_ADDR 0x000ffffffffff000ul

#endif
