/*
 * The call profiler (README "Call profiling", <abi/cprof.h>): programs
 * built with -finstrument-functions keep call-path tables through libc's
 * hooks (src/cprof_rt.c), which announce the table to the kernel on the
 * first call; `cprof get` copies every announced table into a file.
 *
 * Memory of an instrumented process: per thread, a part of
 * CPROF_RT_SLOTS slots (about 656 KiB of address space, touched pages
 * only: demand-zero) and a call stack of CPROF_RT_FRAMES frames (14 KiB).
 * At most CPROF_PARTS_MAX threads are profiled; hooks on other stacks
 * (threads not started by thread_start, or past the limit) do nothing.
 */
#ifndef _CPROF_H
#define _CPROF_H

#include <stddef.h>
#include <stdint.h>
#include <abi/cprof.h>
#include <abi/errno.h>

#define CPROF_RT_SLOTS 16384       /* call paths per thread */
#define CPROF_RT_FRAMES 256        /* call depth recorded per thread */

/*
 * Copy every announced table (the file format of <abi/cprof.h>) into buf.
 * On EOK *needed is the bytes copied; on ENOMEM (buf too small: nothing
 * copied) the bytes needed now (tables grow: ask with some slack). EPERM
 * without PERM_PROFILE; ENOSYS with a kernel that has no call profiler.
 */
errno_t cprof_get(void *buf, size_t size, size_t *needed);

/*
 * Ask every announced table to start over (each clears at its next
 * hook); the number of tables asked goes to *ntables (may be NULL).
 * EPERM without PERM_PROFILE.
 */
errno_t cprof_reset(int *ntables);

/*
 * The hooks -finstrument-functions code calls on entry to and exit from
 * fn (site: the call site). Declared for tests, which may call them.
 */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* The calling process's own profiling state (cprof_rt_info). */
typedef struct cprof_rt_info {
	errno_t announce;          /* EOK: announced; EAGAIN: no hook ran yet; else why not */
	unsigned threads;          /* threads with a part */
	uint64_t unknown;          /* hooks on no known stack (not recorded) */
} cprof_rt_info_t;

/* Fill *info with the hooks' state in this process. Any thread. */
void cprof_rt_info(cprof_rt_info_t *info);

#endif
