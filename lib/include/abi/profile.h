/*
 * The statistical profiler's ABI: kbox methods, sources, and the sample
 * stream (shared by the kernel, the guest tools and the host tool).
 *
 * A profiler connects to a task's kernel answerbox (SYS_IPC_CONNECT_KBOX;
 * its own for a whole-system session) and calls the KBOX_PROF_* methods
 * on that phone. One phone (connection) holds at most one session.
 *
 * The stream is a sequence of records, all little-endian, each starting
 * with a prof_rec_t header whose size (a multiple of 8) covers the whole
 * record, so a reader can skip types it does not know. The first record
 * of every stream is PROF_REC_HEADER (magic and version); a file written
 * by `-o` is exactly the stream, so it starts with that record too.
 * DATA_READ never splits a record between two reads.
 *
 * Version history: 1 — first version. 2 — samples carry the words at the
 * top of the stack (ntop, after the chain); readers take both versions.
 * 3 — a sample of a thread that serves an IPC call ends with a prof_ipc_t
 * (after the chain and the top words): whose work it is. A reader knows it
 * is there from the record's size (room for it after chain[] and the top
 * words). With call chains, PROF_REC_CALL carries the origin's user stack
 * when it made the call, once, before the first sample that refers to it.
 * 4 — PROF_REC_OFFCPU (off-CPU records). 5 — every sample carries its
 * weight (the TSC cycles it stands for, a word after ntop, before chain[]:
 * older samples are 8 bytes shorter there and a reader weighs them
 * nominally, tsc_hz / hz each), and PROF_REC_MISSED counts the ticks of a
 * clock source that never came, per CPU. 6 — the header names its
 * source (source_name). 7 — PROF_REC_TRACE (kernel trace events: the
 * PROF_F_TRACE_* classes a session asked for).
 */
#ifndef ABI_PROFILE_H
#define ABI_PROFILE_H

#include <abi/ipc.h>
#include <abi/record.h>
#include <stdint.h>
#include <abi/wait.h>

#define PROF_MAGIC 0x464f525056ull      /* "VPROF\0\0\0" little-endian */
#define PROF_VERSION 7
#define PROF_VERSION_MIN 1             /* oldest a reader must still take */

/*
 * Sample sources: their ids. Names, kinds and the default order are the
 * kernel's (each source describes itself: system.profiler.sources, a
 * prof_source_desc_t each, and the stream header's source_name, v6).
 */
#define PROF_SRC_DEFAULT 0              /* the first usable source in the kernel's order */
#define PROF_SRC_PMC 1                  /* counter overflow NMI, unhalted cycles */
#define PROF_SRC_RTC 2                  /* CMOS RTC IRQ 8, rebroadcast by IPI */
#define PROF_SRC_RTC_NMI 3              /* CMOS RTC, rebroadcast by NMI IPI */
#define PROF_SRC_TIMER 4                /* each CPU's local APIC timer */
#define PROF_SRC_COUNT 5
/*
 * Headers and samples only, not a source to ask for: the scheduler
 * tick's samples of the flight recorder (PROF_F_RECORDER), named "tick".
 */
#define PROF_SRC_TICK 16
#define PROF_SRC_TICK_NAME "tick"

#define PROF_SRC_NAME_MAX 16            /* a source's name, NUL included */

/* Source kinds (prof_source_desc_t.flags). */
#define PROF_SRCF_CLOCK (1u << 0)       /* ticks at a fixed rate: a sample weighs the time since the CPU's last one */
#define PROF_SRCF_OWED (1u << 1)        /* per-CPU clock whose late ticks are owed: hits short of due slow the throttle */
#define PROF_SRCF_NODEFAULT (1u << 2)   /* never chosen by PROF_SRC_DEFAULT */
#define PROF_SRCF_NMI (1u << 3)         /* samples are taken in NMI context (also inside interrupts-off code) */
#define PROF_SRCF_AVAILABLE (1u << 8)   /* usable on this machine (probed at boot) */

/*
 * sysinfo system.profiler.sources: one per source the kernel has, in its
 * order (probing and PROF_SRC_DEFAULT's choice: the first usable one
 * without PROF_SRCF_NODEFAULT). An abi/record.h row table.
 */
#define PROF_SOURCE_DESC_ROWS(X, T) \
	X(T, FIELD, uint32_t, id, U32)                  /* PROF_SRC_* */ \
	X(T, FIELD, uint32_t, flags, HEX32)             /* PROF_SRCF_* */ \
	X(T, TEXT, name, PROF_SRC_NAME_MAX)             /* "pmc", "rtc-nmi", ... */ \
	X(T, TEXT, what, 64)                            /* what it is here, or why it is not usable */
RECORD_STRUCT(prof_source_desc, PROF_SOURCE_DESC_ROWS);

/* Rates (Hz). rtc and rtc-nmi round to a power of two in [2, 8192]. */
#define PROF_HZ_DEFAULT 1000
#define PROF_HZ_MAX 100000

/* Session flags (BEGIN args[2]). */
#define PROF_F_CALLCHAIN (1u << 0)      /* walk the frame pointers */
#define PROF_F_PAUSED (1u << 1)         /* begin paused (RESUME starts it) */
#define PROF_F_OFFCPU (1u << 2)         /* also where covered threads wait (PROF_REC_OFFCPU, v4) */
/* Kernel trace events (PROF_REC_TRACE, v7), by class; any mix. */
#define PROF_F_TRACE_SCHED (1u << 3)    /* context switches and wakeups */
#define PROF_F_TRACE_IPC (1u << 4)      /* calls, receives, forwards, answers, hang-ups */
#define PROF_F_TRACE_IRQ (1u << 5)      /* interrupts' entry and exit */
#define PROF_F_TRACE_SYSCALL (1u << 6)  /* system calls' entry and exit */
#define PROF_F_TRACE (PROF_F_TRACE_SCHED | PROF_F_TRACE_IPC | PROF_F_TRACE_IRQ | \
		      PROF_F_TRACE_SYSCALL)
/*
 * SYSTEM_BEGIN only: the flight recorder's contents (v7). The kernel
 * keeps the last events of TRACE_RECORDER's classes (sched and ipc) and
 * a sample at every scheduler tick of each CPU in rings made at boot
 * (recorder=MIB on its command line; 0: none); such a session's stream
 * is a header (source PROF_SRC_TICK at the tick's rate; flags PROF_F_RECORDER
 * and the recorder's classes), the tasks alive, then those samples
 * (no call chain) and events, each CPU's oldest first, then its END
 * (reason PROF_END_RECORDER): it ends at once, to be read out. Other
 * flags and the rate are ignored. ENOTSUP without the recorder.
 */
#define PROF_F_RECORDER (1u << 7)
/* Header only, set by the kernel: QEMU TCG without -icount (abi/platform.h). */
#define PROF_F_TB_BIASED (1u << 31)
/*
 * Header only, set by the kernel: QEMU -icount on more than one CPU, in a
 * QEMU before 8.1 (platform_icount_uneven). QEMU 7.2 runs the vCPUs in
 * uneven turns on one thread, so a CPU's samples that come due while it
 * waits for its turn are taken where its last turn ended, and CPU shares
 * are off. QEMU 10 was measured exact per job (test/gtsmp.t).
 */
#define PROF_F_ICOUNT_SMP (1u << 30)
/*
 * Header only, set by the kernel: QEMU -icount shift=auto (as its
 * launcher told through fw_cfg). QEMU rescales guest time to the host's
 * emulation speed as it goes, so samples follow emulation speed, not
 * instructions: code that is slow to emulate gets more than its share.
 */
#define PROF_F_ICOUNT_AUTO (1u << 29)

#define PROF_BUDGET_DEFAULT 2500       /* 1/100 %: 25%, Linux perf's default */
#define PROF_BUDGET_MAX 10000          /* 100% */
/* Caps of a session whose owner lacks the profile permission (ELIMIT beyond). */
#define PROF_UNPRIV_HZ_MAX 10000
#define PROF_UNPRIV_BUDGET_MAX 2500    /* 25% */

#define PROF_DEPTH_DEFAULT 64
#define PROF_DEPTH_MAX 128

/*
 * kbox methods (see abi/ipc.h for the call model). Errors: EPERM without
 * the permission, EBUSY for a second session on one phone or a second
 * system session, ENOTSUP for a source this machine does not have, EINVAL
 * for bad arguments, ENOENT for a method needing a session on a phone
 * with none.
 *
 * TASK_BEGIN, SYSTEM_BEGIN: args source, hz, flags, depth, budget (the
 *   share of each CPU's time sampling may take before the throttle keeps
 *   only every 2nd, 4th, ... sample, in hundredths of a percent:
 *   1..PROF_BUDGET_MAX, 0 = the default PROF_BUDGET_DEFAULT; like source and rate it is the engine's, set by
 *   the first session). Task sessions
 *   profile the kbox's task (needs PERM_PROFILE unless the caller is its
 *   parent or the task itself); system sessions sample every CPU and need
 *   PERM_PROFILE. Answer args[0] = the source used, args[1] = the rate.
 *   Sessions share one sampling engine: a session begun while another
 *   runs gets the running source and rate (the answer says which).
 * END: stop sampling; what is buffered can still be read. Answer EOK.
 * PAUSE, RESUME: stop and restart taking samples for this session.
 * DATA_READ: args dst, size (≥ PROF_READ_MIN; at most PROF_READ_MAX is
 *   used). Answered when at least half of that waits or after
 *   PROF_READ_TIMEOUT_MS, whichever is first,
 *   with args[0] = bytes copied to dst (whole records only), args[1] =
 *   the session state. After END (or the end of the target), once every
 *   record is read, the answer has 0 bytes and state PROF_STATE_ENDED.
 *   One DATA_READ may wait per session (EBUSY for a second).
 * STATUS: args dst, size: copies a prof_status_t (up to size bytes).
 */
#define KBOX_PROF_TASK_BEGIN (IPC_M_USER + 16)
#define KBOX_PROF_SYSTEM_BEGIN (IPC_M_USER + 17)
#define KBOX_PROF_END (IPC_M_USER + 18)
#define KBOX_PROF_PAUSE (IPC_M_USER + 19)
#define KBOX_PROF_RESUME (IPC_M_USER + 20)
#define KBOX_PROF_DATA_READ (IPC_M_USER + 21)
#define KBOX_PROF_STATUS (IPC_M_USER + 22)

#define PROF_READ_MIN 4096
#define PROF_READ_MAX (512 * 1024)      /* most one DATA_READ returns */
#define PROF_READ_TIMEOUT_MS 200

/* Session (and engine) states. */
#define PROF_STATE_IDLE 0               /* engine: no session */
#define PROF_STATE_RUNNING 1
#define PROF_STATE_PAUSED 2
#define PROF_STATE_ENDED 3              /* no more samples; drain what is left */

/* STATUS: a session's counters. */
typedef struct prof_status {
	uint32_t state, source;
	uint32_t hz, ncpus;
	uint64_t samples;               /* delivered to this session */
	uint64_t user, kernel, idle;    /* samples by mode */
	uint64_t lost;                  /* dropped: full ring or full buffer */
	uint64_t throttled;             /* skipped by the throttle */
	uint64_t pending;               /* bytes waiting to be read */
	uint64_t sample_cycles;         /* cycles prof_hit spent taking samples, all CPUs */
	uint64_t taken;                 /* samples it took (both since the engine started) */
	uint64_t target;                /* task id, 0 for a system session */
	uint64_t chains_lost;           /* origin stacks not kept (engine-wide, PROF_REC_CALL) */
	uint64_t offcpu_lost;           /* off-CPU records the buffers could not take (engine-wide) */
	uint64_t offcpu;                /* off-CPU records delivered to this session */
	uint64_t missed;                /* clock ticks that never came, all CPUs, since begin (v5) */
	uint64_t trace;                 /* trace records delivered to this session (v7) */
	uint64_t trace_lost;            /* trace records the per-CPU buffers could not take (engine-wide) */
} prof_status_t;

/* Record types. */
#define PROF_REC_HEADER 1
#define PROF_REC_SAMPLE 2
#define PROF_REC_TASK 3                 /* a task exists (created, or alive at begin) */
#define PROF_REC_LOAD 4                 /* a program was loaded into a task */
#define PROF_REC_EXIT 5                 /* a task exited */
#define PROF_REC_LOST 6                 /* samples dropped on a CPU */
#define PROF_REC_THROTTLE 7             /* a CPU's sampling was slowed or restored */
#define PROF_REC_END 8                  /* last record of a session */
#define PROF_REC_CALL 9                 /* an origin's stack when it made a call (v3) */
#define PROF_REC_OFFCPU 10              /* a thread was off its CPU (v4, PROF_F_OFFCPU) */
#define PROF_REC_MISSED 11              /* a CPU's count of ticks that never came (v5) */
#define PROF_REC_TRACE 12               /* a kernel trace event (v7, PROF_F_TRACE_*) */

typedef struct prof_rec {
	uint16_t type;
	uint16_t size;                  /* whole record, multiple of 8 */
	uint32_t cpu;                   /* CPU it happened on (0 if none) */
	uint64_t tsc;                   /* when */
} prof_rec_t;

typedef struct prof_rec_header {
	prof_rec_t h;
	uint64_t magic;                 /* PROF_MAGIC */
	uint32_t version;               /* PROF_VERSION */
	uint32_t source;                /* PROF_SRC_* in use */
	uint32_t hz;                    /* per-CPU rate in use */
	uint32_t ncpus;                 /* CPUs online */
	uint32_t flags;                 /* PROF_F_* */
	uint32_t depth;                 /* call chain limit */
	uint64_t tsc_hz;                /* TSC ticks per second */
	uint64_t target;                /* task id, 0 = whole system */
	uint64_t ktext_start, ktext_end;/* kernel text */
	char kernel[32];                /* kernel version string */
	char source_name[PROF_SRC_NAME_MAX];  /* the source's name (v6; older headers end before it) */
} prof_rec_header_t;

/* The size of a header before v6 (without source_name). */
#define PROF_REC_HEADER_V5_SIZE 112

/* Sample modes. */
#define PROF_MODE_USER 0
#define PROF_MODE_KERNEL 1
#define PROF_MODE_IDLE 2                /* the CPU's idle thread */

typedef struct prof_rec_sample {
	prof_rec_t h;
	uint64_t task, thread;
	uint64_t pc;
	uint8_t mode, source;
	uint16_t nchain;                /* entries in chain[] */
	uint16_t nkernel;               /* how many of them are kernel addresses */
	uint16_t ntop;                  /* words after chain[]: [sp], [sp+8], ... (v2; 0 in v1) */
	uint64_t weight;                /* v5: TSC cycles it stands for (below); 0: nominal */
	uint64_t chain[];               /* return addresses, innermost first, then the ntop words */
} prof_rec_sample_t;

/* A sample's fixed part before v5 (no weight: chain[] starts here). */
#define PROF_SAMPLE_V4_SIZE 48
_Static_assert(__builtin_offsetof(prof_rec_sample_t, weight) == PROF_SAMPLE_V4_SIZE,
	       "the weight follows the v4 fixed part");

/*
 * Weights (v5). A sample of a clock source (rtc, rtc-nmi, timer) weighs
 * the TSC cycles since the previous tick its CPU took (a tick the
 * throttle skipped adds its time to the next kept sample), so a tick that
 * came late or never came is made up by the next one; the first sample
 * of a CPU weighs the nominal period. A pmc sample counts unhalted cycles,
 * not time, and weighs its period (tsc_hz / hz times the throttle's
 * divisor). A reader weighs a sample with weight 0 (and every sample
 * before v5) nominally: tsc_hz / hz.
 *
 * Missed ticks (v5). A clock source's gap longer than 1.5 of its periods
 * (the throttle's divisor included) holds ticks that never came: the
 * cycles such gaps last beyond the periods their samples stand for,
 * counted in periods, are the CPU's `missed`. The record carries the
 * CPU's (h.cpu) count since the engine started: a session gets one per
 * CPU when it begins (its base), then one whenever the count changed (the
 * drain thread, every 10 ms), so missed in a session = last - first. For
 * a system session, per CPU: due (the session's time * hz) = samples +
 * lost + throttled + missed, up to rounding.
 */
typedef struct prof_rec_missed {
	prof_rec_t h;
	uint64_t missed;                /* ticks that never came on h.cpu since the engine started */
} prof_rec_missed_t;

/*
 * With a call chain, each sample also carries the PROF_TOP_WORDS words at
 * the top of the interrupted stack (fewer where it ends or is not mapped):
 * a function sampled before its frame is set up (or one built without a
 * frame) has its return address there, not where the chain walk finds it.
 */
#define PROF_TOP_WORDS 2

/*
 * IPC-aware profiling (v3). A server thread serves a call from the moment
 * it takes it from its answerbox until it answers or forwards it or takes
 * another call. A sample of a serving thread carries the call's origin:
 * the task and thread that began the chain of work, and the tasks it went
 * through (hops[0] the origin, then each server that made a call on its
 * behalf, then the sampled task; at most PROF_IPC_HOPS, the deepest kept
 * last). Forwarding keeps the origin and adds no hop.
 *
 * Sessions: a task session on task T also gets the samples of threads
 * serving calls T originated. If the session's owner may not profile the
 * serving task (no PERM_PROFILE, not the task itself), such a sample
 * comes redacted: pc 0, no chain, no top words, the prof_ipc_t kept, so a
 * report shows one frame "[ipc SERVER.METHOD]".
 */
#define PROF_IPC_HOPS 4

typedef struct prof_ipc {
	uint64_t call;                  /* the served call's id */
	uint64_t origin_thread;
	uint64_t method;                /* of the served call (as the server got it) */
	uint16_t nhops;                 /* entries in hops[] (2..PROF_IPC_HOPS; 0: none) */
	uint16_t depth;                 /* tasks on the whole path (> nhops: cut) */
	uint32_t reserved;
	uint64_t hops[PROF_IPC_HOPS];   /* task ids: origin first, the sampled task last */
	uint64_t stack;                 /* PROF_REC_CALL with the origin's stack; 0: none */
} prof_ipc_t;

/*
 * With call chains (PROF_F_CALLCHAIN), when a session covers the task
 * making a call (a system session, or a task session on it), the kernel
 * keeps that thread's user stack with the call: the pc of the system call
 * and the return addresses above it, at most PROF_IPC_STACK_MAX. Calls
 * the server makes while serving carry the same stack (the origin's). The
 * stream carries it as this record before the first sample that names
 * it in prof_ipc_t.stack (once per CPU whose samples name it: a reader
 * keeps the first record of an id), so a report can draw `origin stack ;
 * [ipc SERVER.METHOD] ; server stack`. The kernel keeps at most
 * PROF_IPC_STACKS stacks at once; calls beyond that keep none (stack 0 in
 * their samples) and are counted in prof_status_t.chains_lost.
 */
#define PROF_IPC_STACK_MAX 32
#define PROF_IPC_STACKS 512

typedef struct prof_rec_call {
	prof_rec_t h;
	uint64_t stack;                 /* the id samples name (prof_ipc_t.stack) */
	uint64_t task, thread;          /* the origin */
	uint16_t nchain;                /* entries in chain[] */
	uint16_t reserved[3];
	uint64_t chain[];               /* pc of the call, then return addresses, innermost first */
} prof_rec_call_t;

/*
 * Off-CPU profiling (v4). With PROF_F_OFFCPU, each time a thread the
 * session covers (its target task's, or every thread for a system
 * session) runs again after it was off its CPU, the stream gets one
 * record: when it left (start) and for how long (cycles, TSC), why
 * (WAIT_WHY_*, lib/include/abi/wait.h: runnable, sleep, ipc with the
 * callee and method, recv, join, child, wait), and with call chains
 * (PROF_F_CALLCHAIN) the stack where it waited, as a sample's chain: the
 * kernel's return addresses first (nkernel of them; none for a session
 * whose owner may not see the kernel's), then the user ones. h.tsc is
 * when it ran again, h.cpu where. A wall-clock profile weights each
 * record as cycles * hz / tsc_hz samples. Records the per-CPU buffer
 * cannot take are counted in prof_status_t.offcpu_lost. A thread that
 * was serving a call while it waited (for the next server of a chain, a
 * device, the CPU) has the call's prof_ipc_t after its chain, as a
 * sample does (none: the record ends after the chain), and a task
 * session on the call's origin gets the record too (redacted as a
 * sample is: no chain when its owner may not profile that server).
 */
typedef struct prof_rec_offcpu {
	prof_rec_t h;
	uint64_t task, thread;
	uint64_t start;                 /* TSC when it left its CPU */
	uint64_t cycles;                /* TSC cycles off its CPU */
	uint32_t why;                   /* WAIT_WHY_* */
	uint16_t nchain;                /* entries in chain[] */
	uint16_t nkernel;               /* how many of them are kernel addresses (first) */
	uint64_t wait_task;             /* WAIT_WHY_IPC: the task it called; else 0 */
	uint64_t wait_method;           /* WAIT_WHY_IPC: that call's method */
	uint64_t chain[];               /* return addresses, innermost first */
} prof_rec_offcpu_t;

/*
 * Kernel trace events (v7). A session that asks for classes of events
 * (PROF_F_TRACE_* in its flags) gets one record per event of those
 * classes that concerns what it covers: a system session all of them, a
 * task session those whose thread (or other side) is its task's or
 * serves a call its task originated. h.cpu is where it happened, h.tsc
 * when (for SWITCH the accounting's own stamp of the switch, so slices
 * between switches add up to the accounted time). Each record names who
 * acted (task, thread) and the other side (task2, thread2): thread 0 is
 * the idle thread (or none), task 0 with a thread a kernel thread; both
 * 0 on a side a task session's owner may not see (its redaction: another
 * task's thread not working for its target; the owner sees its own
 * threads, as its samples do). origin and
 * origin2 are the tasks whose call each side was serving (its origin,
 * prof_ipc_t.hops[0]), 0 if none. By kind:
 *
 *   SWITCH    h.cpu switched from thread (its state arg, PROF_TS_*, and
 *             wait reason why: WAIT_WHY_*) to thread2
 *   WAKEUP    thread became runnable; thread2 woke it (0: an interrupt)
 *   CALL      thread sent call `call` (method) to task2
 *   RECEIVE   thread took call `call` from its box (it serves it now);
 *             task2: the caller (thread2 0: the CALL names it)
 *   FORWARD   thread passed call `call` (method: as forwarded) to task2
 *   ANSWER    thread answered call `call` (arg: the answer's method,
 *             its result, low 32 bits); task2: the caller
 *   ANSWERED  thread (the caller) took the answer of call `call`; arg
 *             the answer's method, low 32 bits
 *   HANGUP    thread hung up its phone (number arg) to task2
 *   IRQ_ENTER, IRQ_EXIT     an interrupt (vector arg, 32 and up: devices,
 *             timers, IPIs; not NMIs), on thread (the one it interrupted)
 *   SYSCALL_ENTER, SYSCALL_EXIT   thread's system call number arg
 *
 * One call's events share its id from CALL to ANSWERED through every
 * RECEIVE and FORWARD: a reader draws them as one flow. A wakeup that
 * hands the thread to the CPU it was woken on, to run next there (IPC's
 * fast path), has no WAKEUP: the SWITCH to it follows; if it is queued
 * instead, its WAKEUP comes then, stamped with the wakeup's time. So a
 * CPU's records are not always in time order: a reader sorts by tsc. Records the
 * per-CPU buffer cannot take are counted in prof_status_t.trace_lost
 * and in the lost_records of the END record of every session tracing.
 */
#define PROF_TR_SWITCH 1
#define PROF_TR_WAKEUP 2
#define PROF_TR_CALL 3
#define PROF_TR_RECEIVE 4
#define PROF_TR_FORWARD 5
#define PROF_TR_ANSWER 6
#define PROF_TR_ANSWERED 7
#define PROF_TR_HANGUP 8
#define PROF_TR_IRQ_ENTER 9
#define PROF_TR_IRQ_EXIT 10
#define PROF_TR_SYSCALL_ENTER 11
#define PROF_TR_SYSCALL_EXIT 12
#define PROF_TR_COUNT 13

/* Short names, by PROF_TR_* (index 0 and out of range: "?"). */
#define PROF_TR_NAMES { "?", "switch", "wakeup", "call", "receive", "forward", "answer", \
		"answered", "hangup", "irq-enter", "irq-exit", "syscall-enter", "syscall-exit" }

/* SWITCH: the state of the thread that left its CPU. */
#define PROF_TS_RUNNABLE 0              /* preempted or yielded: still runnable */
#define PROF_TS_WAITING 1               /* blocked (why says on what) */
#define PROF_TS_EXITED 2                /* it ended */

typedef struct prof_rec_trace {
	prof_rec_t h;                   /* h.cpu, h.tsc: where and when */
	uint16_t kind;                  /* PROF_TR_* */
	uint16_t why;                   /* SWITCH: WAIT_WHY_* of the thread leaving; else 0 */
	uint32_t arg;                   /* SWITCH: PROF_TS_*; IRQ: vector; SYSCALL: number */
	uint64_t task, thread;          /* who acted (0: the idle thread) */
	uint64_t task2, thread2;        /* the other side (0: none, or redacted) */
	uint64_t call, method;          /* IPC kinds: the call's id and method; else 0 */
	uint64_t origin, origin2;       /* the origin task each side serves (0: none) */
} prof_rec_trace_t;

typedef struct prof_rec_task {
	prof_rec_t h;
	uint64_t task, parent;
	char name[32];
} prof_rec_task_t;

typedef struct prof_rec_load {
	prof_rec_t h;
	uint64_t task;
	uint64_t text_start, text_end;  /* the program's executable range */
	uint64_t hash;                  /* FNV-1a 64 of the ELF file */
	char path[];                    /* NUL-terminated, padded to 8 */
} prof_rec_load_t;

typedef struct prof_rec_exit {
	prof_rec_t h;
	uint64_t task;
	uint64_t status;
} prof_rec_exit_t;

typedef struct prof_rec_lost {
	prof_rec_t h;
	uint64_t count;                 /* samples lost since the last record */
} prof_rec_lost_t;

typedef struct prof_rec_throttle {
	prof_rec_t h;
	uint32_t divisor;               /* 1 = full rate again; n = every nth */
	uint32_t reserved;
	uint64_t skipped;               /* samples skipped so far on that CPU */
} prof_rec_throttle_t;

typedef struct prof_rec_end {
	prof_rec_t h;
	uint64_t samples, lost, throttled;  /* lost: samples only */
	uint32_t reason;                /* PROF_END_* */
	uint32_t lost_records;          /* other records (task, load, exit...) dropped */
} prof_rec_end_t;

#define PROF_END_REQUEST 1              /* END was called */
#define PROF_END_TARGET_EXIT 2          /* the profiled task exited */
#define PROF_END_RECORDER 3             /* the flight recorder's contents, all read out */
/*
 * The flight recorder dumped at a kernel panic to the platform's dump
 * port (COM2 on a PC): a header, the samples and events (no tasks: the
 * task table is not read at a panic), this END.
 */
#define PROF_END_PANIC 4

#endif
