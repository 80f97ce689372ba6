/*
 * sysinfo: the kernel's tree of system information, read by monitoring
 * tools (tasks, stats, top, sysinfo) through four system calls.
 *
 * Keys are dotted paths ("system.cpus", "system.tasks.7"). A node may be
 * a leaf (an integer, or binary data produced at the moment of the read)
 * and may have children; "" is the root. Data reads are one call that
 * returns a consistent snapshot: the kernel builds the whole value, then
 * copies it out only if it fits (nothing partial), else answers ENOMEM
 * and the size needed.
 *
 *   SYS_SYSINFO_KEYS(path, buf, size, size_t *needed) -> bytes
 *       the names of path's children (last components), each ending in
 *       '\0', in order; ENOENT for no such node
 *   SYS_SYSINFO_TYPE(path) -> SYSINFO_*   (ENOENT: no such node)
 *   SYS_SYSINFO_INT(path, uint64_t *value) -> 0 (EINVAL: not an integer)
 *   SYS_SYSINFO_DATA(path, buf, size, size_t *needed) -> bytes
 *       (EINVAL: not data; ENOMEM with *needed set: buf too small)
 *
 * Paths are at most SYSINFO_PATH_MAX - 1 bytes. Times are TSC cycles
 * (system.tsc_hz converts), memory is in bytes.
 *
 * The nodes (type, then the record of data nodes):
 *   kernel.version            data: text, e.g. "Vernier 0.1"
 *   kernel.build              data: text (compiler, date)
 *   boot.cmdline              data: text
 *   system.tsc_hz             int
 *   system.uptime             int: nanoseconds since boot
 *   system.cycles             int: TSC now (the snapshot time of readers)
 *   system.cpus               data: sysinfo_cpu_t[] (one per CPU)
 *   system.physmem            data: sysinfo_physmem_t
 *   system.load               data: sysinfo_load_t
 *   system.tasks              data: sysinfo_task_t[] (every live task);
 *                             children: one per task id
 *   system.tasks.<id>         data: sysinfo_task_t
 *   system.limits(.<id>)      data: sysinfo_limits_t[] (abi/limits.h): each
 *                             task's usage against its limits
 *   system.threads            data: sysinfo_thread_t[]; children: ids
 *   system.threads.<id>       data: sysinfo_thread_t
 *   system.exceptions         data: sysinfo_vector_t[] (every vector that
 *                             has a name or a count: exceptions 0-31,
 *                             IRQs, IPIs); children: vector numbers
 *   system.exceptions.<n>     data: sysinfo_vector_t
 *   system.syscalls           data: sysinfo_syscall_t[] (every number)
 *   system.ipc.pairs          data: sysinfo_ipc_pair_t[] (origin, server)
 *                             pairs, most cycles first
 *   system.profiler           data: sysinfo_profiler_t
 *   system.memory             data: sysinfo_memory_t (kernel memory
 *                             counters; vfuzz's leak check)
 *   system.bincache.entries   int: programs in the kernel's cache of
 *                             checked images (kernel/binary.h)
 *   system.bincache.bytes     int: kernel memory they hold (with symbols)
 *   system.bincache.limit     int: its byte budget (RAM / 32, 1-16 MiB)
 *   failinj.injected          int: failures injected (kernel/failinj.h);
 *   failinj.reached/absorbed/other  int: system calls with an injected
 *                             failure that returned ENOMEM/ELIMIT/EFAULT,
 *                             success, or another error
 */
#ifndef ABI_SYSINFO_H
#define ABI_SYSINFO_H

#include <stdint.h>
#include <abi/wait.h>

#define SYSINFO_PATH_MAX 64
#define SYSINFO_NAME_MAX 32

#define SYSINFO_NONE 0            /* an inner node only */
#define SYSINFO_INT 1
#define SYSINFO_DATA 2

typedef struct sysinfo_cpu {
	uint32_t id;
	uint32_t active;          /* online */
	uint64_t mhz;             /* TSC frequency (the same on every CPU) */
	uint64_t busy_cycles;     /* running threads (user and kernel) */
	uint64_t idle_cycles;     /* the idle thread: halted */
	uint64_t irq_cycles;      /* in hardware interrupt handlers */
	uint64_t switches;        /* context switches */
	uint64_t interrupts;      /* hardware interrupts taken */
	uint64_t irqoff_max_cycles;   /* longest interrupts-off section since boot */
	uint64_t nmi_max_cycles;      /* longest NMI handler since boot */
} sysinfo_cpu_t;

typedef struct sysinfo_physmem {
	uint64_t total;           /* usable RAM */
	uint64_t unavailable;     /* reserved by firmware, below usable */
	uint64_t used;
	uint64_t free;
} sysinfo_physmem_t;

/* Load averages in fixed point: value / SYSINFO_LOAD_ONE threads. */
#define SYSINFO_LOAD_SHIFT 11
#define SYSINFO_LOAD_ONE (1u << SYSINFO_LOAD_SHIFT)

typedef struct sysinfo_load {
	uint64_t avg[3];          /* 1, 5 and 15 minutes */
	uint32_t runnable;        /* ready + running threads at the last sample */
	uint32_t period_ms;       /* between samples (5000) */
} sysinfo_load_t;

typedef struct sysinfo_ipc_counts {
	uint64_t calls_sent, calls_received;
	uint64_t answers_sent, answers_received;
	uint64_t irq_notifications, forwarded;
} sysinfo_ipc_counts_t;

typedef struct sysinfo_task {
	uint64_t id;
	uint64_t parent;
	char name[SYSINFO_NAME_MAX];
	uint32_t threads;
	uint32_t perms;
	uint64_t virt_bytes;      /* mapped address space */
	uint64_t resident_bytes;  /* frames it holds */
	uint64_t user_cycles;     /* of all its threads, live and exited */
	uint64_t kernel_cycles;
	sysinfo_ipc_counts_t ipc;
	/*
	 * IPC-aware accounting (docs/ARCHITECTURE.md, "Where a task's time
	 * goes"): cycles (user and kernel) other tasks' threads spent serving
	 * calls this task originated, and cycles this task's threads spent
	 * serving calls others originated. Exact at the same boundaries as
	 * user_cycles and kernel_cycles.
	 */
	uint64_t imposed_cycles;
	uint64_t served_cycles;
} sysinfo_task_t;

/* sysinfo_thread_t.state */
#define SYSINFO_THREAD_READY 0
#define SYSINFO_THREAD_RUNNING 1
#define SYSINFO_THREAD_SLEEPING 2
#define SYSINFO_THREAD_ZOMBIE 3

typedef struct sysinfo_thread {
	uint64_t id;
	uint64_t task;            /* 0: a kernel thread */
	char name[SYSINFO_NAME_MAX];
	uint32_t state;           /* SYSINFO_THREAD_* */
	uint32_t priority;
	uint32_t cpu;             /* where it runs or last ran */
	uint32_t on_cpu;          /* running right now */
	uint64_t user_cycles;
	uint64_t kernel_cycles;
	uint64_t switches;
	uint64_t serving_origin;  /* task whose call it serves now; 0: none */
	uint64_t serving_method;  /* that call's method */
	uint32_t wait_why;        /* WAIT_WHY_* of its wait now (NONE: running) */
	uint32_t reserved;
	uint64_t wait_task;       /* WAIT_WHY_IPC: the task it called; 0 otherwise */
	uint64_t wait_method;     /* WAIT_WHY_IPC: the method of that call */
	uint64_t off_cycles[WAIT_WHY_COUNT];  /* off its CPU since it first ran, by reason */
} sysinfo_thread_t;

typedef struct sysinfo_vector {
	uint32_t vector;          /* 0-31 exceptions, 32-255 interrupts */
	uint32_t reserved;
	char desc[SYSINFO_NAME_MAX];  /* "page fault", "timer", "IRQ 4" */
	uint64_t count;           /* all CPUs */
	uint64_t cycles;          /* in its handler, all CPUs */
} sysinfo_vector_t;

typedef struct sysinfo_syscall {
	uint32_t nr;
	uint32_t reserved;
	char name[SYSINFO_NAME_MAX];
	uint64_t count;
	uint64_t cycles;          /* kernel cycles of the calling threads */
} sysinfo_syscall_t;

/* Kernel memory: what a leak check compares before and after a run. */
typedef struct sysinfo_memory {
	uint64_t frames_free;     /* frames in the allocator */
	uint64_t heap_frames;     /* frames the kernel heap holds (used or not) */
	uint64_t heap_live;       /* bytes of live heap objects (size-class rounded) */
	uint64_t heap_cached;     /* of which bounded caches any task fills (cprof's
	                             kept tables of exited processes, the program
	                             cache's entries and symbol copies) */
	uint64_t kstacks;         /* kernel stacks in use by threads */
	uint64_t kstack_frames;   /* frames mapped as kernel stacks (in use or cached) */
	uint64_t table_frames;    /* page-table frames, kernel and user */
} sysinfo_memory_t;

/*
 * system.ipc.pairs: who served whom since boot, one entry per (origin,
 * server) pair, most cycles first. The kernel keeps SYSINFO_IPC_PAIRS
 * pairs; work of pairs that found no free entry is summed in one entry
 * with origin 0 and server 0 ("other"), listed last.
 */
#define SYSINFO_IPC_PAIRS 128

typedef struct sysinfo_ipc_pair {
	uint64_t origin, server;  /* task ids */
	char origin_name[SYSINFO_NAME_MAX];
	char server_name[SYSINFO_NAME_MAX];
	uint64_t cycles;          /* the server's cycles serving the origin's calls */
	uint64_t calls;           /* calls of the origin's the server took */
} sysinfo_ipc_pair_t;

/* The statistical profiler (abi/profile.h). */
typedef struct sysinfo_profiler {
	uint32_t state;           /* PROF_STATE_IDLE, or RUNNING while sampling */
	uint32_t source, hz;      /* PROF_SRC_* and per-CPU rate while sampling */
	uint32_t sessions;        /* open sessions (any state) */
	uint32_t system_sessions; /* of which whole-system */
	uint32_t available;       /* bit n set: source n usable here */
	uint64_t samples;         /* taken since boot */
	uint64_t lost;            /* dropped (full rings) since boot */
	uint64_t throttled;       /* skipped by the throttle since boot */
	uint64_t memory;          /* kernel bytes held for rings and sessions */
	uint64_t unrouted;        /* samples and drops no session got (taken after its end) */
	uint64_t missed;          /* clock-source ticks that never came since boot (abi/profile.h) */
} sysinfo_profiler_t;

#endif
