/*
 * The sysinfo tree's node readers (kernel/sysinfo/nodes.c) and the buffer
 * they fill (the tree and syscalls: kernel/sysinfo/sysinfo.c).
 */
#ifndef KERNEL_SYSINFO_H
#define KERNEL_SYSINFO_H

#include <kernel/types.h>

/* A growing kernel buffer for one read's data. */
typedef struct si_buf {
	char *data;
	size_t len, cap;
} si_buf_t;

/* Append len bytes to b (growing it); EOK or ENOMEM. */
errno_t si_put(si_buf_t *b, const void *data, size_t len);
/* Make room for cap bytes in all, so later puts need not allocate. */
errno_t si_reserve(si_buf_t *b, size_t cap);

/* Integer nodes. */
uint64_t si_tsc_hz(void);
uint64_t si_uptime(void);
uint64_t si_cycles(void);
uint64_t si_acct_entry(void);
uint64_t si_platform(void);     /* platform_sampling() */

/* Data nodes: append the value to b (arg unused). */
errno_t si_kernel_version(si_buf_t *b, uint64_t arg);
errno_t si_kernel_build(si_buf_t *b, uint64_t arg);
errno_t si_boot_cmdline(si_buf_t *b, uint64_t arg);
errno_t si_cpus(si_buf_t *b, uint64_t arg);
errno_t si_physmem(si_buf_t *b, uint64_t arg);
errno_t si_load(si_buf_t *b, uint64_t arg);
errno_t si_tasks(si_buf_t *b, uint64_t arg);
errno_t si_threads(si_buf_t *b, uint64_t arg);
errno_t si_vectors(si_buf_t *b, uint64_t arg);
errno_t si_syscalls(si_buf_t *b, uint64_t arg);
/* system.ipc.pairs: the (origin, server) totals (kernel/origin.h). */
errno_t si_ipc_pairs(si_buf_t *b, uint64_t arg);
errno_t si_profiler(si_buf_t *b, uint64_t arg);
/* The sources (prof_source_desc_t each, in the kernel's order). */
errno_t si_prof_sources(si_buf_t *b, uint64_t arg);
errno_t si_memory(si_buf_t *b, uint64_t arg);

/* Tables: their children's names, and one entry (ENOENT if none). */
errno_t si_task_ids(si_buf_t *b);
errno_t si_task(si_buf_t *b, uint64_t id);
errno_t si_thread_ids(si_buf_t *b);
errno_t si_thread(si_buf_t *b, uint64_t id);
errno_t si_vector_ids(si_buf_t *b);
errno_t si_vector(si_buf_t *b, uint64_t id);
/* system.limits (kernel/sysinfo/limits.c): every task's, or task id's. */
errno_t si_limits(si_buf_t *b, uint64_t arg);
errno_t si_limit(si_buf_t *b, uint64_t id);

#endif
