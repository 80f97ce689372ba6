/*
 * ipcload: the ground truth of IPC-aware profiling (issue 16). One
 * program, several roles (main.c runs the chosen mode and starts the
 * others as tasks of their own): servers whose handler spins a number of
 * microseconds per call in serve_a or serve_b (server.c), and clients
 * that compute locally (local_work) and call a server (do_calls) at
 * given costs (client.c). Spinning is counted in loop iterations (the
 * orchestrator calibrates loops per millisecond once and hands the figure
 * to every task), so a call's cost is the same number of instructions
 * however often the server is preempted.
 */
#ifndef IPCLOAD_H
#define IPCLOAD_H

#include <ipc.h>
#include <stdbool.h>
#include <stdint.h>

/* The protocol (the profilers' method table names them). */
#define IPCLOAD_M_WORK (IPC_M_USER + 1)     /* args[0] µs, in serve_a */
#define IPCLOAD_M_WORK_B (IPC_M_USER + 2)   /* args[0] µs, in serve_b */
#define IPCLOAD_M_STOP (IPC_M_USER + 3)     /* print, answer, end */

#define IPCLOAD_MAX_US 1000000u            /* one call's cost at most */

/* Steps of arithmetic per loop, identical in every spinning function. */
#define IPCLOAD_INNER 64

/* The spin loop body every named function holds (not a call of its own). */
#define IPCLOAD_SPIN(loops)						\
	do {								\
		uint64_t x_ = 1;					\
		for (uint64_t n_ = 0; n_ < (loops); n_++) {		\
			for (int i_ = 0; i_ < IPCLOAD_INNER; i_++) {	\
				x_ = x_ * 6364136223846793005ull + 1;	\
				__asm__ volatile("" : "+r"(x_));	\
			}						\
		}							\
	} while (0)

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

/* The TSC (lfence ordered). */
static inline uint64_t ipcload_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The task's imposed or served cycles from sysinfo (0 when unknown). */
uint64_t ipcload_cycles(bool served);

#endif
