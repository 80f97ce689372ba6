/*
 * Starting the application processors: INIT-SIPI-SIPI to every enabled
 * local APIC in the MADT at once (one INIT wait for all), through a
 * trampoline page below 1 MiB and a temporary page table that exists only
 * during start-up. Each AP finds its stack and cpu_t in ap_slots by its
 * APIC id (boot/trampoline.asm), so they can all run the trampoline
 * together.
 */
#include <arch/apic.h>
#include <arch/boot.h>
#include <arch/cpuinit.h>
#include <arch/pc/pc.h>
#include <arch/smp.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <lib/string.h>

#define LOG_PREFIX "smp"
#define AP_STACK_PAGES 4
#define AP_START_TIMEOUT_MS 2000   /* without progress: see ap_wait_online */
#define AP_INIT_WAIT_US 10000      /* INIT to STARTUP on old CPUs (SDM) */
#define AP_SIPI_WAIT_MS 1          /* before the second STARTUP */

/* What an AP looks up by its APIC id in the trampoline: keep in step with it. */
typedef struct {
	uint32_t apic_id;
	uint32_t pad;
	uint64_t stack_top;
	cpu_t *cpu;
} ap_slot_t;

_Static_assert(__builtin_offsetof(ap_slot_t, stack_top) == 8 &&
	       __builtin_offsetof(ap_slot_t, cpu) == 16 && sizeof(ap_slot_t) == 24,
	       "trampoline.asm's SLOT_* offsets");

extern char smp_trampoline_start[], smp_trampoline_end[];
extern char tr_gdtr[], tr_pm_ptr[], tr_lm_ptr[], tr_gdt[], tr_pm[], tr_lm[];
extern char tr_cr3[], tr_efer[], tr_slots[], tr_nslots[], tr_entry[];

static paddr_t tramp_page;
static ap_slot_t ap_slots[MAX_CPUS];
static size_t ap_nslots;
static paddr_t tramp_tables[3];

static uint8_t *tramp_field(const char *label)
{
	return (uint8_t *)phys_to_virt(tramp_page) + (label - smp_trampoline_start);
}

static void tramp_put32(const char *label, uint32_t v)
{
	memcpy(tramp_field(label), &v, 4);
}

static void tramp_put64(const char *label, uint64_t v)
{
	memcpy(tramp_field(label), &v, 8);
}

static bool tramp_page_free(paddr_t p)
{
	for (size_t i = 0; i < boot_info.nreserved; i++)
		if (p < boot_info.reserved[i].end && p + PAGE_SIZE > boot_info.reserved[i].start)
			return false;
	for (size_t i = 0; i < boot_info.nmem; i++) {
		const mem_region_t *m = &boot_info.mem[i];
		if (m->type == MEM_USABLE && p >= m->base && p + PAGE_SIZE <= m->base + m->len)
			return true;
	}
	return false;
}

/* A usable page in conventional memory; the frame allocator never hands these out. */
static paddr_t tramp_find_page(void)
{
	for (paddr_t p = 0x8000; p < 0x9f000; p += PAGE_SIZE)
		if (tramp_page_free(p))
			return p;
	panic("smp: no free page below 640 KiB for the AP trampoline");
}

static void tramp_build_tables(void)
{
	for (int i = 0; i < 3; i++) {
		if (frame_alloc_contig(1, 1, GiB(4), &tramp_tables[i]) != EOK)
			panic("smp: no memory for the trampoline page tables");
		memset(phys_to_virt(tramp_tables[i]), 0, PAGE_SIZE);
	}
	uint64_t *pml4 = phys_to_virt(tramp_tables[0]);
	uint64_t *pdpt = phys_to_virt(tramp_tables[1]);
	uint64_t *pd = phys_to_virt(tramp_tables[2]);
	const uint64_t *kroot = phys_to_virt(vm_kernel_root());

	pd[0] = PTE_P | PTE_W | PTE_PS;           /* identity 0-2 MiB */
	pdpt[0] = tramp_tables[2] | PTE_P | PTE_W;
	pml4[0] = tramp_tables[1] | PTE_P | PTE_W;
	for (int i = 256; i < 512; i++)
		pml4[i] = kroot[i];
}

static void tramp_setup(void)
{
	tramp_page = tramp_find_page();
	memcpy(phys_to_virt(tramp_page), smp_trampoline_start,
	       smp_trampoline_end - smp_trampoline_start);
	uint32_t base = (uint32_t)tramp_page;
	tramp_put32(tr_gdtr + 2, base + (tr_gdt - smp_trampoline_start));
	tramp_put32(tr_pm_ptr, base + (tr_pm - smp_trampoline_start));
	tramp_put32(tr_lm_ptr, base + (tr_lm - smp_trampoline_start));
	tramp_build_tables();
	tramp_put64(tr_cr3, tramp_tables[0]);
	tramp_put64(tr_efer, rdmsr(MSR_EFER) & (EFER_LME | EFER_NXE));
	tramp_put64(tr_entry, (uint64_t)ap_entry);
	tramp_put64(tr_slots, (uint64_t)ap_slots);
	tramp_put64(tr_nslots, ap_nslots);
}

static void tramp_teardown(void)
{
	for (int i = 0; i < 3; i++)
		frame_free(tramp_tables[i], 1);
	memset(phys_to_virt(tramp_page), 0, PAGE_SIZE);
}

static void ap_progress(cpu_t *c)
{
	__atomic_add_fetch(&c->arch.start_progress, 1, __ATOMIC_RELEASE);
}

/* C entry of every AP, on its own stack, still on the trampoline tables. */
void ap_entry(cpu_t *c)
{
	ap_progress(c);
	arch_cpu_set_gs(c);
	vm_activate();
	arch_cpu_init(c, c->arch.ist_tops);
	ap_progress(c);
	lapic_cpu_init();
	lapic_apply_nmi_entries(c->arch.acpi_uid);
	ap_progress(c);
	smp_ap_main(c);
}

/* The APs being started: slots [0, ap_nslots) of ap_slots. */
static cpu_t *ap_cpu(size_t i)
{
	return ap_slots[i].cpu;
}

static uint32_t ap_progress_of(size_t i)
{
	return __atomic_load_n(&ap_cpu(i)->arch.start_progress, __ATOMIC_ACQUIRE);
}

static bool ap_online(size_t i)
{
	return __atomic_load_n(&ap_cpu(i)->online, __ATOMIC_ACQUIRE);
}

/* Sum of every starting AP's progress, and how many are online. */
static uint64_t ap_progress_all(size_t *online)
{
	uint64_t sum = 0;

	*online = 0;
	for (size_t i = 0; i < ap_nslots; i++) {
		sum += ap_progress_of(i);
		*online += ap_online(i);
	}
	return sum;
}

/*
 * Wait until every AP is online, giving up after `ms` without progress
 * from any of them. The APs bump start_progress at each step of ap_entry,
 * so the deadline follows their progress rather than a fixed time: under
 * QEMU -icount the vCPUs run round-robin on one host thread and an AP
 * advances only while this CPU lets it. PAUSE (cpu_relax) ends this
 * vCPU's slice there; a spin without it keeps the thread until the next
 * virtual timer deadline, up to seconds of guest time, and an AP then
 * never came up within a fixed 2 s. The steps are few, so the whole wait
 * stays bounded.
 */
static void ap_wait_online(uint64_t ms)
{
	size_t online;
	uint64_t seen = ap_progress_all(&online);
	uint64_t end = time_ns() + ms * 1000000;

	while (online < ap_nslots) {
		uint64_t now = ap_progress_all(&online);
		if (now != seen) {
			seen = now;
			end = time_ns() + ms * 1000000;
		} else if (time_ns() >= end) {
			return;
		}
		cpu_relax();
	}
}

/* Wait up to ms for every AP to reach ap_entry (its first progress). */
static void ap_wait_entered(uint64_t ms)
{
	uint64_t end = time_ns() + ms * 1000000;
	size_t entered;

	do {
		cpu_relax();
		entered = 0;
		for (size_t i = 0; i < ap_nslots; i++)
			entered += ap_progress_of(i) != 0;
	} while (entered < ap_nslots && time_ns() < end);
}

/* CPUID 1's display family: the base family, plus the extended one past 0Fh. */
static unsigned ap_family(void)
{
	uint32_t eax = cpuid(1, 0).eax;
	unsigned base = (eax >> 8) & 0xf;

	return base == 0xf ? base + ((eax >> 20) & 0xff) : base;
}

/*
 * The INIT-to-STARTUP wait: the SDM's 10 ms, or none on processors that
 * finish INIT at once (Intel family 6 on, AMD family 0Fh on, Hygon: the
 * same rule as Linux's smp_quirk_init_udelay). QEMU's and Bochs's models
 * are among them.
 */
static uint64_t ap_init_wait_us(void)
{
	unsigned family = ap_family();

	if ((cpuid_vendor_is("GenuineIntel") && family >= 6) ||
	    (cpuid_vendor_is("AuthenticAMD") && family >= 0xf) ||
	    cpuid_vendor_is("HygonGenuine"))
		return 0;
	return AP_INIT_WAIT_US;
}

/* STARTUP to every AP (all = false: only those not in ap_entry yet). */
static void ap_send_startup(bool all)
{
	for (size_t i = 0; i < ap_nslots; i++)
		if (all || !ap_progress_of(i))
			lapic_send_ipi(ap_slots[i].apic_id, APIC_DM_STARTUP | (tramp_page >> 12));
}

/*
 * INIT to every AP, one wait (ap_init_wait_us), STARTUP to every AP, a second
 * STARTUP after 1 ms to those not yet in ap_entry (a STARTUP reaching a
 * CPU that has left its wait-for-SIPI state is ignored), then the wait.
 */
static void ap_start_all(void)
{
	for (size_t i = 0; i < ap_nslots; i++)
		lapic_send_ipi(ap_slots[i].apic_id, APIC_DM_INIT);
	time_delay_us(ap_init_wait_us());
	ap_send_startup(true);
	ap_wait_entered(AP_SIPI_WAIT_MS);
	ap_send_startup(false);
	ap_wait_online(AP_START_TIMEOUT_MS);
	for (size_t i = 0; i < ap_nslots; i++)
		if (!ap_online(i))
			pr_warn("CPU with APIC id %u did not start", ap_slots[i].apic_id);
}

static cpu_t *ap_prepare(const acpi_madt_lapic_t *l, uint32_t id)
{
	cpu_t *c = kzalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->id = id;
	c->arch.apic_id = l->apic_id;
	c->arch.acpi_uid = l->acpi_uid;
	if (kstack_alloc(AP_STACK_PAGES, &c->stack_top) != EOK ||
	    arch_alloc_ist(c->arch.ist_tops) != EOK) {
		kfree(c);      /* stacks already mapped stay with the kernel */
		return NULL;
	}
	c->stack_bottom = c->stack_top - AP_STACK_PAGES * PAGE_SIZE;
	return c;
}

/* A cpu_t, stacks and a trampoline slot for one AP, not started yet. */
static void ap_add(const acpi_madt_lapic_t *l)
{
	cpu_t *c = ap_prepare(l, cpu_count);

	if (!c) {
		pr_warn("no memory to start CPU with APIC id %u", l->apic_id);
		return;
	}
	ap_slots[ap_nslots++] = (ap_slot_t){ .apic_id = l->apic_id,
					     .stack_top = c->stack_top, .cpu = c };
	cpus[cpu_count++] = c;
}

void arch_smp_boot(void)
{
	uint32_t me = lapic_id();

	cpus[0]->arch.apic_id = me;
	for (size_t i = 0; i < acpi.nlapics && cpu_count < MAX_CPUS; i++) {
		const acpi_madt_lapic_t *l = &acpi.lapics[i];
		if (l->apic_id == me) {
			cpus[0]->arch.acpi_uid = l->acpi_uid;
			continue;
		}
		if (l->enabled)
			ap_add(l);
	}
	if (!ap_nslots)
		return;
	tramp_setup();
	ap_start_all();
	tramp_teardown();
}

void arch_send_ipi(cpu_t *c, unsigned vector)
{
	lapic_send_ipi(c->arch.apic_id, APIC_DM_FIXED | vector);
}

void arch_send_ipi_others(unsigned vector)
{
	lapic_send_ipi_others(APIC_DM_FIXED | vector);
}

void arch_send_nmi(cpu_t *c)
{
	lapic_send_ipi(c->arch.apic_id, APIC_DM_NMI);
}

void arch_send_nmi_others(void)
{
	lapic_send_ipi_others(APIC_DM_NMI);
}

void arch_cpu_stop(void)
{
	irq_disable();
	for (;;)
		cpu_halt();
}

/*
 * The boot CPU calibrates its local APIC timer against the TSC; the APs
 * take its rate (every local APIC timer runs from the same bus or crystal
 * clock, as Linux assumes too) instead of 10 ms each.
 */
void arch_timer_init_cpu(unsigned hz)
{
	static uint64_t rate;
	cpu_t *c = cpu_current();

	if (!rate)
		rate = lapic_timer_calibrate();
	c->arch.lapic_ticks_per_sec = rate;
	lapic_timer_start(rate, hz);
}
