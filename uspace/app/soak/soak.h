/* soak: everything at once for a while, then the invariants (main.c). */
#ifndef SOAK_H
#define SOAK_H

#include <abi/sysinfo.h>
#include <leakcheck.h>
#include <stdbool.h>
#include <stdint.h>
#include <vernier.h>

#define SOAK_MAX_CPUS 64

/* The counters of one load loop (a thread of soak), read after it ends. */
typedef struct soak_loop {
	const char *name;
	uint64_t deadline;           /* CLOCK_MONOTONIC ns: start no new round after */
	uint64_t seed;
	unsigned cpus;
	uint64_t rounds, failures;   /* rounds run; rounds that did not pass */
	uint64_t units, killed;      /* loop-specific: calls, spawns; kills */
	uint64_t hold_s;             /* storm: its first short sleep lasts this long (-H) */
	int last_status;             /* of the last failed round */
	volatile task_id_t child;    /* the child it waits for now, 0 if none */
	volatile bool done;          /* the loop has returned */
} soak_loop_t;

extern uint32_t soak_perms;      /* ours without PERM_SYSTEM, for the children */

/* snap.c */
/* The profiler's totals since boot: samples, ring drops, unrouted. */
void soak_prof_totals(uint64_t t[3]);
/* Number of whole-system profiling sessions open now. */
unsigned soak_prof_system_sessions(void);
/* Print each CPU's irqoff/NMI maxima as summary lines; the largest irqoff. */
uint64_t soak_print_latency(void);

/* load.c */
/* Spawn /bin/argv[0] with perms; EOK and its id, or the error. */
errno_t soak_spawn(char *const *argv, uint32_t perms, task_id_t *id);
/* Spawn and wait; the exit status, or -1 if it could not start. */
int soak_run(char *const *argv, uint32_t perms);
/* Thread bodies (arg: a soak_loop_t): ipctest stress, spawn/kill, vfuzz. */
long soak_ipc_loop(void *arg);
long soak_storm_loop(void *arg);
long soak_fuzz_loop(void *arg);
/* -T: touch memory near the region limit until deadline; exit status. */
int soak_toucher(uint64_t seconds);

#endif
