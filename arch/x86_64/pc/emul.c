/*
 * Which emulator runs us, for the profiler's exactness note: QEMU TCG
 * (CPUID hypervisor signature "TCGTCGTCGTCG" at 4000_0000h) and whether
 * it counts instructions (-icount). Under -icount the TSC follows the
 * instruction count, so a fixed loop always takes the same number of TSC
 * cycles; without it the TSC follows the host clock and the same loop
 * takes a different count nearly every time.
 */
#include <abi/platform.h>
#include <arch/cpu.h>
#include <arch/pc/fwcfg.h>
#include <arch/time.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <lib/string.h>

#define LOG_PREFIX "platform"
#define EMUL_RUNS 9
#define EMUL_LOOP 2000
#define EMUL_SAME_MIN 8        /* runs with one identical count, of EMUL_RUNS: -icount */

static unsigned emul_kind = PLATFORM_NATIVE;
static bool emul_rr_uneven;    /* -icount vCPUs take uneven turns (QEMU < 8.1) */
static bool emul_shift_auto;   /* -icount shift=auto, as tools/qemu.sh tells (fw_cfg) */
static char emul_shift[8];     /* what it told: "auto", a shift, or "" */

bool platform_virtual(void)
{
	return cpuid(1, 0).ecx & CPUID1_HYPERVISOR;
}

static bool emul_is_tcg(void)
{
	return cpuid_hypervisor_is("TCGTCGTCGTCG", NULL);
}

/* TSC cycles of a fixed loop of n iterations. Interrupts off. */
static uint64_t emul_loop_cycles(unsigned n)
{
	uint64_t t0 = arch_cycles();

	__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
	return arch_cycles() - t0;
}

/* The count most runs took, and in *same how many took it. */
static uint64_t emul_mode(const uint64_t *c, unsigned n, unsigned *same)
{
	uint64_t mode = 0;

	*same = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = 0;
		for (unsigned j = 0; j < n; j++)
			k += c[j] == c[i];
		if (k > *same) {
			*same = k;
			mode = c[i];
		}
	}
	return mode;
}

/* The count nearly every run of a loop of n iterations took, or 0. */
static uint64_t emul_steady_cycles(unsigned n)
{
	uint64_t c[EMUL_RUNS];
	unsigned same;
	uint64_t f = irq_save();

	for (unsigned i = 0; i < EMUL_RUNS; i++)
		c[i] = emul_loop_cycles(n);
	irq_restore(f);
	uint64_t mode = emul_mode(c, EMUL_RUNS, &same);
	return same >= EMUL_SAME_MIN ? mode : 0;
}

/*
 * -icount: a loop and one twice as long each take one steady count
 * (nearly every run), and the longer one takes more. A host-timed TSC
 * (plain TCG) once gave 5 of 9 equal counts for one length under load, so
 * one length and a bare majority are not enough.
 */
static bool emul_counts_instructions(void)
{
	uint64_t one = emul_steady_cycles(EMUL_LOOP);
	uint64_t two = emul_steady_cycles(2 * EMUL_LOOP);

	return one && two > one;
}

/*
 * An old QEMU's -icount round-robin: TCG offers x2APIC from QEMU 8.1 on,
 * and QEMU 7.2 (Debian 12's), which does not, was measured to give its
 * vCPUs uneven turns (an idle CPU of a half-busy 2-CPU guest 48% in
 * tick_irq, against 53.5% idle on QEMU 10, which is exact per job).
 */
static bool emul_old_round_robin(void)
{
	return !(cpuid(1, 0).ecx & (1u << 21));
}

/*
 * The -icount shift tools/qemu.sh passed (fw_cfg FWCFG_ICOUNT_FILE) into
 * emul_shift ("" if none: QEMU started another way). The guest cannot
 * tell shift=auto from a fixed shift by itself: both give steady counts.
 */
static void emul_read_shift(void)
{
	size_t len;

	if (fwcfg_file(FWCFG_ICOUNT_FILE, emul_shift, sizeof(emul_shift), &len) != EOK)
		emul_shift[0] = 0;
	emul_shift_auto = !strcmp(emul_shift, "auto");
}

static void emul_log_shift(void)
{
	if (emul_shift_auto)
		pr_info("-icount shift auto: guest time follows the host's emulation "
			"speed, and profile shares follow it");
	else if (emul_shift[0])
		pr_info("-icount shift %s (fixed: guest time follows instructions)", emul_shift);
	else
		pr_info("-icount shift not told (no fw_cfg %s)", FWCFG_ICOUNT_FILE);
}

/* Boot CPU, after time_init, before the APs: sets and logs emul_kind. */
void platform_sampling_init(void)
{
	if (!emul_is_tcg())
		return;
	if (emul_counts_instructions()) {
		emul_kind = PLATFORM_TCG_ICOUNT;
		emul_rr_uneven = emul_old_round_robin();
		emul_read_shift();
		pr_info("QEMU TCG with -icount: samples land on exact instructions%s",
			emul_rr_uneven ? " (a QEMU before 8.1: uneven vCPU turns, exact "
					 "shares on 1 CPU only)" : "");
		emul_log_shift();
	} else {
		emul_kind = PLATFORM_TCG;
		pr_info("QEMU TCG without -icount: profile samples are biased to "
			"translation-block starts");
	}
}

/* PLATFORM_* of <abi/platform.h>. Any context. */
unsigned platform_sampling(void)
{
	return emul_kind;
}

/* Under -icount: is it shift=auto (emul_read_shift)? Any context. */
bool platform_icount_auto(void)
{
	return emul_kind == PLATFORM_TCG_ICOUNT && emul_shift_auto;
}

/* Do -icount vCPUs take uneven turns here (see emul_old_round_robin)? */
bool platform_icount_uneven(void)
{
	return emul_rr_uneven;
}
