/*
 * Shared state of the profiler's generic parts (kernel/prof/). Not for
 * use outside this directory.
 *
 * Three pieces: the buffer (one sample ring per CPU, lib/ring.c, written
 * only by that CPU's NMI or sampling interrupt: one producer per ring;
 * drained only by the drain thread), the hooks (prof_hit from the arch
 * sources; prof_task_* from the task code) and the control (sessions
 * begun, read and ended through the kbox).
 *
 * Lock order: prof_ctl (a sleeping mutex: engine start/stop) → prof_lock
 * (spinlock: sessions, events, filter) → the task table lock (describing
 * the tasks when a session begins) or a vm_space lock; prof_lock →
 * trace_lock (kernel/trace: the drain takes trace records) → the task
 * table lock (naming a server a trace record shows). NMI context
 * takes no lock: it reads prof_engine's filter words and writes its own
 * CPU's ring and counters.
 */
#ifndef KERNEL_PROF_INTERNAL_H
#define KERNEL_PROF_INTERNAL_H

#include <kernel/cpu.h>
#include <kernel/ostack.h>
#include <kernel/prof.h>
#include <kernel/prof_fifo.h>
#include <kernel/spinlock.h>
#include <lib/list.h>
#include <lib/ring.h>

#define PROF_RING_BYTES (1024u * 1024)       /* per CPU, samples without chains */
#define PROF_RING_BYTES_CHAIN (2048u * 1024) /* per CPU, with call chains */
#define PROF_OFF_RING_BYTES (256u * 1024)    /* per CPU, off-CPU records (offcpu.c) */
#define PROF_OFFCPU_CHAIN_MAX 64             /* frames an off-CPU record keeps */
#define PROF_SESSION_BYTES (4096u * 1024)    /* a system session's stream buffer */
#define PROF_TASK_SESSION_BYTES (1024u * 1024) /* a task session's */
#define PROF_MAX_TARGETS 32                  /* task sessions the NMI filter knows */
#define PROF_SERVERS_KNOWN 16                /* servers a task session remembers naming */
#define PROF_DRAIN_NS 10000000ull            /* drain period: 10 ms */
#define PROF_STAGE_BYTES PROF_READ_MAX       /* most one DATA_READ returns */
#define PROF_THROTTLE_WINDOW_DIV 10          /* window: 1/10 s */
#define PROF_THROTTLE_MAX_DIV 1024
#define PROF_LATE_MIN_HZ 5000                /* lateness lowers a clock to this rate, no lower */
#define PROF_LATE_MIN_DUE 100                /* hits due in a window to judge lateness */
#define PROF_HIT_SPREAD 32                   /* a prof_hit charged at most 32 x the cheapest */

/* The sampling engine: what NMI context reads. */
typedef struct prof_engine {
	volatile bool on;                    /* rings exist, sources run */
	volatile bool system;                /* a running system session */
	volatile uint64_t targets[PROF_MAX_TARGETS]; /* running task sessions' tasks */
	unsigned source, hz;
	unsigned depth;                      /* 0: no call chains */
	unsigned budget;                     /* throttle: CPU time, 1/100 % */
	uint64_t window;                     /* throttle window in TSC cycles */
	uint64_t irq_cost;                   /* TSC cycles an interrupt costs outside prof_hit */
	bool clock;                          /* the source fires on a clock at hz (the timer) */
	bool ticking;                        /* a clock source (rtc, rtc-nmi, timer): weights are measured */
	uint64_t period;                     /* TSC cycles of one period at hz (a sample's nominal weight) */
	ring_t rings[MAX_CPUS];
	void *ring_mem[MAX_CPUS];
	/* Off-CPU records (offcpu.c): whom they cover, and a ring per CPU. */
	volatile bool off_system;            /* a running system session with PROF_F_OFFCPU */
	volatile uint64_t off_targets[PROF_MAX_TARGETS]; /* running task sessions with it */
	ring_t off_rings[MAX_CPUS];
	void *off_mem[MAX_CPUS];
} prof_engine_t;

/* Is task (not 0) in targets (prof_engine.targets or off_targets)? NMI-safe. */
static inline bool prof_in_targets(const volatile uint64_t *targets, uint64_t task)
{
	for (unsigned i = 0; i < PROF_MAX_TARGETS; i++)
		if (targets[i] == task && task)
			return true;
	return false;
}

/* One throttle window of a CPU, as prof_throttle_step() judges it. */
typedef struct prof_window {
	uint64_t cost;                       /* TSC cycles sampling took from the sampled code */
	uint64_t elapsed;                    /* TSC cycles the window lasted */
	uint64_t hits;                       /* sampling interrupts that came */
	uint64_t due;                        /* that a clock source should have sent; 0: no clock */
	uint32_t late_div_max;               /* the divisor lateness may reach (clock hz / PROF_LATE_MIN_HZ) */
} prof_window_t;

/* A CPU's throttle state: keep 1 sample in divisor; never below floor. */
typedef struct prof_throttle {
	uint32_t divisor, floor;
} prof_throttle_t;

/* Per-CPU sampling state, written only by its CPU in NMI/IRQ context. */
typedef struct prof_cpu {
	volatile bool busy;                  /* inside prof_hit (no nesting) */
	volatile bool off_busy;              /* inside prof_offcpu_resume */
	bool scaled;                         /* the source itself runs 1/divisor as often */
	uint32_t count;                      /* samples since the last kept (not scaled) */
	prof_throttle_t thr;                 /* keep every thr.divisor-th */
	uint64_t window_start, window_cost;  /* TSC: the window's start, what sampling cost in it */
	uint64_t window_hits;                /* prof_hit calls in the window */
	uint64_t last_entry, last_exit;      /* TSC at the last prof_hit's entry and exit */
	uint64_t hit_min;                    /* the cheapest prof_hit seen (0: none yet) */
	uint64_t skipped;                    /* throttled samples, total */
	uint64_t taken;                      /* samples put in the ring */
	uint64_t cost;                       /* cycles spent taking them */
	/* Weights (abi/profile.h, v5): precomputed when the divisor changes, no division here. */
	uint64_t carry;                      /* cycles since the last settled hit (skipped ones add) */
	uint64_t nominal;                    /* period * divisor: what a hit stands for */
	uint64_t gap_limit;                  /* 1.5 * nominal for a clock source; else UINT64_MAX */
	volatile uint64_t excess;            /* cycles long gaps lasted beyond their nominal weight */
	uint64_t missed_sent;                /* drain.c: prof_cpu_missed() last routed (prof_lock) */
} prof_cpu_t;

/*
 * The busy/on handshake between prof_hit (NMI, on one CPU) and a stopper
 * (prof_quiesce): the sampler marks itself busy, then reads on; the
 * stopper clears on, then reads busy. Each side stores then loads another
 * variable, which x86 may reorder (store buffer) unless a full fence
 * separates them: both accesses are sequentially consistent, so either the
 * sampler sees on cleared or the stopper sees it busy.
 */
static inline bool prof_gate_enter(volatile bool *busy, volatile bool *on)
{
	__atomic_store_n(busy, true, __ATOMIC_SEQ_CST);
	return __atomic_load_n(on, __ATOMIC_SEQ_CST);
}

/* The sampler is done: its ring writes are visible before busy clears. */
static inline void prof_gate_leave(volatile bool *busy)
{
	__atomic_store_n(busy, false, __ATOMIC_RELEASE);
}

/* The stopper's side: clear on (full fence), then see whether busy is set. */
static inline void prof_gate_close(volatile bool *on)
{
	__atomic_store_n(on, false, __ATOMIC_SEQ_CST);
}

/* Is the sampler inside (read after prof_gate_close, sequentially consistent)? */
static inline bool prof_gate_busy(volatile bool *busy)
{
	return __atomic_load_n(busy, __ATOMIC_SEQ_CST);
}

typedef struct prof_session {
	list_node_t node;
	uint64_t conn;                       /* the kbox connection it belongs to */
	uint64_t target;                     /* task id; 0 = system */
	uint64_t owner;                      /* unprivileged caller (LIMIT_PROF_SESSIONS), or 0 */
	uint32_t state;                      /* PROF_STATE_* */
	uint32_t flags, depth;
	int slot;                            /* index in prof_engine.targets, or -1 */
	bool ending;                         /* END asked or target gone: finish it */
	bool redact;                         /* owner lacks PERM_PROFILE: user data only */
	bool closed;                         /* connection gone: free it */
	uint32_t end_reason;
	prof_fifo_t out;                     /* the stream waiting to be read */
	struct call *read;                   /* a parked DATA_READ */
	uint64_t read_deadline;              /* ns */
	uint64_t samples, user, kernel, idle, lost, throttled;
	uint64_t offcpu;                     /* off-CPU records put in its stream */
	uint64_t trace;                      /* trace records put in its stream */
	uint64_t lost_unreported;            /* lost since the last LOST record */
	uint64_t begin_tsc;                  /* when it was listed: older trace records are not its */
	uint64_t end_tsc;                    /* when its end was asked for (ending) */
	uint32_t lost_records;               /* other records the full buffer dropped */
	uint64_t skipped_base;               /* sum of prof_cpus[].skipped at begin */
	uint64_t missed_base;                /* sum of prof_cpu_missed() at begin */
	uint64_t missed;                     /* ticks that never came since begin, all CPUs */
	/* A task session: servers whose work for the target it was told of (drain.c). */
	uint64_t servers[PROF_SERVERS_KNOWN];
	uint32_t nservers;                   /* told of so far (the array wraps) */
} prof_session_t;

/* A task event waiting for the drain thread (a whole stream record). */
typedef struct prof_event {
	list_node_t node;
	uint64_t task;
	size_t size;
	uint64_t rec[];                      /* prof_rec_* */
} prof_event_t;

extern prof_engine_t prof_engine;
extern prof_cpu_t prof_cpus[MAX_CPUS];
extern spinlock_t prof_lock;
extern list_t prof_sessions;                 /* prof_lock */
extern list_t prof_events;                   /* prof_lock */
extern volatile unsigned prof_nsessions;     /* live or not; hooks skip work at 0 */
/* unrouted: samples (and ring drops) that reached no session (taken after its end) */
extern uint64_t prof_total_samples, prof_total_lost, prof_total_throttled, prof_total_unrouted;
extern uint64_t prof_total_missed;           /* clock ticks that never came since boot (drain.c) */

/* drain.c: count a sample s got, by its PROF_MODE_*. prof_lock held. */
void prof_count_mode(prof_session_t *s, unsigned mode);

/* sample.c: reset the per-CPU state before the engine starts (engine period and ticking set). */
void prof_sample_reset(void);

/*
 * sample.c: ticks that never came on CPU cpu since the engine started
 * (its long gaps' excess in periods, rounded). Any context but NMI (it
 * divides); 0 when the engine is off or not a clock source.
 */
uint64_t prof_cpu_missed(unsigned cpu);

/*
 * sample.c: what the sampled code lost to one sample, seen at the next
 * one's entry (TSC): the time inside prof_hit (prev_entry to prev_exit,
 * at most hit_cap: beyond that the CPU was taken away, e.g. a loaded host
 * descheduled the emulator, which is not the sample's cost) plus the part
 * of the gap to next_entry that the interrupt's delivery, entry and
 * return took (irq_cost at most; the rest is the sampled code's
 * progress). Pure.
 */
uint64_t prof_throttle_loss(uint64_t prev_entry, uint64_t prev_exit, uint64_t next_entry,
			    uint64_t irq_cost, uint64_t hit_cap);
/*
 * sample.c: adjust t after window w for budget (1/100 %). The divisor
 * doubles until the cost would fit the budget. A clock source that owed
 * at least PROF_LATE_MIN_DUE hits and runs above PROF_LATE_MIN_HZ is
 * also charged the hits that did not come, as the periods they stood
 * for (an emulator pays for a fast clock outside the guest: QEMU's TCG
 * asked for 100 kHz delivers a few thousand and slows the program down;
 * the missing interrupts are the time it spent delivering the others), but
 * that rises the divisor only to w->late_div_max, the divisor that brings
 * the clock to PROF_LATE_MIN_HZ (a loaded host loses a share of every
 * rate: chasing it would starve the profile, as it did groundtruth.t's
 * 4 kHz when lateness could go lower); a divisor lateness raised becomes
 * the floor. It halves when the cost is under a quarter of the budget and
 * nearly all that was due came, never below the floor. At most
 * PROF_THROTTLE_MAX_DIV. Pure.
 */
void prof_throttle_step(prof_throttle_t *t, const prof_window_t *w, unsigned budget);

/* session.c: recompute the NMI filter from the sessions. prof_lock held. */
void prof_filter_update(void);
/* session.c: stop the engine if no session runs or is paused (thread context, no locks). */
void prof_engine_idle_check(void);

/* prof.c: source id's description (arch_prof_source_at's); false if the kernel has none such. */
bool prof_source_desc(unsigned id, prof_source_desc_t *d);
/* prof.c: PROF_SRC_DEFAULT's choice: the first usable source without NODEFAULT, 0 if none. */
unsigned prof_source_default(void);
/* session.c: copy size bytes of kernel data to c's caller at dst. EOK or EFAULT. */
errno_t prof_copy_to_caller(struct call *c, uint64_t dst, const void *src, size_t size);
/* session.c: free an unlisted session and its stream buffer. */
void prof_session_free(prof_session_t *s);
/* session.c: count record rec that s's full stream refused (a sample in lost, another record in lost_records); false. prof_lock held or unpublished. */
bool prof_session_lose(prof_session_t *s, const void *rec);

/* Append a record to a session's stream; false if full (prof_session_lose
 * counted it). prof_lock held or unpublished. Inline: the drain thread
 * does it for every sample. */
static inline bool prof_session_put(prof_session_t *s, const void *rec, size_t size)
{
	return prof_fifo_put(&s->out, rec, size) || prof_session_lose(s, rec);
}
/*
 * The header record of session s (its flags, depth, target, redaction)
 * whose samples come from source at hz, stamped now, into *h. Any
 * context (no lock, no allocation: the panic's dump uses it too).
 */
void prof_header_fill(prof_rec_header_t *h, const prof_session_t *s, unsigned source,
		      unsigned hz);

/* drain.c: start the drain thread; wake it early. */
void prof_drain_init(void);

/* Register the KBOX_PROF_* methods with the kbox (boot). */
void prof_kbox_init(void);
void prof_drain_kick(void);

/*
 * event.c: queue a copy of a task event record for the drain thread; with
 * no session (prof_nsessions 0, read under prof_lock) it is dropped.
 */
void prof_event_queue(uint64_t task, const void *rec, size_t size);
/* event.c: queue the records describing t (TASK, and LOAD if it runs a program) into s. */
void prof_describe_task(prof_session_t *s, struct task *t);

/* t's TASK record into r; its size. */
size_t prof_task_record(struct task *t, prof_rec_task_t *r);

/* Fill a record header. */
static inline void prof_rec_init(prof_rec_t *h, uint16_t type, size_t size, uint32_t cpu,
				 uint64_t tsc)
{
	h->type = type;
	h->size = (uint16_t)size;
	h->cpu = cpu;
	h->tsc = tsc;
}

/*
 * Put s into ring r (CPU cpu's) as a PROF_REC_CALL unless it is there
 * already (the first sample on that CPU naming it does). NMI-safe; a full
 * ring leaves it for a later sample.
 */
void prof_stack_emit(ostack_t *s, ring_t *r, uint32_t cpu, uint64_t now);

/* stack.c: keep IPC origin stacks of the tasks sessions with call chains
 * cover (on), or of none. prof_ctl held. */
void prof_stacks_want(bool on);

/*
 * offcpu.c: s's view of off-CPU record rec (no chain without call chains,
 * no kernel frames for a redacted session), in buf if it differs.
 */
const prof_rec_offcpu_t *prof_offcpu_view(const prof_session_t *s, const prof_rec_offcpu_t *rec,
					   prof_rec_offcpu_t *buf);
/* Off-CPU records the rings could not take since boot (drain.c adds them). */
extern uint64_t prof_offcpu_lost;

#endif
