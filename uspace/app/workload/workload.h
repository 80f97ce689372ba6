/*
 * workload: spends its time in named functions in proportion to weights
 * (ground truth for profilers). See main.c for the command line.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <tsc.h>

#define WL_MAX_THREADS 64
#define WL_MAX_WEIGHT 1000

/*
 * Runs one kind of work until the TSC reaches deadline; phone is the
 * calling thread's kcopy phone (-1 if none). Returns iterations done.
 */
typedef uint64_t (*wl_fn_t)(uint64_t deadline, int phone);

/* One NAME:WEIGHT of the command line and what all threads did for it. */
typedef struct {
	const char *name;
	wl_fn_t fn;
	unsigned weight;
	uint64_t iterations;   /* summed over threads (atomically) */
	uint64_t cycles;       /* TSC cycles spent, summed over threads */
} wl_share_t;

/* The work function of NAME, or NULL if there is no such name. */
wl_fn_t work_find(const char *name);
/* Does fn need the kcopy server (kcopy_start before running it)? */
bool work_needs_kcopy(wl_fn_t fn);

/*
 * Start the IPC_M_DATA_WRITE server for kcopy: `servers` threads of this
 * task serving a unique service name. EOK or an error.
 */
int kcopy_start(unsigned servers);
/* Connect a phone to the server into *phone; EOK or an error. */
int kcopy_connect(int *phone);
/* Stop and join the server threads (after every client is done). */
void kcopy_stop(void);
/* One 64 KiB data write on phone; EOK or an error (remembered). */
int kcopy_once(int phone);
/* Did a kcopy data write fail? */
bool kcopy_failed(void);

#endif
