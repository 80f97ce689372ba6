/*
 * The NMI dispatcher (arch/x86_64/nmi.c). Generic code says why it sent an
 * NMI (the NMI_REASON_* bits in cpu_t.nmi_pending, <kernel/cpu.h>) and
 * registers handlers for them; every NMI asks, in registration order,
 * the handlers of the reasons that were pending and the handlers of no
 * reason (sources that raise NMIs themselves: counter overflows, the
 * RTC). An NMI no handler claims and no reason explains is counted in
 * cpu_t.nmi_unknown.
 */
#ifndef ARCH_NMI_H
#define ARCH_NMI_H

#include <kernel/types.h>

struct int_frame;

/* NMI context: handle what is this handler's; true if the NMI was. */
typedef bool (*nmi_handler_t)(struct int_frame *f, uint32_t pending);

/*
 * Register h (boot, before the NMIs it serves can arrive) for the
 * NMI_REASON_* bits in reasons (0: asked on every NMI). latch: h's NMIs
 * can come twice for one event (a broadcast's reason covers two sends;
 * the RTC's edge races its stop), so the first NMI that no one claims
 * shortly after one of h's is taken for the latched duplicate
 * (arch_nmi_dups).
 */
void arch_nmi_register(nmi_handler_t h, uint32_t reasons, bool latch);

/* The NMI entry (interrupt_dispatch): exchange the pending reasons, ask the handlers. */
void arch_nmi_handle(struct int_frame *f);

/* How many NMIs cpu took as the latched duplicate of a latching handler's. */
uint64_t arch_nmi_dups(uint32_t cpu);

#endif
