/*
 * ipctest killrace: a kill that lands while a thread is going to sleep
 * still ends it. Each round starts a `selfcall` server (its threads call
 * themselves over IPC, so they enter and leave waits all the time, with
 * nothing outside the task to wake them), kills it after a random 0-4 ms
 * and waits up to KILLRACE_WAIT_NS for it to end. A thread that checked
 * for the kill just before it became visible on its wait queue, and was
 * then missed by the kill's wake-up, sleeps for ever: its task never ends.
 */
#include <stdio.h>

#include "ipctest.h"

#define KILLRACE_ROUNDS 100
#define KILLRACE_WAIT_NS (3 * NS_PER_SEC)
#define KILLRACE_POLL_NS (1 * NS_PER_MS)

/* xorshift64: the kill delays (seeded from the clock: each run differs). */
static uint64_t killrace_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Wait up to KILLRACE_WAIT_NS for child id to end; true if it did. */
static bool killrace_reaped(task_id_t id, uint64_t *ms)
{
	uint64_t t0 = now_ns();
	task_id_t got = 0;
	int status;

	while (now_ns() - t0 < KILLRACE_WAIT_NS) {
		errno_t rc = sys_wait(id, &status, WAIT_NOHANG, &got);
		if (rc == EOK)
			break;
		if (rc != EAGAIN)            /* not ours, say: not this test's to judge */
			return true;
		sys_sleep_ns(KILLRACE_POLL_NS);
	}
	*ms = (now_ns() - t0) / NS_PER_MS;
	return got == id;
}

/* One round: start, kill after a random delay, reap. False: it did not end. */
static bool killrace_round(int round, uint64_t *seed, uint64_t *worst_ms, int *started)
{
	char name[IPC_NAME_MAX + 1], tag[16], threads[8];
	task_id_t id;
	int phone;
	uint64_t ms = 0;

	snprintf(tag, sizeof(tag), "kr%d", round);
	snprintf(threads, sizeof(threads), "%u", ncpus < 4 ? ncpus : 4);
	make_name(name, sizeof(name), tag);
	if (start_server("selfcall", name, threads, &id, &phone) != EOK)
		return true;                     /* not started: nothing to miss */
	(*started)++;
	sys_sleep_ns(killrace_rand(seed) % (4 * NS_PER_MS));
	sys_kill(id);
	bool ended = killrace_reaped(id, &ms);
	sys_ipc_hangup(phone);
	if (ms > *worst_ms)
		*worst_ms = ms;
	if (!ended)
		tap_diag("killrace: round %d: task %llu still there %llu ms after its kill",
			 round, (unsigned long long)id, (unsigned long long)ms);
	return ended;
}

void test_killrace(void)
{
	uint64_t seed = now_ns() | 1, worst = 0;
	int lost = 0, started = 0;

	for (int r = 0; r < KILLRACE_ROUNDS && lost == 0; r++)
		lost += !killrace_round(r, &seed, &worst, &started);
	tap_ok(started == KILLRACE_ROUNDS || lost,
	       "killrace: %d self-calling servers started of %d", started, KILLRACE_ROUNDS);
	tap_ok(lost == 0,
	       "killrace: every one killed mid-traffic ended within %llu ms (%d did not; "
	       "slowest %llu ms)", KILLRACE_WAIT_NS / NS_PER_MS, lost,
	       (unsigned long long)worst);
}
