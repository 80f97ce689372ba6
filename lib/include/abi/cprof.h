/*
 * The call profiler (MINIX 3 thesis chapter 3; README "Call profiling"),
 * shared by the kernel, user space and host tools.
 *
 * Code built with GCC's -finstrument-functions (make CPROFILE=1) calls
 * __cyg_profile_func_enter/exit around every function. The hooks keep
 * call-path tables: a call path is a node of the call tree, a slot keyed
 * by (caller's path, function address), so the hot path never touches
 * strings; names are resolved when the report is made. Each slot counts
 * the calls on that path and the cycles spent in the function's own body
 * (deeper calls and the hooks' own cost taken out with two TSC reads per
 * hook, as the thesis does), both wall-clock and on-CPU (time the thread
 * spent switched out excluded, from the scheduler's accounting).
 *
 * A table is made of parts, each written by one writer only: one per CPU
 * in the kernel, one per thread in a process. A slot id is
 * (part id << CPROF_ID_SHIFT) | index; a slot's parent may be in another
 * part of the same table (a kernel thread that moved CPUs). Readers merge
 * a table's parts by path.
 *
 * SYS_CPROF (op, a1, a2, a3):
 *   CPROF_OP_REGISTER (cprof_ctl_t *ctl) -> 0. The calling process's
 *     control block (its parts, the reset generation, the clock page).
 *     Once per task: EBUSY after that; EINVAL for a bad magic/version.
 *   CPROF_OP_THREAD () -> index of the calling thread's clock in the page
 *     at ctl->clock (mapped read-only on first use). ENOENT if the task
 *     has not registered, ENOSPC when CPROF_CLOCKS threads have one.
 *   CPROF_OP_GET (void *buf, size_t size, size_t *needed) -> bytes: every
 *     registered table (the kernel's first, if the kernel is instrumented),
 *     then those of processes that exited since the last RESET (the
 *     newest first; 4 MiB of them at most), as a file (cprof_file_hdr_t
 *     ...). ENOMEM and *needed when size is too small: nothing partial.
 *     EFAULT when size > 0 and buf is not a user address.
 *     Needs PERM_PROFILE.
 *   CPROF_OP_RESET () -> number of tables told to clear or dropped. Each
 *     live one clears at its next hook (a blocked process: when it runs
 *     again); exited processes' tables are dropped. PERM_PROFILE.
 */
#ifndef ABI_CPROF_H
#define ABI_CPROF_H

#include <stdint.h>

#define CPROF_OP_REGISTER 1
#define CPROF_OP_THREAD 2
#define CPROF_OP_GET 3
#define CPROF_OP_RESET 4

#define CPROF_VERSION 1
#define CPROF_CTL_MAGIC 0x43505243u   /* "CRPC" */
#define CPROF_PART_MAGIC 0x54525043u  /* "CPRT" */
#define CPROF_FILE_MAGIC "VCPROF01"

#define CPROF_ID_SHIFT 20
#define CPROF_INDEX_MASK ((1u << CPROF_ID_SHIFT) - 1)
#define CPROF_ROOT 0xffffffffu        /* parent of a top-level path */
#define CPROF_NONE 0xfffffffeu        /* no slot (not recorded) */
#define CPROF_HASH_SIZE 4096          /* buckets per part */
#define CPROF_PARTS_MAX 64            /* parts (threads) of a process */
#define CPROF_CLOCKS 256              /* clocks in a process's clock page */
#define CPROF_NAME_MAX 32
#define CPROF_PATH_MAX 128

/* Error flags (cprof_part_hdr_t.err): what was lost, counted below. */
#define CPROF_ERR_PATH 0x1   /* an exit did not match the entry on top: path resynchronised */
#define CPROF_ERR_STACK 0x2  /* call stack full: deeper calls not recorded */
#define CPROF_ERR_TABLE 0x4  /* table full: new paths not recorded */

/* One call path: calls and self cycles of fn called from path parent. */
typedef struct cprof_slot {
	uint64_t fn;            /* function address */
	uint32_t parent;        /* slot id of the caller's path, or CPROF_ROOT */
	uint32_t next;          /* hash chain: index + 1 in the part, 0 ends (internal) */
	uint64_t calls;
	uint64_t wall;          /* self cycles, wall clock (blocking included) */
	uint64_t oncpu;         /* self cycles while the thread was on a CPU */
} cprof_slot_t;

/* A part's header, in memory and in the file. */
typedef struct cprof_part_hdr {
	uint32_t magic;         /* CPROF_PART_MAGIC */
	uint32_t id;            /* part id (CPU, or the process's thread record) */
	uint32_t nslots;        /* capacity */
	uint32_t used;          /* slots in use: slot[0 .. used) */
	uint32_t gen;           /* reset generation it was last cleared for */
	uint32_t err;           /* CPROF_ERR_* seen since the last reset */
	uint64_t lost_stack;    /* calls not recorded: stack full */
	uint64_t lost_table;    /* calls not recorded: table full */
	uint64_t mismatch;      /* exits without their entry, frames dropped */
	uint64_t thread;        /* thread id of the writer (0: a CPU's part) */
} cprof_part_hdr_t;

/* A part in memory: the header, hash buckets, then nslots slots. */
typedef struct cprof_part {
	cprof_part_hdr_t h;
	uint32_t hash[CPROF_HASH_SIZE];   /* first slot index + 1; 0 empty */
	cprof_slot_t slot[];
} cprof_part_t;

/* Bytes of a part with n slots. */
#define CPROF_PART_SIZE(n) (sizeof(cprof_part_t) + (uint64_t)(n) * sizeof(cprof_slot_t))

/* A process's control block (its memory; the kernel reads and writes it). */
typedef struct cprof_ctl {
	uint32_t magic;         /* CPROF_CTL_MAGIC */
	uint32_t version;       /* CPROF_VERSION */
	volatile uint32_t reset_gen;  /* the kernel bumps it to ask for a reset */
	volatile uint32_t nparts;     /* parts[0 .. nparts) are valid */
	uint64_t clock;               /* the clock page (set by CPROF_OP_THREAD) */
	uint64_t parts[CPROF_PARTS_MAX];  /* user addresses of cprof_part_t */
} cprof_ctl_t;

/*
 * A thread's clock: the cycles it has spent switched out since it got
 * the clock. On-CPU time now = TSC - off. The kernel writes it when it
 * switches the thread in: seq is odd during the write (retry while odd or
 * changed). The thread itself may just load off: off is one aligned word,
 * and it is only written while the thread is switched out (libc's hooks
 * do so).
 */
typedef struct cprof_clock {
	volatile uint32_t seq;
	uint32_t thread;        /* thread id (0: free) */
	volatile uint64_t off;
} cprof_clock_t;

/*
 * The file CPROF_OP_GET produces and `cprof get` writes:
 *   cprof_file_hdr_t, then ntables times:
 *     cprof_table_hdr_t, then nparts times:
 *       cprof_part_hdr_t, then used cprof_slot_t.
 * Little-endian, as the machine. Everything is 8-byte aligned.
 */
typedef struct cprof_file_hdr {
	char magic[8];          /* CPROF_FILE_MAGIC */
	uint32_t version;       /* CPROF_VERSION */
	uint32_t ntables;
	uint64_t tsc_hz;        /* cycles per second, for milliseconds */
	uint64_t taken;         /* TSC when it was copied */
	uint32_t cpus;
	uint32_t dropped;       /* exited processes' tables dropped since the last RESET */
} cprof_file_hdr_t;

typedef struct cprof_table_hdr {
	uint64_t task;          /* task id; 0 is the kernel */
	uint32_t nparts;
	uint32_t reset_gen;     /* resets asked of it so far */
	char name[CPROF_NAME_MAX];
	char path[CPROF_PATH_MAX];  /* its ELF file ("/boot/kernel" for the kernel) */
	uint64_t text_start, text_end;
	uint64_t hash;          /* FNV-1a 64 of the ELF file, 0 unknown */
} cprof_table_hdr_t;

#endif
