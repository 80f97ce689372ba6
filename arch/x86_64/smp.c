/*
 * Starting the application processors: INIT-SIPI-SIPI to each enabled
 * local APIC in the MADT, one at a time, through a trampoline page below
 * 1 MiB and a temporary page table that exists only during start-up.
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

extern char smp_trampoline_start[], smp_trampoline_end[];
extern char tr_gdtr[], tr_pm_ptr[], tr_lm_ptr[], tr_gdt[], tr_pm[], tr_lm[];
extern char tr_cr3[], tr_efer[], tr_stack[], tr_cpu[], tr_entry[];

static paddr_t tramp_page;
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

/*
 * Wait until c is online, giving up after `ms` without progress. The AP
 * bumps start_progress at each step of ap_entry, so the deadline follows
 * its progress rather than a fixed time: under QEMU -icount the vCPUs run
 * round-robin on one host thread and an AP advances only while this CPU
 * lets it. PAUSE (cpu_relax) ends this vCPU's slice there; a spin without
 * it keeps the thread until the next virtual timer deadline, up to seconds
 * of guest time, and the AP then never came up within a fixed 2 s. The
 * steps are few, so the whole wait stays bounded.
 */
static bool ap_wait_online(cpu_t *c, uint64_t ms)
{
	uint32_t seen = __atomic_load_n(&c->arch.start_progress, __ATOMIC_ACQUIRE);
	uint64_t end = time_ns() + ms * 1000000;

	while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE)) {
		uint32_t now = __atomic_load_n(&c->arch.start_progress, __ATOMIC_ACQUIRE);
		if (now != seen) {
			seen = now;
			end = time_ns() + ms * 1000000;
		} else if (time_ns() >= end) {
			return false;
		}
		cpu_relax();
	}
	return true;
}

static bool ap_start(cpu_t *c)
{
	uint32_t apic = c->arch.apic_id;

	tramp_put64(tr_stack, c->stack_top);
	tramp_put64(tr_cpu, (uint64_t)c);
	lapic_send_ipi(apic, APIC_DM_INIT);
	time_delay_us(10000);
	lapic_send_ipi(apic, APIC_DM_STARTUP | (tramp_page >> 12));
	if (ap_wait_online(c, 1))
		return true;
	lapic_send_ipi(apic, APIC_DM_STARTUP | (tramp_page >> 12));
	return ap_wait_online(c, AP_START_TIMEOUT_MS);
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

static void ap_boot_one(const acpi_madt_lapic_t *l)
{
	cpu_t *c = ap_prepare(l, cpu_count);

	if (!c) {
		pr_warn("no memory to start CPU with APIC id %u", l->apic_id);
		return;
	}
	cpus[cpu_count++] = c;
	if (!ap_start(c))
		pr_warn("CPU with APIC id %u did not start", l->apic_id);
}

void arch_smp_boot(void)
{
	uint32_t me = lapic_id();

	cpus[0]->arch.apic_id = me;
	tramp_setup();
	for (size_t i = 0; i < acpi.nlapics && cpu_count < MAX_CPUS; i++) {
		const acpi_madt_lapic_t *l = &acpi.lapics[i];
		if (l->apic_id == me) {
			cpus[0]->arch.acpi_uid = l->acpi_uid;
			continue;
		}
		if (l->enabled)
			ap_boot_one(l);
	}
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
