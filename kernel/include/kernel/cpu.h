/*
 * Per-CPU data. Each CPU's cpu_t is reached through cpu_current(): the
 * arch's per-CPU base points at its first member, the arch part
 * (arch_cpu_t, <arch/percpu.h>), which begins with a pointer to the
 * cpu_t. Assembly reaches fields at offsets generated from these
 * structures (arch asm-offsets.c), never at numbers of its own.
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <abi/syscall.h>
#include <arch/percpu.h>
#include <kernel/types.h>

#define ACCT_VECTORS 256

/* Where a CPU's cycles go right now (see kernel/acct.h). */
typedef enum acct_mode {
	ACCT_KERNEL,                 /* the current thread, in the kernel */
	ACCT_USER,                   /* the current thread, in user mode */
	ACCT_IRQ,                    /* a hardware interrupt handler */
} acct_mode_t;

/* A CPU's accounting: written by that CPU only, interrupts off. */
typedef struct acct_cpu {
	uint64_t last;               /* TSC of the last boundary */
	acct_mode_t mode;
	uint64_t busy, idle, irq;    /* cycles */
	uint64_t switches, interrupts;
	uint64_t vec_count[ACCT_VECTORS], vec_cycles[ACCT_VECTORS];
	uint64_t sys_count[SYS_COUNT];
	union {                      /* kernel cycles by system call */
		struct {
			uint64_t sys_none;           /* no call open: never read */
			uint64_t sys_cycles[SYS_COUNT];
		};
		uint64_t sys_slot[SYS_COUNT + 1];    /* by a thread's sys_in (nr + 1 or 0) */
	};
} acct_cpu_t;

/*
 * A CPU's latency maxima since boot and its last interrupts-off section
 * (arch irqlat.c): written by that CPU only, interrupts off (nmi_max: in
 * its NMI handler); read by anyone (the last section: by its own timer
 * interrupt).
 * The arch's inline irq_save/irq_restore reach it through the per-CPU
 * segment, at its offsetof in cpu_t.
 */
typedef struct cpu_lat {
	uint64_t irqoff_since;       /* TSC when interrupts went off; 0: none open */
	uint64_t irqoff_site;        /* the kernel PC where they went off */
	uint64_t irqoff_max;         /* longest interrupts-off section, cycles */
	uint64_t nmi_max;            /* longest NMI handler, cycles */
	/* The last section that closed: opened, closed (TSC), where it opened. */
	uint64_t last_open, last_close, last_site;
} cpu_lat_t;

/*
 * A system call's return section (irqlat_ret_begin, arch/cpu.h) that the
 * exit stamp x closed: its length into l's maximum, if it is still the
 * last section (its close is x); else nothing. The CPU's own, irqs off.
 */
static inline __attribute__((always_inline)) void irqlat_ret_fold(cpu_lat_t *l, uint64_t x)
{
	if (__builtin_expect(l->last_close != x, 0))
		return;
	uint64_t d = x - l->last_open;

	if (d > l->irqoff_max)
		__atomic_store_n(&l->irqoff_max, d, __ATOMIC_RELAXED);   /* sysinfo reads it */
}

/*
 * The cycle counter (time_cycles) read by the arch's syscall path right
 * after it enters the kernel and right before it leaves, so that the
 * accounting charges the entry and exit code to the kernel, not to user
 * time (kernel/acct.c). The arch code stores it through the per-CPU
 * segment, at offsets generated from this structure (arch asm-offsets.c).
 */
typedef struct acct_edge {
	uint64_t entry;              /* syscall entry, before the C code: read only
				      * by that entry's dispatch, so never cleared */
	uint64_t exit;               /* syscall return, after the C code; 0: none
				      * since the accounting took it */
} acct_edge_t;

#define MAX_CPUS 64

/* NMI reasons, set in cpu_t.nmi_pending before an NMI IPI is sent. */
#define NMI_REASON_PANIC (1u << 0)
#define NMI_REASON_CALL (1u << 1)
#define NMI_REASON_PROF (1u << 2)      /* a profiler broadcast (prof_nmi, arch/x86_64/prof.c) */

typedef void (*cpu_fn_t)(void *arg);

typedef struct fault_catch fault_catch_t;

struct thread;
struct run_queue;
struct int_frame;

typedef struct cpu {
	arch_cpu_t arch;             /* must stay first: the per-CPU base points here */
	struct thread *current;      /* the running thread */
	cpu_lat_t lat;               /* arch irq_save/irq_restore write it */
	acct_edge_t edge;            /* the arch syscall path writes it */
	uint32_t id;                 /* logical id, 0 = boot CPU */
	volatile bool online;
	volatile uint64_t ticks;     /* local timer interrupts */
	volatile uint32_t nmi_pending;
	volatile uint64_t nmi_count;
	volatile uint64_t nmi_unknown;
	cpu_fn_t nmi_fn;             /* NMI_REASON_CALL work; NULL once claimed */
	void *nmi_arg;
	const struct int_frame *nmi_frame;   /* what the NMI interrupted, while nmi_fn runs */
	fault_catch_t *fault_catch;  /* armed by fault_catch_run() */
	uintptr_t stack_bottom, stack_top;   /* boot/idle kernel stack */
	struct thread *idle;         /* this CPU's idle thread */
	struct thread *prev;         /* thread being switched away from */
	struct thread *handoff;      /* READY, to run next here (sched_wakeup_sync) */
	uint64_t handoff_tsc;        /* when it was woken, if traced (its WAKEUP waits) */
	struct run_queue *rq;
	volatile bool need_resched;
	volatile bool idle_polling;  /* idle, polling its queue: wake it without an IPI */
	uint32_t preempt_count;      /* > 0: no preemption */
	volatile uint32_t call_gen;  /* the last smp_call_all() this CPU ran */
	acct_cpu_t acct;
} cpu_t;

extern cpu_t *cpus[MAX_CPUS];
extern unsigned cpu_count;          /* CPUs found in the firmware tables */
extern volatile unsigned cpus_online;

/* This CPU's data. Valid in any context once the CPU is set up. */
static inline cpu_t *cpu_current(void)
{
	return arch_cpu_current();
}

/* Logical id of this CPU. */
static inline uint32_t cpu_id(void)
{
	return cpu_current()->id;
}

#endif
