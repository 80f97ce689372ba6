/*
 * ipcload: the ground truth of IPC-aware profiling (issue 16). One
 * program, several roles (main.c runs the chosen mode and starts the
 * others as tasks of their own): servers whose handler spins a number of
 * microseconds per call in serve_a or serve_b (server.c), and clients
 * that compute locally (local_work) and call a server (do_calls) at
 * given costs (client.c). Spinning is measured in the spinning thread's
 * CPU time (the kernel's accounting, what imposed_cycles and time-based
 * samples measure too), so a call costs its server the same CPU time
 * however often the server is preempted; the orchestrator calibrates the
 * loops per millisecond once (for the chunk between clock reads) and
 * hands the figure to every task.
 */
#ifndef IPCLOAD_H
#define IPCLOAD_H

#include <ipc.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <tsc.h>
#include <vernier.h>

/* The protocol (the profilers' method table names them). */
#define IPCLOAD_M_WORK (IPC_M_USER + 1)     /* args[0] µs, in serve_a */
#define IPCLOAD_M_WORK_B (IPC_M_USER + 2)   /* args[0] µs, in serve_b */
#define IPCLOAD_M_STOP (IPC_M_USER + 3)     /* print, answer, end */

#define IPCLOAD_MAX_US 1000000u            /* one call's cost at most */

/* Steps of arithmetic per loop, identical in every spinning function. */
#define IPCLOAD_INNER 64
#define IPCLOAD_CHUNK_US 20                /* spun between clock reads */

/*
 * The spin loop body every named function holds (not a call of its own):
 * loops of arithmetic, IPCLOAD_CHUNK_US at a time, until the calling
 * thread's CPU time (the kernel's cycle accounting, CLOCK_THREAD_CPUTIME_ID)
 * has grown by us microseconds.
 */
#define IPCLOAD_SPIN(us)						\
	do {								\
		uint64_t end_ = ipcload_cpu_ns() + (uint64_t)(us) * 1000;\
		uint64_t chunk_ = ipcload_loops(IPCLOAD_CHUNK_US) + 1, x_ = 1;\
		while (ipcload_cpu_ns() < end_) {			\
			for (uint64_t n_ = 0; n_ < chunk_; n_++) {	\
				for (int i_ = 0; i_ < IPCLOAD_INNER; i_++) {\
					x_ = x_ * 6364136223846793005ull + 1;\
					__asm__ volatile("" : "+r"(x_));\
				}					\
			}						\
		}							\
	} while (0)

/* The calling thread's CPU time in ns. */
static inline uint64_t ipcload_cpu_ns(void)
{
	return sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Loops per millisecond (from -k), set before any spinning. */
extern uint64_t ipcload_loops_ms;

/* Loops that take us microseconds. */
static inline uint64_t ipcload_loops(uint64_t us)
{
	return us * ipcload_loops_ms / 1000;
}

/*
 * Serve name (registered with the naming service) until IPCLOAD_M_STOP;
 * next: the server that WORK calls with WORK_B after spinning (chain),
 * or NULL. Returns the exit status.
 */
int server_main(const char *name, const char *next);

/* What one client does (client_main). */
typedef struct client_args {
	const char *server;             /* service name */
	unsigned index;                 /* 1, 2: in what it prints */
	uint64_t method;                /* IPCLOAD_M_WORK or _WORK_B */
	unsigned cost_us;               /* per call */
	unsigned local_us;              /* local work per round */
	unsigned rounds;                /* each: local_work, one call */
} client_args_t;

/* Run a client; returns the exit status. */
int client_main(const client_args_t *a);

/*
 * The wall mode's client, in the calling task: rounds of local_work (4 *
 * us of CPU time), do_sleep (3 * us asleep) and do_calls (one WORK call
 * of call_us to server: its answer awaited), then one line with the wall
 * time each phase took in all (the ground truth a wall-clock profile is
 * held to: what the rounds really took, not just what they asked) and
 * the CPU time. Returns the exit status.
 */
int wall_main(const char *server, unsigned us, unsigned rounds, unsigned call_us);

/* The task's imposed or served cycles from sysinfo (0 when unknown). */
uint64_t ipcload_cycles(bool served);
/* This task's served cycles and its own (user + kernel, all its threads), read at once. */
void ipcload_task_cycles(uint64_t *served, uint64_t *own);

#endif
