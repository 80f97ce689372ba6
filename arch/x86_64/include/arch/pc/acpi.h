/*
 * ACPI static table parsing (RSDP, RSDT/XSDT, MADT, FADT, HPET).
 *
 * Pure logic: physical memory is reached only through a caller-supplied
 * acpi_map_fn, so the parser runs unchanged in the kernel (direct map) and
 * in host unit tests (a synthetic byte array). No allocation, no globals.
 */
#ifndef ARCH_PC_ACPI_H
#define ARCH_PC_ACPI_H

#include <kernel/types.h>

#define ACPI_MAX_CPUS    256
#define ACPI_MAX_IOAPICS 16
#define ACPI_MAX_ISOS    32
#define ACPI_MAX_NMIS    32

/* Largest SDT the parser will map and checksum (sanity bound on lengths). */
#define ACPI_MAX_TABLE_LEN MiB(1)

/* acpi_lapic_nmi_t.acpi_uid meaning "every processor" (type 4 0xff is
 * normalised to this). */
#define ACPI_UID_ALL 0xffffffffu

/* MPS INTI flags (ISO and NMI entries). */
#define ACPI_INTI_POL_MASK     0x3
#define ACPI_INTI_POL_DEFAULT  0x0
#define ACPI_INTI_POL_HIGH     0x1
#define ACPI_INTI_POL_LOW      0x3
#define ACPI_INTI_TRIG_MASK    0xc
#define ACPI_INTI_TRIG_DEFAULT 0x0
#define ACPI_INTI_TRIG_EDGE    0x4
#define ACPI_INTI_TRIG_LEVEL   0xc

/* FADT IAPC_BOOT_ARCH bits. */
#define ACPI_BOOT_LEGACY_DEVICES 0x0001
#define ACPI_BOOT_8042           0x0002
#define ACPI_BOOT_NO_VGA         0x0004
#define ACPI_BOOT_NO_MSI         0x0008
#define ACPI_BOOT_NO_ASPM        0x0010
#define ACPI_BOOT_NO_CMOS_RTC    0x0020

/* FADT Flags bits (subset). */
#define ACPI_FADT_RESET_REG_SUP  (1u << 10)
#define ACPI_FADT_HW_REDUCED     (1u << 20)

/* Generic Address Structure address spaces. */
#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO     1

/*
 * Returns a readable pointer to physical [addr, addr+len), or NULL. Every
 * pointer returned must stay valid until acpi_parse() returns (a direct
 * map satisfies this); the parser keeps no pointer after that.
 */
typedef const void *(*acpi_map_fn)(void *ctx, paddr_t addr, size_t len);

typedef struct acpi_gas {
    uint8_t space_id;    /* ACPI_GAS_MEMORY, ACPI_GAS_IO, ... */
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size; /* 0 undefined, 1 byte .. 4 qword */
    uint64_t address;    /* 0: not present */
} acpi_gas_t;

typedef struct acpi_madt_lapic {
    uint32_t apic_id;    /* xAPIC ID (type 0) or x2APIC ID (type 9) */
    uint32_t acpi_uid;   /* ACPI processor UID */
    bool enabled;        /* flags bit 0: usable now */
    bool online_capable; /* flags bit 1: may be hot-added later */
} acpi_madt_lapic_t;

typedef struct acpi_ioapic {
    uint8_t id;
    uint32_t addr;       /* MMIO base */
    uint32_t gsi_base;   /* first GSI of this IOAPIC */
} acpi_ioapic_t;

/* Interrupt source override: ISA IRQ bus_irq is wired to GSI gsi. */
typedef struct acpi_iso {
    uint8_t bus_irq;
    uint32_t gsi;
    uint16_t flags;      /* MPS INTI flags */
} acpi_iso_t;

typedef struct acpi_lapic_nmi {
    uint32_t acpi_uid;   /* ACPI_UID_ALL: every processor */
    uint8_t lint;        /* LINT0 or LINT1 */
    uint16_t flags;      /* MPS INTI flags */
} acpi_lapic_nmi_t;

typedef struct acpi_info {
    /* RSDP / root table */
    uint8_t revision;    /* RSDP revision: 0 = ACPI 1.0, 2 = 2.0+ */
    paddr_t rsdp_addr;   /* not known to the parser; caller may fill */
    bool xsdt;           /* true: root is the XSDT, else the RSDT */
    paddr_t root_addr;   /* physical address of the RSDT/XSDT used */
    size_t skipped_tables; /* unmappable or corrupt optional tables */

    /* MADT */
    bool have_madt;
    uint32_t lapic_addr_32; /* MADT Local Interrupt Controller Address */
    uint64_t lapic_addr;    /* the same, with a type-5 override applied */
    bool pcat_compat;       /* MADT flags bit 0: legacy 8259 present */
    acpi_madt_lapic_t lapics[ACPI_MAX_CPUS];
    size_t nlapics;
    acpi_ioapic_t ioapics[ACPI_MAX_IOAPICS];
    size_t nioapics;
    acpi_iso_t isos[ACPI_MAX_ISOS];
    size_t nisos;
    acpi_lapic_nmi_t nmis[ACPI_MAX_NMIS];
    size_t nnmis;
    size_t dropped;         /* MADT entries lost because an array was full */
    size_t bad_entries;     /* MADT entries too short for their type
                               (skipped) or with a length < 2 or past the
                               table end (ends the walk) */

    /* FADT ("FACP"); fields beyond the table's length read as 0 */
    bool have_fadt;
    uint8_t fadt_revision;
    uint32_t fadt_len;
    paddr_t dsdt;           /* X_DSDT if nonzero, else DSDT */
    uint16_t sci_int;
    uint32_t smi_cmd;
    uint8_t acpi_enable;
    uint8_t acpi_disable;
    uint32_t pm1a_evt_blk, pm1b_evt_blk;
    uint32_t pm1a_cnt_blk, pm1b_cnt_blk;
    uint32_t pm_tmr_blk;
    uint8_t pm1_evt_len, pm1_cnt_len, pm_tmr_len;
    uint8_t century;        /* RTC CMOS index of the century, 0: none */
    uint16_t iapc_boot_arch; /* ACPI_BOOT_* */
    uint32_t fadt_flags;     /* ACPI_FADT_* */
    acpi_gas_t reset_reg;    /* valid if fadt_flags & ACPI_FADT_RESET_REG_SUP */
    uint8_t reset_value;
    acpi_gas_t x_pm1a_evt_blk, x_pm1b_evt_blk;
    acpi_gas_t x_pm1a_cnt_blk, x_pm1b_cnt_blk;
    acpi_gas_t x_pm_tmr_blk;

    /* HPET */
    bool have_hpet;
    uint64_t hpet_addr;
} acpi_info_t;

/* True if MPS INTI flags say active-low (polarity 11). */
static inline bool acpi_inti_active_low(uint16_t flags)
{
    return (flags & ACPI_INTI_POL_MASK) == ACPI_INTI_POL_LOW;
}

/* True if MPS INTI flags say level-triggered (trigger 11). */
static inline bool acpi_inti_level(uint16_t flags)
{
    return (flags & ACPI_INTI_TRIG_MASK) == ACPI_INTI_TRIG_LEVEL;
}

/* ISA default (00) means active-high, edge; only 11 means low/level. */
static inline bool acpi_iso_active_low(const acpi_iso_t *iso)
{
    return acpi_inti_active_low(iso->flags);
}

static inline bool acpi_iso_level(const acpi_iso_t *iso)
{
    return acpi_inti_level(iso->flags);
}

/*
 * Sum of len bytes at p, modulo 256. An ACPI structure is valid when the
 * sum over its checksummed range is 0.
 */
uint8_t acpi_checksum(const void *p, size_t len);

/*
 * Scan [base, base+len) on 16-byte boundaries for a valid RSDP (signature
 * and 20-byte checksum), e.g. in the EBDA or 0xE0000-0xFFFFF when the boot
 * loader gave none. base must be 16-byte aligned relative to physical
 * memory for the result to be meaningful. Returns the RSDP or NULL.
 */
const void *acpi_scan_rsdp(const void *base, size_t len);

/*
 * Parse the ACPI tables reachable from the RSDP copy rsdp[0..rsdp_len)
 * into *out (fully overwritten; rsdp_addr is left 0 for the caller).
 * Uses the XSDT when revision >= 2, the RSDP is at least 36 bytes and the
 * XSDT address is nonzero; else the RSDT. map must return NULL for memory
 * it cannot provide. Only the first MADT/FADT/HPET found is used.
 * Returns EOK; EINVAL for a bad argument or a malformed RSDP, root table
 * or MADT (signature, checksum, length); EFAULT if the root table or the
 * MADT cannot be mapped; ENOENT if there is no MADT (the rest of *out is
 * still filled in). Unmappable or corrupt optional tables (FADT, HPET,
 * unknown) are skipped and counted in skipped_tables. An MADT entry whose
 * length is < 2 or runs past the table ends the walk (earlier entries are
 * kept); one too short for its type is skipped; both count in
 * bad_entries. Same-ID LAPIC entries (xAPIC + x2APIC) are kept once.
 */
errno_t acpi_parse(acpi_info_t *out, const void *rsdp, size_t rsdp_len,
                   acpi_map_fn map, void *ctx);

/*
 * Find the \_S5 sleep type values in a DSDT (the whole table, header
 * included): the first Name(_S5_, Package{a, b, ...}) in the AML. Returns
 * EOK with the two values, ENOENT, or EINVAL for a table too short to hold one.
 */
errno_t acpi_find_s5(const void *dsdt, size_t len, uint32_t *typa, uint32_t *typb);

#endif
