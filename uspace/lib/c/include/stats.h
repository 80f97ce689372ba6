/*
 * The monitoring library: the kernel's sysinfo tree (abi/sysinfo.h) read
 * into malloc'ed snapshots, and the arithmetic and formatting that the
 * monitoring tools share: tasks, stats and sysinfo use all of it, top its
 * readers and the share and load formats (top's narrower sizes and times,
 * and its arithmetic, are its own). The arithmetic and formatting
 * (stats_calc.c) are pure and also built on the host.
 *
 * Readers return EOK or an errno_t: ENOENT for a path the kernel does not
 * have, EINVAL for a node of another type, EIO when a record is not the
 * size this library was built for, ENOMEM when out of memory. Arrays and
 * buffers they return are the caller's to free().
 *
 * The helpers use integer arithmetic only. Percentages are in tenths of a
 * percent ("permille"): 1000 is all of it. Formatting helpers write a
 * NUL-terminated string of at most size bytes (truncated if needed) and
 * return buf.
 */
#ifndef _STATS_H
#define _STATS_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/sysinfo.h>

/* ---------------------------------------------------------------- reading */

/*
 * Read data node path in one consistent snapshot into a new buffer *buf of
 * *len bytes (*buf is never NULL on success, even for 0 bytes). A buffer
 * that turns out too small is replaced by one of the size the kernel
 * reports and the read retried, a few times if the data keeps growing.
 */
errno_t stats_read(const char *path, void **buf, size_t *len);
/*
 * The names of path's children (last components, each ending in '\0', in
 * the kernel's order) into a new buffer *names of *len bytes; walk them
 * with stats_key_next.
 */
errno_t stats_keys(const char *path, char **names, size_t *len);
/*
 * The name after cur in a stats_keys buffer (cur NULL: the first one);
 * NULL after the last.
 */
const char *stats_key_next(const char *names, size_t len, const char *cur);

/* Arrays of records: a new array in *out, its length in *n. */
errno_t stats_cpus(sysinfo_cpu_t **out, size_t *n);
errno_t stats_tasks(sysinfo_task_t **out, size_t *n);
errno_t stats_threads(sysinfo_thread_t **out, size_t *n);
errno_t stats_vectors(sysinfo_vector_t **out, size_t *n);
errno_t stats_syscalls(sysinfo_syscall_t **out, size_t *n);

/* One record into *out: task or thread id (ENOENT: there is none). */
errno_t stats_task(uint64_t id, sysinfo_task_t *out);
errno_t stats_thread(uint64_t id, sysinfo_thread_t *out);
errno_t stats_load(sysinfo_load_t *out);
errno_t stats_physmem(sysinfo_physmem_t *out);

/* Integer nodes: system.uptime (nanoseconds) and system.tsc_hz. */
errno_t stats_uptime_ns(uint64_t *ns);
errno_t stats_tsc_hz(uint64_t *hz);

/* ---------------------------------------------------------------- arithmetic */

/* Shares of a CPU's elapsed cycles, in tenths of a percent. */
typedef struct stats_cpu_pct {
	unsigned busy;
	unsigned idle;
	unsigned irq;
} stats_cpu_pct_t;

/*
 * cycles in units of 1/unit seconds (unit 1000: milliseconds) at hz
 * cycles a second, rounded down; 0 if hz is 0. Exact for hz * unit up to
 * 2^64.
 */
uint64_t stats_cycles_scale(uint64_t cycles, uint64_t hz, uint64_t unit);
/* cycles as milliseconds at hz (rounded down; 0 if hz is 0). */
uint64_t stats_cycles_ms(uint64_t cycles, uint64_t hz);
/*
 * part / total in tenths of a percent, rounded to the nearest (0 if total
 * is 0; more than 1000 if part > total).
 */
unsigned stats_permille(uint64_t part, uint64_t total);
/*
 * How cur's cycles since prev divide into busy, idle and interrupt time
 * (prev NULL: since boot). All zero if no cycles passed.
 */
void stats_cpu_percent(const sysinfo_cpu_t *prev, const sysinfo_cpu_t *cur,
		       stats_cpu_pct_t *pct);

/* ---------------------------------------------------------------- formatting */

/* Buffer sizes that every value fits. */
#define STATS_LOAD_BUF 24
#define STATS_BYTES_BUF 24
#define STATS_UPTIME_BUF 48
#define STATS_SECONDS_BUF 32
#define STATS_PERMILLE_BUF 16

/* A fixed-point load (SYSINFO_LOAD_SHIFT) to two decimals: "0.42". */
char *stats_fmt_load(char *buf, size_t size, uint64_t load);
/*
 * A byte count: "512B" under 1 KiB, else one decimal and K, M, G or T
 * (powers of 1024): "1.5K", "12.0M".
 */
char *stats_fmt_bytes(char *buf, size_t size, uint64_t bytes);
/* Seconds as "D day(s), HH:MM:SS": "0 days, 00:05:12", "1 day, 02:03:04". */
char *stats_fmt_uptime(char *buf, size_t size, uint64_t seconds);
/* cycles at hz as seconds with two decimals, rounded down: "12.34". */
char *stats_fmt_seconds(char *buf, size_t size, uint64_t cycles, uint64_t hz);
/* Tenths of a percent as "12.3". */
char *stats_fmt_permille(char *buf, size_t size, unsigned permille);
/* A SYSINFO_THREAD_* state's name ("ready", "running" ...; "?" if unknown). */
const char *stats_thread_state(uint32_t state);

/*
 * What thread t waits for (abi/wait.h), as tasks and top show it: "-" on
 * its CPU, "ipc SERVER.METHOD" for an IPC wait when callee (the called
 * task's name) is given, else the reason's name ("sleep", "ipc").
 * Returns buf.
 */
char *stats_fmt_wait(char *buf, size_t size, const sysinfo_thread_t *t, const char *callee);

#endif
