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
 * The nodes (type, then the record of data nodes; the kernel defines each
 * next to the subsystem it reads, see kernel/sysinfo.h):
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
#include <abi/record.h>
#include <abi/wait.h>

#define SYSINFO_PATH_MAX 64
#define SYSINFO_NAME_MAX 32

#define SYSINFO_NONE 0            /* an inner node only */
#define SYSINFO_INT 1
#define SYSINFO_DATA 2

/*
 * The records: each an X-macro row table (abi/record.h) that yields the
 * struct and the field table readers print from (uspace/app/sysinfo).
 */
#define SYSINFO_CPU_ROWS(X, T) \
	X(T, FIELD, uint32_t, id, U32) \
	X(T, FIELD, uint32_t, active, U32)              /* online */ \
	X(T, FIELD, uint64_t, mhz, U64)                 /* TSC frequency (the same on every CPU) */ \
	X(T, FIELD, uint64_t, busy_cycles, U64)         /* running threads (user and kernel) */ \
	X(T, FIELD, uint64_t, idle_cycles, U64)         /* the idle thread: halted */ \
	X(T, FIELD, uint64_t, irq_cycles, U64)          /* in hardware interrupt handlers */ \
	X(T, FIELD, uint64_t, switches, U64)            /* context switches */ \
	X(T, FIELD, uint64_t, interrupts, U64)          /* hardware interrupts taken */ \
	X(T, FIELD, uint64_t, irqoff_max_cycles, U64)   /* longest interrupts-off section since boot */ \
	X(T, FIELD, uint64_t, nmi_max_cycles, U64)      /* longest NMI handler since boot */
RECORD_STRUCT(sysinfo_cpu, SYSINFO_CPU_ROWS);

#define SYSINFO_PHYSMEM_ROWS(X, T) \
	X(T, FIELD, uint64_t, total, U64)               /* usable RAM */ \
	X(T, FIELD, uint64_t, unavailable, U64)         /* reserved by firmware, below usable */ \
	X(T, FIELD, uint64_t, used, U64) \
	X(T, FIELD, uint64_t, free, U64)
RECORD_STRUCT(sysinfo_physmem, SYSINFO_PHYSMEM_ROWS);

/* Load averages in fixed point: value / SYSINFO_LOAD_ONE threads. */
#define SYSINFO_LOAD_SHIFT 11
#define SYSINFO_LOAD_ONE (1u << SYSINFO_LOAD_SHIFT)

#define SYSINFO_LOAD_ROWS(X, T) \
	X(T, MEMBER, uint64_t, avg, [3])                /* 1, 5 and 15 minutes */ \
	X(T, SHOW, avg1, avg[0], LOAD) \
	X(T, SHOW, avg5, avg[1], LOAD) \
	X(T, SHOW, avg15, avg[2], LOAD) \
	X(T, FIELD, uint32_t, runnable, U32)            /* ready + running threads at the last sample */ \
	X(T, FIELD, uint32_t, period_ms, U32)           /* between samples (5000) */
RECORD_STRUCT(sysinfo_load, SYSINFO_LOAD_ROWS);

#define SYSINFO_IPC_COUNTS_ROWS(X, T) \
	X(T, FIELD, uint64_t, calls_sent, U64) \
	X(T, FIELD, uint64_t, calls_received, U64) \
	X(T, FIELD, uint64_t, answers_sent, U64) \
	X(T, FIELD, uint64_t, answers_received, U64) \
	X(T, FIELD, uint64_t, irq_notifications, U64) \
	X(T, FIELD, uint64_t, forwarded, U64)
RECORD_STRUCT(sysinfo_ipc_counts, SYSINFO_IPC_COUNTS_ROWS);

/*
 * sysinfo_task_t's imposed_cycles and served_cycles: IPC-aware accounting
 * (docs/ARCHITECTURE.md, "Where a task's time goes"): cycles (user and
 * kernel) other tasks' threads spent serving calls this task originated,
 * and cycles this task's threads spent serving calls others originated.
 * Exact at the same boundaries as user_cycles and kernel_cycles.
 */
#define SYSINFO_TASK_ROWS(X, T) \
	X(T, FIELD, uint64_t, id, U64) \
	X(T, FIELD, uint64_t, parent, U64) \
	X(T, TEXT, name, SYSINFO_NAME_MAX) \
	X(T, FIELD, uint32_t, threads, U32) \
	X(T, FIELD, uint32_t, perms, HEX32) \
	X(T, FIELD, uint64_t, virt_bytes, U64)          /* mapped address space */ \
	X(T, FIELD, uint64_t, resident_bytes, U64)      /* frames it holds */ \
	X(T, FIELD, uint64_t, user_cycles, U64)         /* of all its threads, live and exited */ \
	X(T, FIELD, uint64_t, kernel_cycles, U64) \
	X(T, NEST, sysinfo_ipc_counts, ipc) \
	X(T, FIELD, uint64_t, imposed_cycles, U64) \
	X(T, FIELD, uint64_t, served_cycles, U64)
RECORD_STRUCT(sysinfo_task, SYSINFO_TASK_ROWS);

/* sysinfo_thread_t.state */
#define SYSINFO_THREAD_READY 0
#define SYSINFO_THREAD_RUNNING 1
#define SYSINFO_THREAD_SLEEPING 2
#define SYSINFO_THREAD_ZOMBIE 3

#define SYSINFO_THREAD_ROWS(X, T) \
	X(T, FIELD, uint64_t, id, U64) \
	X(T, FIELD, uint64_t, task, U64)                /* 0: a kernel thread */ \
	X(T, TEXT, name, SYSINFO_NAME_MAX) \
	X(T, FIELD, uint32_t, state, STATE)             /* SYSINFO_THREAD_* */ \
	X(T, FIELD, uint32_t, priority, U32) \
	X(T, FIELD, uint32_t, cpu, U32)                 /* where it runs or last ran */ \
	X(T, FIELD, uint32_t, on_cpu, U32)              /* running right now */ \
	X(T, FIELD, uint64_t, user_cycles, U64) \
	X(T, FIELD, uint64_t, kernel_cycles, U64) \
	X(T, FIELD, uint64_t, switches, U64) \
	X(T, FIELD, uint64_t, serving_origin, U64)      /* task whose call it serves now; 0: none */ \
	X(T, FIELD, uint64_t, serving_method, U64)      /* that call's method */ \
	X(T, FIELD, uint32_t, wait_why, U32)            /* WAIT_WHY_* of its wait now (NONE: running) */ \
	X(T, MEMBER, uint32_t, reserved, ) \
	X(T, FIELD, uint64_t, wait_task, U64)           /* WAIT_WHY_IPC: the task it called; 0 otherwise */ \
	X(T, FIELD, uint64_t, wait_method, U64)         /* WAIT_WHY_IPC: the method of that call */ \
	X(T, MEMBER, uint64_t, off_cycles, [WAIT_WHY_COUNT])  /* off its CPU since it first ran, by reason */ \
	X(T, SHOW, off_runnable, off_cycles[WAIT_WHY_RUNNABLE], U64) \
	X(T, SHOW, off_sleep, off_cycles[WAIT_WHY_SLEEP], U64) \
	X(T, SHOW, off_ipc, off_cycles[WAIT_WHY_IPC], U64) \
	X(T, SHOW, off_recv, off_cycles[WAIT_WHY_RECV], U64) \
	X(T, SHOW, off_join, off_cycles[WAIT_WHY_JOIN], U64) \
	X(T, SHOW, off_child, off_cycles[WAIT_WHY_CHILD], U64) \
	X(T, SHOW, off_wait, off_cycles[WAIT_WHY_WAIT], U64)
RECORD_STRUCT(sysinfo_thread, SYSINFO_THREAD_ROWS);

#define SYSINFO_VECTOR_ROWS(X, T) \
	X(T, FIELD, uint32_t, vector, U32)              /* 0-31 exceptions, 32-255 interrupts */ \
	X(T, MEMBER, uint32_t, reserved, ) \
	X(T, TEXT, desc, SYSINFO_NAME_MAX)              /* "page fault", "timer", "IRQ 4" */ \
	X(T, FIELD, uint64_t, count, U64)               /* all CPUs */ \
	X(T, FIELD, uint64_t, cycles, U64)              /* in its handler, all CPUs */
RECORD_STRUCT(sysinfo_vector, SYSINFO_VECTOR_ROWS);

#define SYSINFO_SYSCALL_ROWS(X, T) \
	X(T, FIELD, uint32_t, nr, U32) \
	X(T, MEMBER, uint32_t, reserved, ) \
	X(T, TEXT, name, SYSINFO_NAME_MAX) \
	X(T, FIELD, uint64_t, count, U64) \
	X(T, FIELD, uint64_t, cycles, U64)              /* kernel cycles of the calling threads */
RECORD_STRUCT(sysinfo_syscall, SYSINFO_SYSCALL_ROWS);

/* Kernel memory: what a leak check compares before and after a run. */
#define SYSINFO_MEMORY_ROWS(X, T) \
	X(T, FIELD, uint64_t, frames_free, U64)         /* frames in the allocator */ \
	X(T, FIELD, uint64_t, heap_frames, U64)         /* frames the kernel heap holds (used or not) */ \
	X(T, FIELD, uint64_t, heap_live, U64)           /* bytes of live heap objects (size-class rounded) */ \
	X(T, FIELD, uint64_t, heap_cached, U64)         /* of which bounded caches any task fills (cprof's \
	                                                   kept tables of exited processes, the program \
	                                                   cache's entries and symbol copies) */ \
	X(T, FIELD, uint64_t, kstacks, U64)             /* kernel stacks in use by threads */ \
	X(T, FIELD, uint64_t, kstack_frames, U64)       /* frames mapped as kernel stacks (in use or cached) */ \
	X(T, FIELD, uint64_t, table_frames, U64)        /* page-table frames, kernel and user */
RECORD_STRUCT(sysinfo_memory, SYSINFO_MEMORY_ROWS);

/*
 * system.ipc.pairs: who served whom since boot, one entry per (origin,
 * server) pair, most cycles first. The kernel keeps SYSINFO_IPC_PAIRS
 * pairs; work of pairs that found no free entry is summed in one entry
 * with origin 0 and server 0 ("other"), listed last. Listed as origin,
 * its name, server, its name.
 */
#define SYSINFO_IPC_PAIRS 128

#define SYSINFO_IPC_PAIR_ROWS(X, T) \
	X(T, MEMBER, uint64_t, origin, )                /* task ids */ \
	X(T, MEMBER, uint64_t, server, ) \
	X(T, MEMBER, char, origin_name, [SYSINFO_NAME_MAX]) \
	X(T, MEMBER, char, server_name, [SYSINFO_NAME_MAX]) \
	X(T, SHOW, origin, origin, U64) \
	X(T, SHOW, origin_name, origin_name, TEXT) \
	X(T, SHOW, server, server, U64) \
	X(T, SHOW, server_name, server_name, TEXT) \
	X(T, FIELD, uint64_t, cycles, U64)              /* the server's cycles serving the origin's calls */ \
	X(T, FIELD, uint64_t, calls, U64)               /* calls of the origin's the server took */
RECORD_STRUCT(sysinfo_ipc_pair, SYSINFO_IPC_PAIR_ROWS);

/* The statistical profiler (abi/profile.h). */
#define SYSINFO_PROFILER_ROWS(X, T) \
	X(T, FIELD, uint32_t, state, U32)               /* PROF_STATE_IDLE, or RUNNING while sampling */ \
	X(T, FIELD, uint32_t, source, U32)              /* PROF_SRC_* while sampling */ \
	X(T, FIELD, uint32_t, hz, U32)                  /* per-CPU rate while sampling */ \
	X(T, FIELD, uint32_t, sessions, U32)            /* open sessions (any state) */ \
	X(T, FIELD, uint32_t, system_sessions, U32)     /* of which whole-system */ \
	X(T, FIELD, uint32_t, available, HEX32)         /* bit n set: source n usable here */ \
	X(T, FIELD, uint64_t, samples, U64)             /* taken since boot */ \
	X(T, FIELD, uint64_t, lost, U64)                /* dropped (full rings) since boot */ \
	X(T, FIELD, uint64_t, throttled, U64)           /* skipped by the throttle since boot */ \
	X(T, FIELD, uint64_t, memory, U64)              /* kernel bytes held for rings and sessions */ \
	X(T, FIELD, uint64_t, unrouted, U64)            /* samples and drops no session got (taken after its end) */ \
	X(T, FIELD, uint64_t, missed, U64)              /* clock-source ticks that never came since boot (abi/profile.h) */
RECORD_STRUCT(sysinfo_profiler, SYSINFO_PROFILER_ROWS);

#endif
