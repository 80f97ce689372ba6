/*
 * ktest: NMIs aimed at the kernel entry and exit windows. One CPU loops
 * through an interrupt entry and exit (int $0xff, the spurious vector:
 * isr_common, interrupt_dispatch, iretq) with a poisoned rbp naming a
 * chain of frames planted in the dead part of its own kernel stack, below
 * its stack pointer, as a user-chosen rbp can between syscall_entry or
 * isr_common and the fake frame, or after POP_REGS. The other CPUs fire a
 * storm of NMIs at it; each NMI walks the interrupted context's call
 * chain as the profiler does (arch_callchain) and checks every recorded
 * entry: none may be a planted word (a dead frame was followed: kernel
 * stack words copied into a sample), every kernel entry is kernel text.
 * The NMIs that land in isr_common itself (the windows proper) are
 * counted apart; at least one must, except under QEMU -icount, where an
 * NMI from another vCPU is taken only when this one's turn starts again,
 * right after the loop's PAUSE. (Remove the walker's bound, [rsp, top) in
 * chain_kernel, and the planted words show up in the chains.)
 */
#include <arch/boot.h>
#include <arch/callchain.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/mm.h>
#include <arch/smp.h>
#include <abi/platform.h>
#include <kernel/ktest.h>
#include <kernel/platform.h>
#include <kernel/smp.h>
#include <kernel/thread.h>
#include <kernel/time.h>

#define EN_PLANT_WORDS 512
#define EN_MARK_USER 0x5ec2e7000ull     /* a "secret" word a walk would copy */
#define EN_NMIS_MIN 30                   /* TCG delivers only ~30 cross-CPU NMIs a second under load */
#define EN_CHUNK 64                      /* entries per poisoned stretch */
#define EN_SECS 10
#define EN_NMIS_MAX 5000                 /* Bochs logs each NMI: keep it short */

extern char isr_common[], isr_paranoid[];

static volatile bool en_go, en_done, en_intact;
static volatile uint32_t en_target;
static uintptr_t en_poison;
static volatile uint64_t en_nmis, en_poisoned, en_window, en_bad, en_bad_entry;
static volatile uint64_t en_entries, en_progress;

/* A kernel text address for the planted return addresses (never called). */
static __noinline void en_marker(void)
{
	__asm__ volatile("");
}

static uint64_t en_mark_text(void)
{
	return (uint64_t)(uintptr_t)en_marker + 1;
}

/*
 * Plant two frames at the bottom of a big local array (4 KiB below the
 * caller's stack pointer once this returns): the first returns into
 * kernel text, the second into "user" with a secret word, each naming the
 * next higher one, as a walker that ignored the live-stack bound would
 * follow. Returns the first frame's address: the poison for rbp.
 */
static __noinline uintptr_t en_plant(void)
{
	volatile uint64_t words[EN_PLANT_WORDS];

	for (int i = 0; i < EN_PLANT_WORDS; i++)
		words[i] = 0;
	words[0] = (uint64_t)(uintptr_t)&words[4];
	words[1] = en_mark_text();
	words[4] = (uint64_t)(uintptr_t)&words[8];
	words[5] = EN_MARK_USER;
	return (uintptr_t)&words[0];
}

/* Is the plant still there (the loop's own interrupts did not overwrite it)? */
static bool en_plant_intact(uintptr_t p)
{
	const volatile uint64_t *w = (const uint64_t *)p;

	return w[0] == p + 32 && w[1] == en_mark_text() && w[4] == p + 64 &&
	       w[5] == EN_MARK_USER;
}

/* n interrupt entries and exits with rbp = poison throughout, each counted. */
static void en_entries_poisoned(uintptr_t poison, unsigned n)
{
	__asm__ volatile("push %%rbp\n\t"
			 "mov %0, %%rbp\n\t"
			 "1: int $0xff\n\t"
			 "incq %2\n\t"
			 "pause\n\t"
			 "dec %1\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp"
			 : "+r"(poison), "+r"(n), "+m"(en_progress)
			 :
			 : "memory", "cc");
}

/* Wait up to 1 ms for *v to move from seen; false if the storm is over. */
static bool en_wait_change(const volatile uint64_t *v, uint64_t seen)
{
	uint64_t until = time_ns() + 1000000;

	while (*v == seen && time_ns() < until && !en_done)
		cpu_relax();
	return !en_done;
}

/* The NMI side, on the looping CPU: walk what was interrupted, check it. */
static void en_nmi(void *arg)
{
	const int_frame_t *f = cpu_current()->nmi_frame;
	uint64_t chain[32];
	uint16_t nk;

	(void)arg;
	en_nmis++;
	if (!f)
		return;
	if (f->rbp == en_poison)
		en_poisoned++;
	if (f->rip >= (uintptr_t)isr_common && f->rip < (uintptr_t)isr_paranoid)
		en_window++;
	size_t n = arch_callchain(f, chain, 32, &nk);
	for (size_t i = 0; i < n; i++) {
		if (chain[i] == en_mark_text() || chain[i] == EN_MARK_USER)
			en_bad++;
		else if (i < nk && (chain[i] < (uintptr_t)__text_start ||
				    chain[i] >= (uintptr_t)__text_end))
			en_bad_entry++;
	}
}

/* Enough NMIs seen (or time is up)? */
static bool en_enough(uint64_t end)
{
	return (en_poisoned >= EN_NMIS_MIN && en_window >= 1) || en_nmis >= EN_NMIS_MAX ||
	       time_ns() > end;
}

/* The looping CPU: plant, then loop until enough NMIs arrived. */
static void en_loop(void)
{
	uint64_t end = time_ns() + EN_SECS * 1000000000ull;

	en_poison = en_plant();
	en_target = cpu_id();
	__atomic_store_n(&en_go, true, __ATOMIC_RELEASE);
	while (!en_enough(end)) {
		en_entries_poisoned(en_poison, EN_CHUNK);
		en_entries += EN_CHUNK;
	}
	en_intact = en_plant_intact(en_poison);
	__atomic_store_n(&en_done, true, __ATOMIC_RELEASE);
}

/* Under smp_call_all: the test's own thread loops, the others storm it. */
static void en_storm(void *arg)
{
	if (cpu_current()->current == arg) {
		en_loop();
		return;
	}
	while (!__atomic_load_n(&en_go, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_t *c = cpus[en_target];
	for (unsigned k = 0; !__atomic_load_n(&en_done, __ATOMIC_ACQUIRE); k++) {
		uint64_t seen = en_nmis;
		c->nmi_fn = en_nmi;
		c->nmi_arg = NULL;
		__atomic_or_fetch(&c->nmi_pending, NMI_REASON_CALL, __ATOMIC_RELEASE);
		arch_send_nmi(c);
		/*
		 * The next NMI only once this one was handled and the loop
		 * went round again: in Bochs a few microseconds are fewer
		 * instructions than the handler, and NMIs back to back would
		 * leave the loop no time to run at all.
		 */
		if (en_wait_change(&en_nmis, seen) && en_wait_change(&en_progress, en_progress))
			time_delay_us(1 + cpu_id() + k % 8);     /* land all over the loop */
	}
}

KTEST(entry_nmi_windows, "callchain: NMIs in the entry and exit windows walk only live frames")
{
	if (cpus_online < 2)
		KT_SKIP("one CPU: no other CPU to fire NMIs");
	en_go = en_done = en_intact = false;
	en_nmis = en_poisoned = en_window = en_bad = en_bad_entry = en_entries = 0;
	smp_call_all(en_storm, thread_current());
	printk("# %lu NMIs in %lu entries: %lu with the poisoned rbp, %lu in isr_common\n",
	       en_nmis, en_entries, en_poisoned, en_window);
	KT_CHECK(en_intact, "the planted frames were overwritten");
	KT_CHECK(en_bad == 0, "%lu planted words recorded: a dead frame was walked", en_bad);
	KT_CHECK(en_bad_entry == 0, "%lu kernel entries outside kernel text", en_bad_entry);
	KT_CHECK(en_poisoned >= EN_NMIS_MIN, "only %lu NMIs hit the poisoned loop", en_poisoned);
	/* Under -icount another vCPU's NMI lands where this one paused: the loop. */
	KT_CHECK(en_window >= 1 || platform_sampling() == PLATFORM_TCG_ICOUNT,
		 "no NMI of %lu landed in isr_common", en_nmis);
	return true;
}
