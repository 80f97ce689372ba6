/*
 * Host unit test for arch/x86_64/pc/acpi_parse.c.
 *
 * Builds ACPI tables in a synthetic "physical memory" array. The map
 * callback hands out a fresh heap copy of exactly the requested range, so
 * AddressSanitizer catches any read past what the parser asked to map.
 */
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arch/pc/acpi.h>

#define MEM_SIZE 0x20000u

/* Physical layout of the synthetic tables. */
#define P_RSDT   0x1000u
#define P_XSDT   0x1100u
#define P_MADT   0x2000u
#define P_FADT1  0x3000u
#define P_FADT5  0x3200u
#define P_HPET   0x4000u
#define P_MADT2  0x6000u  /* scratch MADT for the error cases */
#define P_SCAN   0x8000u  /* RSDP scan area */
#define P_BIGMADT 0x10000u

static uint8_t mem[MEM_SIZE];

/* ---------------------------------------------------------------- map */

static void *maps[1024];
static size_t nmaps;
static size_t map_calls;

static const void *strict_map(void *ctx, paddr_t addr, size_t len)
{
    void *p;

    (void)ctx;
    map_calls++;
    if (addr >= MEM_SIZE || len > MEM_SIZE - addr || nmaps == 1024)
        return NULL;
    p = malloc(len ? len : 1);
    if (p == NULL)
        abort();
    memcpy(p, mem + addr, len);
    maps[nmaps++] = p;
    return p;
}

static void unmap_all(void)
{
    while (nmaps > 0)
        free(maps[--nmaps]);
}

static acpi_info_t info;

static errno_t parse(const void *rsdp, size_t len)
{
    errno_t err = acpi_parse(&info, rsdp, len, strict_map, NULL);

    unmap_all();
    return err;
}

/* ---------------------------------------------------------------- builders */

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
    wr16(p, (uint16_t)v);
    wr16(p + 2, (uint16_t)(v >> 16));
}

static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;

    while (n--)
        s = (uint8_t)(s + *p++);
    return s;
}

/* A table under construction at mem[base], with a write cursor. */
typedef struct tb {
    uint32_t base;
    uint32_t off;
} tb_t;

static uint8_t *cur(tb_t *b)
{
    return mem + b->base + b->off;
}

static void put8(tb_t *b, uint8_t v)
{
    *cur(b) = v;
    b->off += 1;
}

static void put16(tb_t *b, uint16_t v)
{
    wr16(cur(b), v);
    b->off += 2;
}

static void put32(tb_t *b, uint32_t v)
{
    wr32(cur(b), v);
    b->off += 4;
}

static void put64(tb_t *b, uint64_t v)
{
    wr64(cur(b), v);
    b->off += 8;
}

static tb_t sdt_begin(uint32_t base, const char *sig, uint8_t rev)
{
    tb_t b = { base, 36 };

    memset(mem + base, 0, 36);
    memcpy(mem + base, sig, 4);
    mem[base + 8] = rev;
    memcpy(mem + base + 10, "VERNR ", 6);
    return b;
}

static void fix_checksum(uint32_t base)
{
    uint32_t len = (uint32_t)mem[base + 4] | (uint32_t)mem[base + 5] << 8 |
                   (uint32_t)mem[base + 6] << 16 | (uint32_t)mem[base + 7] << 24;

    if (len < 10 || len > MEM_SIZE - base)
        return; /* fuzzed length: leave the checksum alone */
    mem[base + 9] = 0;
    mem[base + 9] = (uint8_t)-sum(mem + base, len);
}

static void sdt_end(tb_t *b)
{
    wr32(mem + b->base + 4, b->off);
    fix_checksum(b->base);
}

static void madt_lapic(tb_t *b, uint8_t uid, uint8_t id, uint32_t flags)
{
    put8(b, 0), put8(b, 8), put8(b, uid), put8(b, id), put32(b, flags);
}

static void madt_ioapic(tb_t *b, uint8_t id, uint32_t addr, uint32_t gsi)
{
    put8(b, 1), put8(b, 12), put8(b, id), put8(b, 0);
    put32(b, addr), put32(b, gsi);
}

static void madt_iso(tb_t *b, uint8_t irq, uint32_t gsi, uint16_t flags)
{
    put8(b, 2), put8(b, 10), put8(b, 0), put8(b, irq);
    put32(b, gsi), put16(b, flags);
}

static void madt_nmi(tb_t *b, uint8_t uid, uint16_t flags, uint8_t lint)
{
    put8(b, 4), put8(b, 6), put8(b, uid), put16(b, flags), put8(b, lint);
}

static void madt_addr_ovr(tb_t *b, uint64_t addr)
{
    put8(b, 5), put8(b, 12), put16(b, 0), put64(b, addr);
}

static void madt_x2apic(tb_t *b, uint32_t id, uint32_t flags, uint32_t uid)
{
    put8(b, 9), put8(b, 16), put16(b, 0);
    put32(b, id), put32(b, flags), put32(b, uid);
}

static void madt_x2nmi(tb_t *b, uint16_t flags, uint32_t uid, uint8_t lint)
{
    put8(b, 10), put8(b, 12), put16(b, flags), put32(b, uid);
    put8(b, lint), put8(b, 0), put16(b, 0);
}

static tb_t madt_begin(uint32_t base)
{
    tb_t b = sdt_begin(base, "APIC", 4);

    put32(&b, 0xfee00000u);
    put32(&b, 1); /* PCAT_COMPAT */
    return b;
}

/* The main MADT: 4 LAPICs, 2 IOAPICs, ISOs, NMIs, override, x2APIC. */
static void build_madt(void)
{
    tb_t b = madt_begin(P_MADT);

    madt_lapic(&b, 0, 0, 1);
    madt_lapic(&b, 1, 1, 1);
    madt_lapic(&b, 2, 2, 0);          /* disabled */
    madt_lapic(&b, 3, 3, 2);          /* online-capable */
    madt_ioapic(&b, 4, 0xfec00000u, 0);
    madt_ioapic(&b, 5, 0xfec01000u, 24);
    madt_iso(&b, 0, 2, 0x0000);       /* IRQ0 -> GSI2, bus default */
    madt_iso(&b, 9, 9, 0x000f);       /* IRQ9 level, active low */
    madt_nmi(&b, 0xff, 0x0005, 1);    /* all CPUs, LINT1, edge high */
    put8(&b, 3), put8(&b, 8), put16(&b, 0), put32(&b, 0); /* NMI source */
    put8(&b, 0x7f), put8(&b, 4), put16(&b, 0); /* unknown type */
    madt_addr_ovr(&b, 0x1fee00000ull);
    madt_x2apic(&b, 256, 1, 4);
    madt_x2apic(&b, 1, 1, 1);         /* duplicate of LAPIC 1 */
    madt_x2nmi(&b, 0x000d, 4, 0);
    sdt_end(&b);
}

static void build_fadt1(void)
{
    tb_t b = sdt_begin(P_FADT1, "FACP", 1);

    memset(mem + P_FADT1 + 36, 0, 116 - 36);
    wr32(mem + P_FADT1 + 40, 0x5000);   /* DSDT */
    wr16(mem + P_FADT1 + 46, 9);        /* SCI_INT */
    wr32(mem + P_FADT1 + 48, 0xb2);     /* SMI_CMD */
    mem[P_FADT1 + 52] = 0xf0;           /* ACPI_ENABLE */
    mem[P_FADT1 + 53] = 0xf1;
    wr32(mem + P_FADT1 + 56, 0x400);    /* PM1a_EVT_BLK */
    wr32(mem + P_FADT1 + 64, 0x404);    /* PM1a_CNT_BLK */
    wr32(mem + P_FADT1 + 68, 0x0);      /* PM1b_CNT_BLK */
    wr32(mem + P_FADT1 + 76, 0x408);    /* PM_TMR_BLK */
    mem[P_FADT1 + 88] = 4;
    mem[P_FADT1 + 89] = 2;              /* PM1_CNT_LEN */
    mem[P_FADT1 + 91] = 4;
    mem[P_FADT1 + 108] = 0x32;          /* CENTURY */
    wr32(mem + P_FADT1 + 112, 0x1);     /* WBINVD */
    b.off = 116;
    sdt_end(&b);
}

static void build_fadt5(void)
{
    uint8_t *f = mem + P_FADT5;
    tb_t b = sdt_begin(P_FADT5, "FACP", 5);

    memset(f + 36, 0, 268 - 36);
    wr32(f + 40, 0x5000);
    wr32(f + 48, 0xb2);
    f[52] = 0xa0;
    wr32(f + 64, 0x604);
    wr32(f + 68, 0x608);
    f[89] = 2;
    f[108] = 0x32;
    wr16(f + 109, ACPI_BOOT_8042 | ACPI_BOOT_NO_VGA);
    wr32(f + 112, ACPI_FADT_RESET_REG_SUP | 0x1);
    f[116] = ACPI_GAS_IO, f[117] = 8, wr64(f + 120, 0xcf9); /* RESET_REG */
    f[128] = 0x06;
    wr64(f + 140, 0x15000);                                  /* X_DSDT */
    f[172] = ACPI_GAS_IO, f[173] = 16, f[175] = 2;
    wr64(f + 176, 0x604);                                    /* X_PM1a_CNT */
    f[208] = ACPI_GAS_IO, f[209] = 32, wr64(f + 212, 0x608);/* X_PM_TMR */
    b.off = 268;
    sdt_end(&b);
}

static void build_hpet(void)
{
    tb_t b = sdt_begin(P_HPET, "HPET", 1);

    put32(&b, 0x8086a201u);                 /* event timer block id */
    put8(&b, ACPI_GAS_MEMORY), put8(&b, 64), put8(&b, 0), put8(&b, 0);
    put64(&b, 0xfed00000u);
    put8(&b, 0), put16(&b, 0x80), put8(&b, 0);
    sdt_end(&b);
}

static void build_root(uint32_t base, const char *sig, const uint64_t *ents,
                       size_t n)
{
    tb_t b = sdt_begin(base, sig, 1);

    for (size_t i = 0; i < n; i++) {
        if (sig[0] == 'X')
            put64(&b, ents[i]);
        else
            put32(&b, (uint32_t)ents[i]);
    }
    sdt_end(&b);
}

static void build_rsdp(uint8_t *r, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
    memset(r, 0, 36);
    memcpy(r, "RSD PTR ", 8);
    memcpy(r + 9, "VERNR ", 6);
    r[15] = rev;
    wr32(r + 16, rsdt);
    wr32(r + 20, 36);
    wr64(r + 24, xsdt);
    r[8] = (uint8_t)-sum(r, 20);
    r[32] = (uint8_t)-sum(r, 36);
}

/* Standard world: RSDT -> MADT, FADT1, HPET; XSDT -> MADT, FADT5, HPET. */
static void build_world(void)
{
    uint64_t rsdt[] = { P_MADT, P_FADT1, P_HPET };
    uint64_t xsdt[] = { P_FADT5, P_HPET, P_MADT };

    memset(mem, 0, sizeof(mem));
    build_madt();
    build_fadt1();
    build_fadt5();
    build_hpet();
    build_root(P_RSDT, "RSDT", rsdt, 3);
    build_root(P_XSDT, "XSDT", xsdt, 3);
}

/* ---------------------------------------------------------------- tests */

static void check_madt(const char *what)
{
    const acpi_madt_lapic_t *l = info.lapics;

    ok(info.have_madt, "%s: MADT found", what);
    is_int(info.nlapics, 5, "5 LAPICs (x2APIC duplicate ignored)");
    ok(l[0].apic_id == 0 && l[0].acpi_uid == 0 && l[0].enabled &&
       !l[0].online_capable, "LAPIC 0 enabled");
    ok(l[1].apic_id == 1 && l[1].enabled, "LAPIC 1 enabled");
    ok(l[2].apic_id == 2 && !l[2].enabled && !l[2].online_capable,
       "LAPIC 2 disabled");
    ok(l[3].apic_id == 3 && !l[3].enabled && l[3].online_capable,
       "LAPIC 3 online-capable");
    ok(l[4].apic_id == 256 && l[4].acpi_uid == 4 && l[4].enabled,
       "x2APIC 256 uid 4 enabled");
    is_int(info.nioapics, 2, "2 IOAPICs");
    ok(info.ioapics[0].id == 4 && info.ioapics[0].addr == 0xfec00000u &&
       info.ioapics[0].gsi_base == 0, "IOAPIC 0");
    ok(info.ioapics[1].id == 5 && info.ioapics[1].addr == 0xfec01000u &&
       info.ioapics[1].gsi_base == 24, "IOAPIC 1 gsi base 24");
    is_int(info.nisos, 2, "2 ISOs");
    ok(info.isos[0].bus_irq == 0 && info.isos[0].gsi == 2 &&
       !acpi_iso_level(&info.isos[0]) && !acpi_iso_active_low(&info.isos[0]),
       "ISO IRQ0 -> GSI2 edge high");
    ok(info.isos[1].bus_irq == 9 && info.isos[1].gsi == 9 &&
       acpi_iso_level(&info.isos[1]) && acpi_iso_active_low(&info.isos[1]),
       "ISO IRQ9 level active-low");
    is_int(info.nnmis, 2, "2 LAPIC NMIs");
    ok(info.nmis[0].acpi_uid == ACPI_UID_ALL && info.nmis[0].lint == 1 &&
       info.nmis[0].flags == 5, "type-4 NMI: uid 0xff -> all, LINT1");
    ok(info.nmis[1].acpi_uid == 4 && info.nmis[1].lint == 0 &&
       acpi_inti_level(info.nmis[1].flags) &&
       !acpi_inti_active_low(info.nmis[1].flags), "x2APIC NMI uid 4 LINT0");
    ok(info.lapic_addr_32 == 0xfee00000u, "MADT LAPIC address");
    ok(info.lapic_addr == 0x1fee00000ull, "override applied");
    ok(info.pcat_compat, "PCAT_COMPAT");
    is_int(info.dropped, 0, "nothing dropped");
    is_int(info.bad_entries, 0, "no bad entries");
    ok(info.have_hpet && info.hpet_addr == 0xfed00000u, "HPET address");
    is_int(info.skipped_tables, 0, "no skipped tables");
}

static void test_v1(void)
{
    uint8_t r[36];

    build_world();
    build_rsdp(r, 0, P_RSDT, 0);
    is_int(parse(r, 20), EOK, "v1: parse ok");
    ok(info.revision == 0 && !info.xsdt && info.root_addr == P_RSDT,
       "v1: uses RSDT");
    check_madt("v1");
    ok(info.have_fadt && info.fadt_revision == 1 && info.fadt_len == 116,
       "FADT rev 1, 116 bytes");
    ok(info.dsdt == 0x5000 && info.sci_int == 9, "FADT1 DSDT, SCI");
    ok(info.smi_cmd == 0xb2 && info.acpi_enable == 0xf0 &&
       info.acpi_disable == 0xf1, "FADT1 SMI_CMD, ACPI_ENABLE/DISABLE");
    ok(info.pm1a_cnt_blk == 0x404 && info.pm1b_cnt_blk == 0 &&
       info.pm1_cnt_len == 2, "FADT1 PM1 control");
    ok(info.pm1a_evt_blk == 0x400 && info.pm_tmr_blk == 0x408 &&
       info.pm_tmr_len == 4, "FADT1 PM1 event, PM timer");
    ok(info.century == 0x32 && info.fadt_flags == 1 &&
       info.iapc_boot_arch == 0, "FADT1 century, flags");
    ok(info.x_pm1a_cnt_blk.address == 0 && info.reset_reg.address == 0,
       "FADT1: no extended fields");
}

static void test_v2(void)
{
    uint8_t r[36];

    build_world();
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    is_int(parse(r, 36), EOK, "v2: parse ok");
    ok(info.revision == 2 && info.xsdt && info.root_addr == P_XSDT,
       "v2: uses XSDT");
    check_madt("v2");
    ok(info.have_fadt && info.fadt_revision == 5 && info.fadt_len == 268,
       "FADT rev 5 (from the XSDT), 268 bytes");
    ok(info.dsdt == 0x15000, "X_DSDT preferred");
    ok(info.pm1a_cnt_blk == 0x604 && info.pm1b_cnt_blk == 0x608 &&
       info.smi_cmd == 0xb2 && info.acpi_enable == 0xa0, "FADT5 legacy");
    ok(info.iapc_boot_arch == (ACPI_BOOT_8042 | ACPI_BOOT_NO_VGA),
       "IAPC_BOOT_ARCH");
    ok(info.fadt_flags & ACPI_FADT_RESET_REG_SUP, "RESET_REG_SUP");
    ok(info.reset_reg.space_id == ACPI_GAS_IO &&
       info.reset_reg.address == 0xcf9 && info.reset_value == 6,
       "reset register 0xcf9 <- 6");
    ok(info.x_pm1a_cnt_blk.space_id == ACPI_GAS_IO &&
       info.x_pm1a_cnt_blk.bit_width == 16 &&
       info.x_pm1a_cnt_blk.access_size == 2 &&
       info.x_pm1a_cnt_blk.address == 0x604, "X_PM1a_CNT_BLK GAS");
    ok(info.x_pm1b_cnt_blk.address == 0, "X_PM1b_CNT_BLK empty");
    ok(info.x_pm_tmr_blk.address == 0x608 && info.x_pm_tmr_blk.bit_width == 32,
       "X_PM_TMR_BLK");
}

static void test_rsdp_variants(void)
{
    uint8_t r[36];

    build_world();
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    is_int(parse(r, 20), EOK, "v2 RSDP truncated to 20 bytes: ok");
    ok(!info.xsdt && info.fadt_revision == 1, "... falls back to RSDT");

    build_rsdp(r, 2, P_RSDT, 0);
    is_int(parse(r, 36), EOK, "v2 with XSDT 0: ok");
    ok(!info.xsdt && info.root_addr == P_RSDT, "... uses RSDT");

    build_rsdp(r, 0, P_RSDT, 0);
    r[8]++;
    is_int(parse(r, 20), EINVAL, "bad RSDP checksum -> EINVAL");

    build_rsdp(r, 0, P_RSDT, 0);
    r[0] = 'X';
    is_int(parse(r, 20), EINVAL, "bad RSDP signature -> EINVAL");

    build_rsdp(r, 0, P_RSDT, 0);
    is_int(parse(r, 19), EINVAL, "RSDP shorter than 20 -> EINVAL");

    build_rsdp(r, 2, P_RSDT, P_XSDT);
    r[32]++;
    is_int(parse(r, 36), EINVAL, "bad extended checksum -> EINVAL");

    build_rsdp(r, 2, P_RSDT, P_XSDT);
    wr32(r + 20, 64);
    r[8] = 0, r[8] = (uint8_t)-sum(r, 20);
    r[32] = 0, r[32] = (uint8_t)-sum(r, 36);
    is_int(parse(r, 36), EINVAL, "RSDP length beyond the copy -> EINVAL");

    build_rsdp(r, 0, 0, 0);
    is_int(parse(r, 20), EINVAL, "RSDT address 0 -> EINVAL");

    is_int(acpi_parse(NULL, r, 20, strict_map, NULL), EINVAL, "NULL out");
    is_int(acpi_parse(&info, NULL, 20, strict_map, NULL), EINVAL,
           "NULL rsdp");
    is_int(acpi_parse(&info, r, 20, NULL, NULL), EINVAL, "NULL map");
}

static void test_root_errors(void)
{
    uint8_t r[36];

    build_world();
    build_rsdp(r, 2, P_RSDT, 0x7fff0000u);
    is_int(parse(r, 36), EFAULT, "XSDT outside memory -> EFAULT");
    build_rsdp(r, 2, P_RSDT, 0xfffffffffffffff0ull);
    is_int(parse(r, 36), EFAULT, "XSDT address wraps -> EFAULT");
    build_rsdp(r, 2, P_RSDT, MEM_SIZE - 20);
    is_int(parse(r, 36), EFAULT, "XSDT header crosses end -> EFAULT");

    build_rsdp(r, 2, P_RSDT, P_XSDT);
    mem[P_XSDT + 20]++;
    is_int(parse(r, 36), EINVAL, "bad XSDT checksum -> EINVAL");
    build_world();
    memcpy(mem + P_XSDT, "RSDT", 4);
    fix_checksum(P_XSDT);
    is_int(parse(r, 36), EINVAL, "XSDT with wrong signature -> EINVAL");

    build_world();
    wr32(mem + P_XSDT + 4, 20);
    is_int(parse(r, 36), EINVAL, "XSDT length < header -> EINVAL");
    wr32(mem + P_XSDT + 4, 0xfffffff0u);
    is_int(parse(r, 36), EINVAL, "XSDT length huge -> EINVAL");
    wr32(mem + P_XSDT + 4, MEM_SIZE);
    is_int(parse(r, 36), EFAULT, "XSDT length past memory -> EFAULT");
}

static void test_optional_tables(void)
{
    /* 0 entries are ignored; the out-of-memory ones count as skipped */
    uint64_t ents[] = { 0x7fff0000u, 0, P_FADT1, P_HPET, P_MADT,
                        MEM_SIZE - 8 };
    uint8_t r[36];

    build_world();
    build_root(P_XSDT, "XSDT", ents, 6);
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    mem[P_HPET + 50]++; /* bad HPET checksum */
    is_int(parse(r, 36), EOK, "bad HPET / unmappable entries: still ok");
    ok(!info.have_hpet, "bad HPET skipped");
    is_int(info.skipped_tables, 3, "3 tables skipped");
    ok(info.have_fadt && info.nlapics == 5, "rest parsed");

    build_world();
    mem[P_FADT5 + 100]++;
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    is_int(parse(r, 36), EOK, "bad FADT: still ok");
    ok(!info.have_fadt && info.skipped_tables == 1, "bad FADT skipped");

    build_world();
    mem[P_HPET + 40] = ACPI_GAS_IO;
    fix_checksum(P_HPET);
    is_int(parse(r, 36), EOK, "HPET in I/O space: ok");
    ok(!info.have_hpet, "... ignored");

    build_world();
    memcpy(mem + P_MADT, "APIX", 4);
    fix_checksum(P_MADT);
    is_int(parse(r, 36), ENOENT, "no MADT -> ENOENT");
    ok(info.have_fadt && info.have_hpet && !info.have_madt,
       "... other tables still parsed");
}

/* Point the XSDT at a scratch MADT; returns the parse result. */
static errno_t parse_madt2(void)
{
    uint64_t ents[] = { P_MADT2, P_FADT5 };
    uint8_t r[36];

    build_root(P_XSDT, "XSDT", ents, 2);
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    return parse(r, 36);
}

/* MADT with two good LAPICs and then entry bytes (type, len) as given. */
static errno_t madt_with_entry(uint8_t type, uint8_t len, uint32_t pad)
{
    tb_t b = madt_begin(P_MADT2);

    madt_lapic(&b, 0, 0, 1);
    madt_lapic(&b, 1, 1, 1);
    put8(&b, type), put8(&b, len);
    for (uint32_t i = 0; i < pad; i++)
        put8(&b, 0);
    sdt_end(&b);
    return parse_madt2();
}

static void test_madt_errors(void)
{
    uint8_t r[36];
    tb_t b;

    build_world();
    mem[P_MADT + 50]++;
    build_rsdp(r, 2, P_RSDT, P_XSDT);
    is_int(parse(r, 36), EINVAL, "bad MADT checksum -> EINVAL");

    build_world();
    is_int(madt_with_entry(0, 0, 6), EOK, "entry length 0: ok");
    ok(info.nlapics == 2 && info.bad_entries == 1, "... walk stopped, counted");
    is_int(madt_with_entry(1, 1, 10), EOK, "entry length 1: ok");
    ok(info.nlapics == 2 && info.bad_entries == 1, "... walk stopped");
    is_int(madt_with_entry(1, 200, 10), EOK, "entry length past end: ok");
    ok(info.nlapics == 2 && info.nioapics == 0 && info.bad_entries == 1,
       "... skipped");
    is_int(madt_with_entry(9, 16, 0), EOK, "x2APIC entry cut by table end");
    ok(info.nlapics == 2 && info.bad_entries == 1, "... skipped");
    is_int(madt_with_entry(0x7f, 2, 0), EOK, "unknown 2-byte entry: ok");
    ok(info.nlapics == 2 && info.bad_entries == 0, "... ignored, not bad");
    mem[P_MADT2 + 4]--; /* table now ends after the type byte */
    fix_checksum(P_MADT2);
    is_int(parse_madt2(), EOK, "1 trailing byte: ok");
    ok(info.nlapics == 2 && info.bad_entries == 1, "... counted as bad");

    b = madt_begin(P_MADT2);
    put8(&b, 0), put8(&b, 6), put32(&b, 0x01000101); /* LAPIC too short */
    put8(&b, 1), put8(&b, 8), put16(&b, 0), put32(&b, 0); /* IOAPIC short */
    put8(&b, 5), put8(&b, 10), put64(&b, 0);         /* override short */
    madt_lapic(&b, 7, 7, 1);
    sdt_end(&b);
    is_int(parse_madt2(), EOK, "too-short entries: ok");
    ok(info.nlapics == 1 && info.lapics[0].apic_id == 7 &&
       info.nioapics == 0 && info.bad_entries == 3 &&
       info.lapic_addr == 0xfee00000u, "... skipped, walk continues");

    b = sdt_begin(P_MADT2, "APIC", 4);
    put32(&b, 0xfee00000u);
    sdt_end(&b);
    is_int(parse_madt2(), EINVAL, "MADT shorter than 44 -> EINVAL");
    wr32(mem + P_MADT2 + 4, 12);
    is_int(parse_madt2(), EINVAL, "MADT length < 36 -> EINVAL");
    wr32(mem + P_MADT2 + 4, MEM_SIZE);
    is_int(parse_madt2(), EFAULT, "MADT length past memory -> EFAULT");

    b = madt_begin(P_MADT2);
    sdt_end(&b);
    is_int(parse_madt2(), EOK, "empty MADT: ok");
    ok(info.have_madt && info.nlapics == 0 && info.bad_entries == 0,
       "... nothing in it");
}

static void test_caps(void)
{
    tb_t b;

    build_world();
    b = madt_begin(P_BIGMADT);
    for (uint32_t i = 0; i < 300; i++)
        madt_x2apic(&b, i, 1, i);
    for (uint8_t i = 0; i < 20; i++)
        madt_ioapic(&b, i, 0xfec00000u + i * 0x1000u, i * 24u);
    for (uint8_t i = 0; i < 40; i++)
        madt_iso(&b, i, i, 0);
    for (uint8_t i = 0; i < 40; i++)
        madt_nmi(&b, i, 0, 1);
    sdt_end(&b);
    {
        uint64_t ents[] = { P_BIGMADT };
        uint8_t r[36];

        build_root(P_XSDT, "XSDT", ents, 1);
        build_rsdp(r, 2, P_RSDT, P_XSDT);
        is_int(parse(r, 36), EOK, "oversized MADT: ok");
    }
    is_int(info.nlapics, ACPI_MAX_CPUS, "LAPICs capped at 256");
    ok(info.lapics[255].apic_id == 255, "first 256 kept in order");
    is_int(info.nioapics, ACPI_MAX_IOAPICS, "IOAPICs capped");
    is_int(info.nisos, ACPI_MAX_ISOS, "ISOs capped");
    is_int(info.nnmis, ACPI_MAX_NMIS, "NMIs capped");
    is_int(info.dropped, 44 + 4 + 8 + 8, "dropped entries counted");
}

static void test_scan(void)
{
    uint8_t *area = mem + P_SCAN;

    memset(area, 0, 0x1000);
    build_rsdp(area + 0x20, 0, P_RSDT, 0);
    area[0x28]++;                       /* bad checksum: skipped */
    build_rsdp(area + 0x48, 0, P_RSDT, 0); /* misaligned: not found */
    ok(acpi_scan_rsdp(area, 0x1000) == NULL, "scan: bad/misaligned ignored");
    build_rsdp(area + 0x100, 0, P_RSDT, 0);
    ok(acpi_scan_rsdp(area, 0x1000) == area + 0x100, "scan: found");
    ok(acpi_scan_rsdp(area, 0x110) == NULL, "scan: respects length");
    ok(acpi_scan_rsdp(area, 0x114) == area + 0x100, "scan: exact fit");
    ok(acpi_checksum(area + 0x100, 20) == 0, "checksum of valid RSDP is 0");
}

/* Random corruption of a valid MADT/XSDT with fixed-up checksums. */
static void test_fuzz(void)
{
    uint32_t seed = 12345;
    unsigned bad = 0;
    uint8_t r[36];

    for (int iter = 0; iter < 3000; iter++) {
        build_world();
        build_rsdp(r, 2, P_RSDT, P_XSDT);
        uint32_t base = (iter & 3) == 0 ? P_XSDT : P_MADT;
        uint32_t len = base == P_XSDT ? 60 : 200;
        for (int k = 0; k < 1 + iter % 5; k++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t off = 4 + (seed >> 8) % (len - 4);
            seed = seed * 1103515245u + 12345u;
            mem[base + off] = (uint8_t)(seed >> 16);
        }
        fix_checksum(base);
        errno_t err = parse(r, 36);
        if (err != EOK && err != EINVAL && err != EFAULT && err != ENOENT)
            bad++;
        if (info.nlapics > ACPI_MAX_CPUS || info.nioapics > ACPI_MAX_IOAPICS ||
            info.nisos > ACPI_MAX_ISOS || info.nnmis > ACPI_MAX_NMIS)
            bad++;
    }
    is_int(bad, 0, "fuzz: 3000 corrupted tables, no crash, bounded");
}

/* A DSDT: 36-byte header, then the AML given. */
static size_t make_dsdt(uint8_t *buf, const uint8_t *aml, size_t n)
{
    memset(buf, 0, 36);
    memcpy(buf, "DSDT", 4);
    memcpy(buf + 36, aml, n);
    return 36 + n;
}

static void test_s5(void)
{
    uint8_t t[128];
    uint32_t a = 99, b = 99;
    /* Name(_S5_, Package(4){0x05, 0x05, Zero, Zero}), after some noise. */
    static const uint8_t qemu[] = { 0x10, 0x05, '_', 'S', '5', '_', 0x08, '_', 'S', '5', '_',
                                    0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00 };
    size_t n = make_dsdt(t, qemu, sizeof(qemu));
    is_int(acpi_find_s5(t, n, &a, &b), EOK, "\\_S5 found after a non-Name occurrence");
    ok(a == 5 && b == 5, "S5 types 5, 5 (got %u, %u)", a, b);
    static const uint8_t rooted[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x04,
                                      0x01, 0x0b, 0x07, 0x00, 0x00, 0x00 };
    n = make_dsdt(t, rooted, sizeof(rooted));
    is_int(acpi_find_s5(t, n, &a, &b), EOK, "Name(\\_S5_, ...) with a root prefix");
    ok(a == 1 && b == 7, "One and WordPrefix values (got %u, %u)", a, b);
    static const uint8_t cut[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a };
    n = make_dsdt(t, cut, sizeof(cut));
    is_int(acpi_find_s5(t, n, &a, &b), ENOENT, "a package cut short is not accepted");
    static const uint8_t none[] = { 0x08, '_', 'S', '4', '_', 0x12, 0x04, 0x02, 0x00, 0x00 };
    n = make_dsdt(t, none, sizeof(none));
    is_int(acpi_find_s5(t, n, &a, &b), ENOENT, "no \\_S5 gives ENOENT");
    is_int(acpi_find_s5(t, 20, &a, &b), EINVAL, "a table shorter than its header");
}

int main(void)
{
    test_s5();
    test_v1();
    test_v2();
    test_rsdp_variants();
    test_root_errors();
    test_optional_tables();
    test_madt_errors();
    test_caps();
    test_scan();
    test_fuzz();
    return done_testing();
}
