/*
 * ipcload's client: rounds of local_work (local_us of spinning in this
 * task) and do_calls (one call asking the server for cost_us), then one
 * line: calls made, microseconds asked and worked locally, and the
 * kernel's imposed_cycles of this task (work others did for it; the last
 * call is answered, so it is all there).
 */
#include <stats.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "ipcload.h"

#define CLIENT_CONNECT_NS 10000000000ull

/* Spin us microseconds in this task. */
static __attribute__((noinline, noclone)) void local_work(uint64_t us)
{
	__asm__ volatile("# ipcload local_work" ::: "memory");
	IPCLOAD_SPIN(us);
}

/* Make n calls of cost us each on phone; the calls that succeeded. */
static __attribute__((noinline, noclone))
uint64_t do_calls(int phone, uint64_t method, uint64_t us, unsigned n)
{
	uint64_t ok = 0;

	for (unsigned i = 0; i < n; i++) {
		if (ipc_call_sync(phone, method, us, 0, 0, 0, 0, NULL) == EOK)
			ok++;
	}
	return ok;
}

/* Sleep us microseconds (the wall mode's off-CPU part that is not a call). */
static __attribute__((noinline, noclone)) void do_sleep(uint64_t us)
{
	__asm__ volatile("# ipcload do_sleep" ::: "memory");
	sys_sleep_ns(us * 1000);
}

static uint64_t wall_now(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

/*
 * The wall mode's rounds on phone: compute 4 us, sleep 3 us, wait for a
 * WORK call of call_us; the wall time of each phase summed into ns[0..2].
 */
static uint64_t wall_rounds(int phone, unsigned us, unsigned call_us, unsigned rounds,
			    uint64_t ns[3])
{
	uint64_t calls = 0, t0 = wall_now(), t1, t2, t3;

	for (unsigned r = 0; r < rounds; r++, t0 = t3) {
		local_work(4 * (uint64_t)us);
		t1 = wall_now();
		do_sleep(3 * (uint64_t)us);
		t2 = wall_now();
		calls += do_calls(phone, IPCLOAD_M_WORK, call_us, 1);
		t3 = wall_now();
		ns[0] += t1 - t0;
		ns[1] += t2 - t1;
		ns[2] += t3 - t2;
	}
	return calls;
}

/*
 * Print this thread's off-CPU time by reason as the kernel accounted it
 * (sysinfo): what a wall-clock profile's records must add up to.
 */
static void wall_print_off(void)
{
	sysinfo_thread_t t;
	uint64_t hz;
	unsigned long long us[WAIT_WHY_COUNT];

	if (stats_thread(sys_thread_id(), &t) != EOK || stats_tsc_hz(&hz) != EOK || !hz)
		return;
	for (unsigned i = 0; i < WAIT_WHY_COUNT; i++)
		us[i] = t.off_cycles[i] / hz * 1000000 + t.off_cycles[i] % hz * 1000000 / hz;
	printf("ipcload: wall client thread %llu off-cpu us: runnable %llu, sleep %llu, ipc %llu, "
	       "other %llu\n", (unsigned long long)t.id, us[WAIT_WHY_RUNNABLE], us[WAIT_WHY_SLEEP],
	       us[WAIT_WHY_IPC], us[WAIT_WHY_RECV] + us[WAIT_WHY_JOIN] + us[WAIT_WHY_CHILD] +
	       us[WAIT_WHY_WAIT]);
}

/* The wall mode's client in this task (ipcload.h): rounds, then their phases' wall time. */
int wall_main(const char *server, unsigned us, unsigned rounds, unsigned call_us)
{
	int phone;
	errno_t rc = service_connect_wait(server, CLIENT_CONNECT_NS, &phone);

	if (rc != EOK) {
		fprintf(stderr, "ipcload: wall: cannot reach %s: %s\n", server, strerror(rc));
		return 1;
	}
	uint64_t ns[3] = { 0, 0, 0 }, c0 = ipcload_cpu_ns();
	uint64_t calls = wall_rounds(phone, us, call_us, rounds, ns);
	uint64_t cpu = ipcload_cpu_ns() - c0;
	sys_ipc_hangup(phone);
	printf("ipcload: wall client task %llu: %u rounds, %llu calls, wall us: compute %llu, "
	       "sleep %llu, wait %llu; cpu us %llu\n", (unsigned long long)sys_task_id(),
	       rounds, (unsigned long long)calls, (unsigned long long)(ns[0] / 1000),
	       (unsigned long long)(ns[1] / 1000), (unsigned long long)(ns[2] / 1000),
	       (unsigned long long)(cpu / 1000));
	wall_print_off();
	return calls == rounds ? 0 : 1;
}

int client_main(const client_args_t *a)
{
	int phone;
	uint64_t calls = 0;
	errno_t rc = service_connect_wait(a->server, CLIENT_CONNECT_NS, &phone);

	if (rc != EOK) {
		fprintf(stderr, "ipcload: client %u: cannot reach %s: %s\n", a->index,
			a->server, strerror(rc));
		return 1;
	}
	for (unsigned r = 0; r < a->rounds; r++) {
		local_work(a->local_us);
		calls += do_calls(phone, a->method, a->cost_us, 1);
	}
	sys_ipc_hangup(phone);
	printf("ipcload: client %u task %llu: %llu calls, %llu us asked, %llu us local, "
	       "imposed_cycles %llu\n", a->index, (unsigned long long)sys_task_id(),
	       (unsigned long long)calls, (unsigned long long)(calls * a->cost_us),
	       (unsigned long long)a->rounds * a->local_us,
	       (unsigned long long)ipcload_cycles(false));
	return calls == a->rounds ? 0 : 1;
}
