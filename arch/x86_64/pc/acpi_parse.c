/*
 * ACPI static table parsing: RSDP -> RSDT/XSDT -> MADT, FADT, HPET.
 *
 * Pure parsing, shared by the kernel and the host unit tests. Firmware
 * tables are untrusted: every length is checked against what was mapped,
 * all multi-byte fields are read byte-wise (no alignment assumptions) and
 * every output array is bounded.
 */
#include <arch/pc/acpi.h>
#include <lib/string.h>

#define ACPI_SDT_HDR_LEN 36u   /* signature .. creator revision */
#define ACPI_RSDP_V1_LEN 20u
#define ACPI_RSDP_V2_LEN 36u

/* RSDP field offsets. */
#define RSDP_REVISION 15
#define RSDP_RSDT     16
#define RSDP_LENGTH   20
#define RSDP_XSDT     24

/* SDT header offsets. */
#define SDT_LENGTH    4
#define SDT_REVISION  8

/* MADT. */
#define MADT_LAPIC_ADDR  36
#define MADT_FLAGS       40
#define MADT_ENTRIES     44
#define MADT_PCAT_COMPAT 0x1u

enum {
    MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_ISO = 2, MADT_NMI_SRC = 3,
    MADT_LAPIC_NMI = 4, MADT_LAPIC_ADDR_OVR = 5, MADT_X2APIC = 9,
    MADT_X2APIC_NMI = 10,
};

#define MADT_LAPIC_ENABLED        0x1u
#define MADT_LAPIC_ONLINE_CAPABLE 0x2u

/* FADT offsets (ACPI 6.x table 5.9). */
#define FADT_DSDT           40
#define FADT_SCI_INT        46
#define FADT_SMI_CMD        48
#define FADT_ACPI_ENABLE    52
#define FADT_ACPI_DISABLE   53
#define FADT_PM1A_EVT_BLK   56
#define FADT_PM1B_EVT_BLK   60
#define FADT_PM1A_CNT_BLK   64
#define FADT_PM1B_CNT_BLK   68
#define FADT_PM_TMR_BLK     76
#define FADT_PM1_EVT_LEN    88
#define FADT_PM1_CNT_LEN    89
#define FADT_PM_TMR_LEN     91
#define FADT_CENTURY        108
#define FADT_IAPC_BOOT_ARCH 109
#define FADT_FLAGS          112
#define FADT_RESET_REG      116
#define FADT_RESET_VALUE    128
#define FADT_X_DSDT         140
#define FADT_X_PM1A_EVT_BLK 148
#define FADT_X_PM1B_EVT_BLK 160
#define FADT_X_PM1A_CNT_BLK 172
#define FADT_X_PM1B_CNT_BLK 184
#define FADT_X_PM_TMR_BLK   208

#define ACPI_GAS_LEN 12u

/* HPET: base address GAS at 40, its address field at 44. */
#define HPET_BASE_GAS 40

/* A mapped, length-checked table. */
typedef struct acpi_table {
    const uint8_t *p;
    uint32_t len;
} acpi_table_t;

/* ---------------------------------------------------------------- readers */

static uint16_t acpi_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t acpi_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t acpi_rd64(const uint8_t *p)
{
    return (uint64_t)acpi_rd32(p) | (uint64_t)acpi_rd32(p + 4) << 32;
}

/* Bounded reads of a table field: 0 if the field lies past the end. */
static uint8_t acpi_tb8(const acpi_table_t *t, size_t off)
{
    return off + 1 <= t->len ? t->p[off] : 0;
}

static uint16_t acpi_tb16(const acpi_table_t *t, size_t off)
{
    return off + 2 <= t->len ? acpi_rd16(t->p + off) : 0;
}

static uint32_t acpi_tb32(const acpi_table_t *t, size_t off)
{
    return off + 4 <= t->len ? acpi_rd32(t->p + off) : 0;
}

static uint64_t acpi_tb64(const acpi_table_t *t, size_t off)
{
    return off + 8 <= t->len ? acpi_rd64(t->p + off) : 0;
}

static acpi_gas_t acpi_tb_gas(const acpi_table_t *t, size_t off)
{
    acpi_gas_t g = { 0 };

    if (off + ACPI_GAS_LEN <= t->len) {
        g.space_id = t->p[off];
        g.bit_width = t->p[off + 1];
        g.bit_offset = t->p[off + 2];
        g.access_size = t->p[off + 3];
        g.address = acpi_rd64(t->p + off + 4);
    }
    return g;
}

/* ---------------------------------------------------------------- mapping */

/* Byte sum of p[0..len) mod 256; 0 over a valid ACPI structure. */
uint8_t acpi_checksum(const void *p, size_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;

    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + b[i]);
    return sum;
}

/* map() with a wrap-around check on [addr, addr+len). */
static const uint8_t *acpi_map(acpi_map_fn map, void *ctx, paddr_t addr,
                               size_t len)
{
    if (addr == 0 || addr + len < addr)
        return NULL;
    return map(ctx, addr, len);
}

/*
 * Map the SDT at addr, require signature sig, a sane length and a zero
 * checksum. EFAULT if unmappable, EINVAL if malformed.
 */
static errno_t acpi_load_table(acpi_map_fn map, void *ctx, paddr_t addr,
                               const char *sig, acpi_table_t *t)
{
    const uint8_t *hdr = acpi_map(map, ctx, addr, ACPI_SDT_HDR_LEN);

    if (hdr == NULL)
        return EFAULT;
    if (memcmp(hdr, sig, 4) != 0)
        return EINVAL;
    t->len = acpi_rd32(hdr + SDT_LENGTH);
    if (t->len < ACPI_SDT_HDR_LEN || t->len > ACPI_MAX_TABLE_LEN)
        return EINVAL;
    t->p = acpi_map(map, ctx, addr, t->len);
    if (t->p == NULL)
        return EFAULT;
    if (acpi_checksum(t->p, t->len) != 0)
        return EINVAL;
    return EOK;
}

/* ---------------------------------------------------------------- RSDP */

static bool acpi_rsdp_v1_ok(const uint8_t *r, size_t len)
{
    return len >= ACPI_RSDP_V1_LEN && memcmp(r, "RSD PTR ", 8) == 0 &&
           acpi_checksum(r, ACPI_RSDP_V1_LEN) == 0;
}

/* First valid RSDP on a 16-byte boundary in base[0..len), or NULL. */
const void *acpi_scan_rsdp(const void *base, size_t len)
{
    const uint8_t *b = base;

    if (b == NULL)
        return NULL;
    for (size_t off = 0; off + ACPI_RSDP_V1_LEN <= len; off += 16) {
        if (acpi_rsdp_v1_ok(b + off, len - off))
            return b + off;
    }
    return NULL;
}

/* Validate the RSDP copy and pick the root table (*root, out->xsdt). */
static errno_t acpi_parse_rsdp(acpi_info_t *out, const uint8_t *r,
                               size_t len, paddr_t *root)
{
    if (!acpi_rsdp_v1_ok(r, len))
        return EINVAL;
    out->revision = r[RSDP_REVISION];
    if (out->revision >= 2 && len >= ACPI_RSDP_V2_LEN) {
        uint32_t xlen = acpi_rd32(r + RSDP_LENGTH);

        if (xlen < ACPI_RSDP_V2_LEN || xlen > len ||
            acpi_checksum(r, xlen) != 0)
            return EINVAL;
        *root = acpi_rd64(r + RSDP_XSDT);
        if (*root != 0) {
            out->xsdt = true;
            return EOK;
        }
    }
    *root = acpi_rd32(r + RSDP_RSDT);
    return *root != 0 ? EOK : EINVAL;
}

/* ---------------------------------------------------------------- MADT */

/* Smallest valid length of each MADT entry type we parse (0: ignored). */
static size_t acpi_madt_min_len(uint8_t type)
{
    switch (type) {
    case MADT_LAPIC:          return 8;
    case MADT_IOAPIC:         return 12;
    case MADT_ISO:            return 10;
    case MADT_LAPIC_NMI:      return 6;
    case MADT_LAPIC_ADDR_OVR: return 12;
    case MADT_X2APIC:         return 16;
    case MADT_X2APIC_NMI:     return 12;
    default:                  return 0;
    }
}

static void acpi_add_lapic(acpi_info_t *out, uint32_t apic_id, uint32_t uid,
                           uint32_t flags)
{
    for (size_t i = 0; i < out->nlapics; i++) {
        if (out->lapics[i].apic_id == apic_id)
            return; /* same CPU listed as both xAPIC and x2APIC */
    }
    if (out->nlapics == ACPI_MAX_CPUS) {
        out->dropped++;
        return;
    }
    out->lapics[out->nlapics++] = (acpi_madt_lapic_t){
        .apic_id = apic_id,
        .acpi_uid = uid,
        .enabled = (flags & MADT_LAPIC_ENABLED) != 0,
        .online_capable = (flags & MADT_LAPIC_ONLINE_CAPABLE) != 0,
    };
}

static void acpi_add_ioapic(acpi_info_t *out, const uint8_t *e)
{
    if (out->nioapics == ACPI_MAX_IOAPICS) {
        out->dropped++;
        return;
    }
    out->ioapics[out->nioapics++] = (acpi_ioapic_t){
        .id = e[2],
        .addr = acpi_rd32(e + 4),
        .gsi_base = acpi_rd32(e + 8),
    };
}

static void acpi_add_iso(acpi_info_t *out, const uint8_t *e)
{
    if (out->nisos == ACPI_MAX_ISOS) {
        out->dropped++;
        return;
    }
    out->isos[out->nisos++] = (acpi_iso_t){
        .bus_irq = e[3],
        .gsi = acpi_rd32(e + 4),
        .flags = acpi_rd16(e + 8),
    };
}

static void acpi_add_nmi(acpi_info_t *out, uint32_t uid, uint8_t lint,
                         uint16_t flags)
{
    if (out->nnmis == ACPI_MAX_NMIS) {
        out->dropped++;
        return;
    }
    out->nmis[out->nnmis++] = (acpi_lapic_nmi_t){
        .acpi_uid = uid, .lint = lint, .flags = flags,
    };
}

/* One MADT entry e of length >= acpi_madt_min_len(e[0]). */
static void acpi_madt_entry(acpi_info_t *out, const uint8_t *e)
{
    switch (e[0]) {
    case MADT_LAPIC:
        acpi_add_lapic(out, e[3], e[2], acpi_rd32(e + 4));
        break;
    case MADT_IOAPIC:
        acpi_add_ioapic(out, e);
        break;
    case MADT_ISO:
        acpi_add_iso(out, e);
        break;
    case MADT_LAPIC_NMI:
        acpi_add_nmi(out, e[2] == 0xff ? ACPI_UID_ALL : e[2], e[5],
                     acpi_rd16(e + 3));
        break;
    case MADT_LAPIC_ADDR_OVR:
        out->lapic_addr = acpi_rd64(e + 4);
        break;
    case MADT_X2APIC:
        acpi_add_lapic(out, acpi_rd32(e + 4), acpi_rd32(e + 12),
                       acpi_rd32(e + 8));
        break;
    case MADT_X2APIC_NMI:
        acpi_add_nmi(out, acpi_rd32(e + 4), e[8], acpi_rd16(e + 2));
        break;
    }
}

/* Walk the MADT's entries; a bad entry length ends the walk. */
static void acpi_parse_madt(acpi_info_t *out, const acpi_table_t *t)
{
    out->have_madt = true;
    out->lapic_addr_32 = acpi_rd32(t->p + MADT_LAPIC_ADDR);
    out->lapic_addr = out->lapic_addr_32;
    out->pcat_compat = (acpi_rd32(t->p + MADT_FLAGS) & MADT_PCAT_COMPAT) != 0;
    for (size_t off = MADT_ENTRIES; off < t->len;) {
        const uint8_t *e = t->p + off;

        if (t->len - off < 2 || e[1] < 2 || e[1] > t->len - off) {
            out->bad_entries++;
            return;
        }
        if (e[1] < acpi_madt_min_len(e[0]))
            out->bad_entries++;
        else
            acpi_madt_entry(out, e);
        off += e[1];
    }
}

/* ---------------------------------------------------------------- FADT */

/* The ACPI 1.0 part of the FADT (fields past the end read as 0). */
static void acpi_parse_fadt_v1(acpi_info_t *out, const acpi_table_t *t)
{
    out->dsdt = acpi_tb32(t, FADT_DSDT);
    out->sci_int = acpi_tb16(t, FADT_SCI_INT);
    out->smi_cmd = acpi_tb32(t, FADT_SMI_CMD);
    out->acpi_enable = acpi_tb8(t, FADT_ACPI_ENABLE);
    out->acpi_disable = acpi_tb8(t, FADT_ACPI_DISABLE);
    out->pm1a_evt_blk = acpi_tb32(t, FADT_PM1A_EVT_BLK);
    out->pm1b_evt_blk = acpi_tb32(t, FADT_PM1B_EVT_BLK);
    out->pm1a_cnt_blk = acpi_tb32(t, FADT_PM1A_CNT_BLK);
    out->pm1b_cnt_blk = acpi_tb32(t, FADT_PM1B_CNT_BLK);
    out->pm_tmr_blk = acpi_tb32(t, FADT_PM_TMR_BLK);
    out->pm1_evt_len = acpi_tb8(t, FADT_PM1_EVT_LEN);
    out->pm1_cnt_len = acpi_tb8(t, FADT_PM1_CNT_LEN);
    out->pm_tmr_len = acpi_tb8(t, FADT_PM_TMR_LEN);
    out->century = acpi_tb8(t, FADT_CENTURY);
    out->iapc_boot_arch = acpi_tb16(t, FADT_IAPC_BOOT_ARCH);
    out->fadt_flags = acpi_tb32(t, FADT_FLAGS);
}

/* The ACPI 2.0+ extension (reset register, 64-bit X_ addresses). */
static void acpi_parse_fadt_x(acpi_info_t *out, const acpi_table_t *t)
{
    uint64_t x_dsdt = acpi_tb64(t, FADT_X_DSDT);

    if (x_dsdt != 0)
        out->dsdt = x_dsdt;
    out->reset_reg = acpi_tb_gas(t, FADT_RESET_REG);
    out->reset_value = acpi_tb8(t, FADT_RESET_VALUE);
    out->x_pm1a_evt_blk = acpi_tb_gas(t, FADT_X_PM1A_EVT_BLK);
    out->x_pm1b_evt_blk = acpi_tb_gas(t, FADT_X_PM1B_EVT_BLK);
    out->x_pm1a_cnt_blk = acpi_tb_gas(t, FADT_X_PM1A_CNT_BLK);
    out->x_pm1b_cnt_blk = acpi_tb_gas(t, FADT_X_PM1B_CNT_BLK);
    out->x_pm_tmr_blk = acpi_tb_gas(t, FADT_X_PM_TMR_BLK);
}

static void acpi_parse_fadt(acpi_info_t *out, const acpi_table_t *t)
{
    out->have_fadt = true;
    out->fadt_revision = t->p[SDT_REVISION];
    out->fadt_len = t->len;
    acpi_parse_fadt_v1(out, t);
    acpi_parse_fadt_x(out, t);
}

/* ---------------------------------------------------------------- HPET */

/* False if the HPET table is too short or not memory-mapped. */
static bool acpi_parse_hpet(acpi_info_t *out, const acpi_table_t *t)
{
    acpi_gas_t base = acpi_tb_gas(t, HPET_BASE_GAS);

    if (base.space_id != ACPI_GAS_MEMORY || base.address == 0)
        return false;
    out->have_hpet = true;
    out->hpet_addr = base.address;
    return true;
}

/* ---------------------------------------------------------------- root */

/* The MADT is required: any defect in it is an error. */
static errno_t acpi_load_madt(acpi_info_t *out, paddr_t addr,
                              acpi_map_fn map, void *ctx)
{
    acpi_table_t t;
    errno_t err = acpi_load_table(map, ctx, addr, "APIC", &t);

    if (err != EOK)
        return err;
    if (t.len < MADT_ENTRIES)
        return EINVAL;
    acpi_parse_madt(out, &t);
    return EOK;
}

/* Optional tables: a defect only skips (and counts) the table. */
static void acpi_load_optional(acpi_info_t *out, paddr_t addr,
                               const char *sig, acpi_map_fn map, void *ctx)
{
    acpi_table_t t;

    if (acpi_load_table(map, ctx, addr, sig, &t) != EOK)
        out->skipped_tables++;
    else if (sig[0] == 'F')
        acpi_parse_fadt(out, &t);
    else if (!acpi_parse_hpet(out, &t))
        out->skipped_tables++;
}

/* Load and parse the SDT at addr if it is one we want and have not seen. */
static errno_t acpi_parse_sdt(acpi_info_t *out, paddr_t addr,
                              acpi_map_fn map, void *ctx)
{
    const uint8_t *hdr = acpi_map(map, ctx, addr, ACPI_SDT_HDR_LEN);
    char sig[4];

    if (addr == 0)
        return EOK; /* empty slot */
    if (hdr == NULL) {
        out->skipped_tables++;
        return EOK;
    }
    memcpy(sig, hdr, 4);
    if (memcmp(sig, "APIC", 4) == 0 && !out->have_madt)
        return acpi_load_madt(out, addr, map, ctx);
    if (memcmp(sig, "FACP", 4) == 0 && !out->have_fadt)
        acpi_load_optional(out, addr, "FACP", map, ctx);
    else if (memcmp(sig, "HPET", 4) == 0 && !out->have_hpet)
        acpi_load_optional(out, addr, "HPET", map, ctx);
    return EOK;
}

/* Walk the RSDT (4-byte entries) or XSDT (8-byte entries). */
static errno_t acpi_parse_root(acpi_info_t *out, const acpi_table_t *root,
                               acpi_map_fn map, void *ctx)
{
    size_t esize = out->xsdt ? 8 : 4;

    for (size_t off = ACPI_SDT_HDR_LEN; off + esize <= root->len;
         off += esize) {
        const uint8_t *e = root->p + off;
        paddr_t addr = out->xsdt ? acpi_rd64(e) : acpi_rd32(e);
        errno_t err = acpi_parse_sdt(out, addr, map, ctx);

        if (err != EOK)
            return err;
    }
    return EOK;
}

/*
 * Fill *out from the RSDP copy and the tables it reaches through map.
 * EOK, or EINVAL/EFAULT/ENOENT as documented in <arch/pc/acpi.h>.
 */
errno_t acpi_parse(acpi_info_t *out, const void *rsdp, size_t rsdp_len,
                   acpi_map_fn map, void *ctx)
{
    acpi_table_t root;
    paddr_t root_addr;
    errno_t err;

    if (out == NULL || rsdp == NULL || map == NULL)
        return EINVAL;
    memset(out, 0, sizeof(*out));
    err = acpi_parse_rsdp(out, rsdp, rsdp_len, &root_addr);
    if (err != EOK)
        return err;
    out->root_addr = root_addr;
    err = acpi_load_table(map, ctx, root_addr, out->xsdt ? "XSDT" : "RSDT",
                          &root);
    if (err != EOK)
        return err;
    err = acpi_parse_root(out, &root, map, ctx);
    if (err != EOK)
        return err;
    return out->have_madt ? EOK : ENOENT;
}

/* ---------------------------------------------------------------- \_S5 */

/* One AML integer: Zero/One/BytePrefix/WordPrefix/DWordPrefix. Advances *p. */
static bool acpi_aml_int(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    const uint8_t *q = *p;
    size_t n = 0;

    if (q >= end)
        return false;
    switch (*q) {
    case 0x00: *v = 0; *p = q + 1; return true;
    case 0x01: *v = 1; *p = q + 1; return true;
    case 0x0a: n = 1; break;
    case 0x0b: n = 2; break;
    case 0x0c: n = 4; break;
    default: return false;
    }
    if ((size_t)(end - q) < 1 + n)
        return false;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v |= (uint32_t)q[1 + i] << (8 * i);
    *p = q + 1 + n;
    return true;
}

/* Skip an AML PkgLength at *p. */
static bool acpi_aml_pkglen(const uint8_t **p, const uint8_t *end)
{
    if (*p >= end)
        return false;
    size_t follow = **p >> 6;
    if ((size_t)(end - *p) < 1 + follow)
        return false;
    *p += 1 + follow;
    return true;
}

/* Parse "Name(_S5_, Package(n){a, b, ...})" right after the name. */
static bool acpi_s5_package(const uint8_t *p, const uint8_t *end,
                            uint32_t *typa, uint32_t *typb)
{
    if (p >= end || *p++ != 0x12)          /* PackageOp */
        return false;
    if (!acpi_aml_pkglen(&p, end) || p >= end)
        return false;
    p++;                                    /* NumElements */
    return acpi_aml_int(&p, end, typa) && acpi_aml_int(&p, end, typb);
}

errno_t acpi_find_s5(const void *dsdt, size_t len, uint32_t *typa, uint32_t *typb)
{
    const uint8_t *b = dsdt, *end = b + len;

    if (!dsdt || len < 36 + 5)
        return EINVAL;
    for (const uint8_t *p = b + 36; p + 5 <= end; p++) {
        if (memcmp(p, "_S5_", 4))
            continue;
        bool named = p[-1] == 0x08 || (p >= b + 37 && p[-2] == 0x08 && p[-1] == '\\');
        if (named && acpi_s5_package(p + 4, end, typa, typb))
            return EOK;
    }
    return ENOENT;
}
