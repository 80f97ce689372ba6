/*
 * The leak check of vfuzz and soak: a snapshot of the kernel's memory
 * counters (sysinfo system.memory) with the task and thread counts, taken
 * before and after a run; the two must agree exactly once the kernel has
 * reaped what the run left (threads are reaped lazily, so the checks
 * retry 100 ms apart). Lines are printed as "PROG: WHAT: ..." (the test
 * harnesses parse them).
 */
#ifndef _LEAKCHECK_H
#define _LEAKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/sysinfo.h>

#define LEAK_RES_TASKS 16          /* tasks whose resident frames a snapshot names */

/* What must be back at its baseline after a run. */
typedef struct leak_snap {
	sysinfo_memory_t mem;
	uint64_t tasks, threads;
	uint64_t frames;             /* free + heap + kstacks + tables + task-resident */
	uint64_t resident;           /* frames of every task */
	unsigned nres;               /* tasks named below (the first LEAK_RES_TASKS) */
	struct {
		uint64_t id, frames;
		char name[SYSINFO_NAME_MAX];
	} res[LEAK_RES_TASKS];
} leak_snap_t;

/* Bytes of sysinfo data node path read into buf (0 on error or overflow). */
size_t leak_si(const char *path, void *buf, size_t size);
/* The leak-check counters now into *s; EOK, ENOENT or ENOMEM (a list unread). */
errno_t leak_snapshot(leak_snap_t *s);
/* Whether a and b agree on everything the leak check compares. */
bool leak_same(const leak_snap_t *a, const leak_snap_t *b);
/*
 * A snapshot into *s once two taken 100 ms apart agree (at most tries + 1
 * of them); each later one that does not agree is printed as
 * "PROG: settling: ..." if prog is not NULL. EOK, EAGAIN if they never
 * agreed (*s is the last one), or the error of a snapshot.
 */
errno_t leak_settle(leak_snap_t *s, unsigned tries, const char *prog);
/*
 * Wait, taking a snapshot every 100 ms (at most tries), until at most n
 * tasks exist: what a run left behind has ended. If it had to wait and
 * prog is not NULL, "PROG: waiting for N tasks the run left" first and
 * "PROG: waited MS ms for them" after.
 */
void leak_wait_tasks(uint64_t n, unsigned tries, const char *prog);
/* Print a snapshot as one "PROG: WHAT: frames ..." line. */
void leak_print(const char *prog, const char *what, const leak_snap_t *s);
/* Print every task and thread (the first 256 and 512) as "PROG: ..." lines. */
void leak_print_tasks(const char *prog);
/*
 * Where the free frames a user sees (sysinfo system.physmem) went between
 * two snapshots, one "PROG: free frames: ..." line: the kernel heap's
 * frames (its bounded caches), the kernel stacks' (live ones and the
 * cache of freed ones, at most 64), page tables, each task's resident
 * frames that changed, and what none of them explains ("unexplained",
 * 0 whenever leak_same holds). The unexplained frames.
 */
int64_t leak_explain(const char *prog, const leak_snap_t *before,
		     const leak_snap_t *after);
/*
 * The check after a run: snapshots into *after 100 ms apart (at most
 * tries) until one agrees with *before; prints it as "PROG: after: ...",
 * where the user's free frames went (leak_explain), and every task and
 * thread if none agreed. Whether one agreed.
 */
bool leak_check(const char *prog, const leak_snap_t *before, leak_snap_t *after,
		unsigned tries);

#endif
