/*
 * The NMI dispatcher (see arch/nmi.h): one entry for every NMI, the
 * registered handlers asked in order, and the back-to-back rule for
 * latched duplicates. NMI context throughout: no lock, no allocation;
 * each CPU writes only its own slots. Never call-profiled (Makefile).
 */
#include <arch/interrupt.h>
#include <arch/nmi.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/time.h>

#define NMI_HANDLERS_MAX 4
/*
 * 100 ms: a latched NMI comes right after the previous one's iretq in
 * guest time, but a vCPU descheduled on a loaded host sees the TSC run
 * on meanwhile (4 vCPUs on 2 busy cores once took over 10 ms, and the
 * RTC's late NMI after stop counted as unknown).
 */
#define NMI_DUP_GRACE_DIV 10

typedef struct nmi_handler_slot {
	nmi_handler_t fn;
	uint32_t reasons;         /* asked when one is pending; 0: always */
	bool latch;
} nmi_handler_slot_t;

static nmi_handler_slot_t nmi_handlers[NMI_HANDLERS_MAX];
static unsigned nmi_nhandlers;

/* Per CPU: the last latching NMI (cycles), whether the one NMI that can
 * be latched behind it may still be taken for its duplicate, and how many
 * were. NMI context, each CPU its own slot. */
static uint64_t nmi_last[MAX_CPUS];
static bool nmi_dup_credit[MAX_CPUS];
static volatile uint64_t nmi_dups[MAX_CPUS];

void arch_nmi_register(nmi_handler_t h, uint32_t reasons, bool latch)
{
	if (nmi_nhandlers == NMI_HANDLERS_MAX)
		panic("nmi: no room for another handler");
	nmi_handlers[nmi_nhandlers] = (nmi_handler_slot_t){ .fn = h, .reasons = reasons,
							     .latch = latch };
	__atomic_store_n(&nmi_nhandlers, nmi_nhandlers + 1, __ATOMIC_RELEASE);
}

/*
 * An NMI that arrives while the previous one is being handled is latched
 * and delivered after it; when that previous one already served both,
 * the latched one finds nothing to do. The first NMI a latching handler
 * does not claim within NMI_DUP_GRACE_DIV-th of a second of this CPU's
 * last one it did is taken for that duplicate, claimed and counted in
 * arch_nmi_dups; the CPU latches at most one, so any further unclaimed
 * NMI is left unclaimed (counted as unknown).
 */
static bool nmi_ask_latching(nmi_handler_t h, struct int_frame *f, uint32_t pending,
			     uint32_t me)
{
	uint64_t now = time_cycles();

	if (h(f, pending)) {
		nmi_last[me] = now;
		nmi_dup_credit[me] = true;
		return true;
	}
	if (!nmi_dup_credit[me] || now - nmi_last[me] >= time_cycles_per_sec() / NMI_DUP_GRACE_DIV)
		return false;
	nmi_dup_credit[me] = false;
	nmi_dups[me]++;
	return true;
}

void arch_nmi_handle(struct int_frame *f)
{
	cpu_t *c = cpu_current();
	uint32_t pending = __atomic_exchange_n(&c->nmi_pending, 0, __ATOMIC_ACQUIRE);
	unsigned n = __atomic_load_n(&nmi_nhandlers, __ATOMIC_ACQUIRE);
	bool claimed = false;

	c->nmi_count++;
	for (unsigned i = 0; i < n; i++) {
		const nmi_handler_slot_t *h = &nmi_handlers[i];
		/* Handlers of no reason are always asked: a counter may overflow anytime. */
		if (h->reasons && !(h->reasons & pending))
			continue;
		claimed |= h->latch ? nmi_ask_latching(h->fn, f, pending, c->id)
				    : h->fn(f, pending);
	}
	if (!pending && !claimed)
		c->nmi_unknown++;
}

uint64_t arch_nmi_dups(uint32_t cpu)
{
	return cpu < MAX_CPUS ? nmi_dups[cpu] : 0;
}
