/* IOAPIC routing of ISA interrupts, honouring ACPI source overrides. */
#include <arch/pc/pc.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/vm.h>

#define LOG_PREFIX "ioapic"
#define IOREGSEL 0x00
#define IOWIN 0x10
#define IOAPIC_VER 0x01
#define REDTBL(n) (0x10 + 2 * (n))
#define RTE_MASKED (1u << 16)
#define RTE_LEVEL (1u << 15)
#define RTE_ACTIVE_LOW (1u << 13)
#define RTE_MODE (7u << 8)
#define RTE_MODE_NMI (4u << 8)

typedef struct ioapic {
	volatile uint32_t *regs;
	uint32_t gsi_base;
	uint32_t count;
} ioapic_t;

static ioapic_t ioapics[ACPI_MAX_IOAPICS];
static size_t nioapics;
static spinlock_t ioapic_lock = SPINLOCK_INIT("ioapic");

static uint32_t ioapic_read(ioapic_t *io, uint32_t reg)
{
	io->regs[IOREGSEL / 4] = reg;
	return io->regs[IOWIN / 4];
}

static void ioapic_write(ioapic_t *io, uint32_t reg, uint32_t v)
{
	io->regs[IOREGSEL / 4] = reg;
	io->regs[IOWIN / 4] = v;
}

static void ioapic_mask_all(ioapic_t *io)
{
	for (uint32_t i = 0; i < io->count; i++) {
		ioapic_write(io, REDTBL(i), RTE_MASKED);
		ioapic_write(io, REDTBL(i) + 1, 0);
	}
}

void ioapic_init(void)
{
	for (size_t i = 0; i < acpi.nioapics; i++) {
		ioapic_t *io = &ioapics[nioapics];
		io->regs = vm_map_mmio(acpi.ioapics[i].addr, PAGE_SIZE);
		if (!io->regs)
			continue;
		io->gsi_base = acpi.ioapics[i].gsi_base;
		io->count = ((ioapic_read(io, IOAPIC_VER) >> 16) & 0xff) + 1;
		ioapic_mask_all(io);
		pr_info("IOAPIC %u at %#x: GSIs %u-%u", acpi.ioapics[i].id,
			acpi.ioapics[i].addr, io->gsi_base, io->gsi_base + io->count - 1);
		nioapics++;
	}
}

static ioapic_t *ioapic_for_gsi(uint32_t gsi)
{
	for (size_t i = 0; i < nioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi < ioapics[i].gsi_base + ioapics[i].count)
			return &ioapics[i];
	return NULL;
}

/* ISA IRQ → GSI and polarity/trigger (ISA default: edge, active high). */
static uint32_t ioapic_isa_gsi(unsigned irq, uint32_t *flags)
{
	*flags = 0;
	for (size_t i = 0; i < acpi.nisos; i++) {
		const acpi_iso_t *iso = &acpi.isos[i];
		if (iso->bus_irq != irq)
			continue;
		*flags = (acpi_iso_active_low(iso) ? RTE_ACTIVE_LOW : 0) |
			 (acpi_iso_level(iso) ? RTE_LEVEL : 0);
		return iso->gsi;
	}
	return irq;
}

errno_t ioapic_route_isa(unsigned irq, unsigned vector, uint32_t apic_id)
{
	return ioapic_route_isa_mode(irq, vector, apic_id);
}

errno_t ioapic_route_isa_mode(unsigned irq, uint32_t mode_vector, uint32_t apic_id)
{
	uint32_t flags;

	(void)ioapic_isa_gsi(irq, &flags);
	if ((mode_vector & RTE_MODE) == RTE_MODE_NMI)
		flags &= ~RTE_LEVEL;            /* NMI delivery must be edge-triggered */
	return ioapic_set_isa(irq, (uint64_t)apic_id << 56 | mode_vector | flags);
}

/* The IOAPIC and redirection register of ISA IRQ irq; NULL if none serves it. */
static ioapic_t *ioapic_isa_entry(unsigned irq, uint32_t *reg)
{
	uint32_t flags;
	uint32_t gsi = ioapic_isa_gsi(irq, &flags);
	ioapic_t *io = ioapic_for_gsi(gsi);

	if (io)
		*reg = REDTBL(gsi - io->gsi_base);
	return io;
}

errno_t ioapic_get_isa(unsigned irq, uint64_t *rte)
{
	uint32_t reg;
	ioapic_t *io = ioapic_isa_entry(irq, &reg);

	if (!io)
		return ENOENT;
	uint64_t f = spin_lock_irqsave(&ioapic_lock);
	*rte = (uint64_t)ioapic_read(io, reg + 1) << 32 | ioapic_read(io, reg);
	spin_unlock_irqrestore(&ioapic_lock, f);
	return EOK;
}

/* Mask first, then the destination, then the low word: never half an entry live. */
errno_t ioapic_set_isa(unsigned irq, uint64_t rte)
{
	uint32_t reg;
	ioapic_t *io = ioapic_isa_entry(irq, &reg);

	if (!io)
		return ENOENT;
	uint64_t f = spin_lock_irqsave(&ioapic_lock);
	ioapic_write(io, reg, ioapic_read(io, reg) | RTE_MASKED);
	ioapic_write(io, reg + 1, (uint32_t)(rte >> 32));
	ioapic_write(io, reg, (uint32_t)rte);
	spin_unlock_irqrestore(&ioapic_lock, f);
	return EOK;
}

void ioapic_set_masked(unsigned irq, bool masked)
{
	uint32_t flags;
	uint32_t gsi = ioapic_isa_gsi(irq, &flags);
	ioapic_t *io = ioapic_for_gsi(gsi);

	if (!io)
		return;
	uint64_t f = spin_lock_irqsave(&ioapic_lock);
	uint32_t reg = REDTBL(gsi - io->gsi_base);
	uint32_t v = ioapic_read(io, reg);
	ioapic_write(io, reg, masked ? v | RTE_MASKED : v & ~RTE_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, f);
}
