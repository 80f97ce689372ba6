/*
 * What the boot loader told us, in a loader-neutral form. Filled by the
 * arch boot code (multiboot2 on x86-64) before anything else runs.
 */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <kernel/console.h>
#include <kernel/types.h>

#define BOOT_MAX_MEM_REGIONS 128
#define BOOT_MAX_MODULES 16
#define BOOT_MAX_RESERVED 32
#define BOOT_CMDLINE_MAX 1024   /* bytes kept, with the NUL; longer: cut, with a warning */

typedef enum {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIM = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
} mem_type_t;

typedef struct mem_region {
	paddr_t base;
	uint64_t len;
	mem_type_t type;
} mem_region_t;

typedef struct boot_module {
	paddr_t start, end;
	char name[64];
} boot_module_t;

typedef struct boot_range {
	paddr_t start, end;   /* [start, end) in use by boot data */
} boot_range_t;

typedef struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	size_t cmdline_given;        /* its length as the loader gave it */
	char loader[64];
	bool uefi;
	mem_region_t mem[BOOT_MAX_MEM_REGIONS];
	size_t nmem;
	boot_module_t modules[BOOT_MAX_MODULES];
	size_t nmodules;
	boot_range_t reserved[BOOT_MAX_RESERVED]; /* must not be handed out */
	size_t nreserved;
	boot_fb_t fb;
	uint8_t rsdp[36];     /* copy of the ACPI RSDP */
	size_t rsdp_len;      /* 0: none found */
	paddr_t symtab, strtab;            /* kernel .symtab/.strtab (physical) */
	uint64_t symtab_size, strtab_size;
} boot_info_t;

extern boot_info_t boot_info;

/* Record a physical range the frame allocator must never hand out. */
void boot_reserve(paddr_t start, paddr_t end);

#endif
