/*
 * ktest: the kernel call-chain walker (arch_callchain) follows only frames
 * in the live part of the interrupted thread's kernel stack. A frame
 * planted in a dead part of this thread's stack (below the interrupted
 * stack pointer, as an entry or exit window's user-chosen rbp can name)
 * must not be followed; a normal walk from this function still works, and
 * every kernel entry it records is in kernel text.
 */
#include <arch/boot.h>
#include <arch/callchain.h>
#include <arch/interrupt.h>
#include <arch/mm.h>
#include <kernel/ktest.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define PLANT_WORDS 256

/*
 * Plant a frame (saved rbp 0, return address ret) at the bottom of a big
 * local array and return its address: once this returns, it lies in dead
 * stack below the caller's stack pointer, deeper than arch_callchain's
 * own frames reach.
 */
static __noinline uintptr_t chain_plant(uint64_t ret)
{
	volatile uint64_t words[PLANT_WORDS];

	for (int i = 0; i < PLANT_WORDS; i++)
		words[i] = 0;
	words[0] = 0;
	words[1] = ret;
	return (uintptr_t)&words[0];
}

/* Are all of chain's first n entries kernel text or user addresses? */
static bool chain_plausible(const uint64_t *chain, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (chain[i] >= USER_END && (chain[i] < (uintptr_t)__text_start ||
					     chain[i] >= (uintptr_t)__text_end))
			return false;
	return true;
}

KTEST(callchain_live_stack, "callchain: only frames in the live kernel stack are walked")
{
	static uint64_t chain[32];
	volatile uint64_t here = 0;
	int_frame_t f;
	uint16_t nk;

	memset(&f, 0, sizeof(f));                 /* cs 0: kernel mode */
	f.rsp = (uintptr_t)&here;                 /* the interrupted stack pointer */
	f.rbp = chain_plant((uint64_t)(uintptr_t)chain_plausible + 1);
	size_t n = arch_callchain(&f, chain, 32, &nk);
	KT_CHECK(n == 0 && nk == 0, "a frame below rsp was walked: %zu entries, %u kernel", n,
		 nk);
	f.rbp = (uintptr_t)__builtin_frame_address(0);
	n = arch_callchain(&f, chain, 32, &nk);
	KT_CHECK(nk >= 1 && chain_plausible(chain, n),
		 "a walk from this frame: %zu entries, %u kernel, all plausible %d", n, nk,
		 chain_plausible(chain, n));
	f.rsp = USER_END - 4096;                  /* an entry window: rsp still the user's */
	n = arch_callchain(&f, chain, 32, &nk);
	KT_CHECK(nk == 0, "rsp off the kernel stack still walked %u kernel entries", nk);
	return true;
}
