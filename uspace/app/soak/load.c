/*
 * soak: the load. Three loops run as threads of soak until their
 * deadline: `ipctest stress` over and over (10,000 calls a round, every
 * one answered exactly once or the round fails), a spawn/kill storm
 * (short sleeps that end by themselves and long ones killed after a few
 * milliseconds), and `vfuzz -w` rounds without permissions (the fuzzer's
 * worker: its own leak check would see the rest of the load, soak's
 * covers it). The memory toucher (-T) is a task of its own so that its
 * regions count against its own limit.
 */
#include <abi/limits.h>
#include <stdio.h>
#include <string.h>

#include "soak.h"

#define SOAK_FUZZ_CALLS 500          /* per vfuzz round */
#define SOAK_TOUCH_SLACK 64          /* regions left below LIMIT_REGIONS */
#define SOAK_TOUCH_BIG (4u << 20)    /* one bigger region per round */
#define PAGE 4096u

static uint64_t soak_now(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

/* xorshift64: the storm's delays. */
static uint64_t soak_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

errno_t soak_spawn(char *const *argv, uint32_t perms, task_id_t *id)
{
	char path[128];

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	return sys_spawn(path, (const char *const *)argv, perms, id);
}

int soak_run(char *const *argv, uint32_t perms)
{
	task_id_t id, got;
	int status = 0;

	if (soak_spawn(argv, perms, &id) != EOK || sys_wait(id, &status, 0, &got) != EOK)
		return -1;
	return status;
}

/* soak_run as a round of loop l: l->child names the child while it is waited for. */
static int soak_run_in(soak_loop_t *l, char *const *argv, uint32_t perms)
{
	task_id_t id, got;
	int status = 0;

	if (soak_spawn(argv, perms, &id) != EOK)
		return -1;
	l->child = id;
	errno_t rc = sys_wait(id, &status, 0, &got);
	l->child = 0;
	return rc == EOK ? status : -1;
}

/* The end of loop l's thread: done for soak's join (soak_join). */
static long soak_loop_end(soak_loop_t *l)
{
	__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
	return 0;
}

/* Count one round of l that ended with status st (0: passed). */
static void soak_round(soak_loop_t *l, int st)
{
	l->rounds++;
	if (st != 0) {
		l->failures++;
		l->last_status = st;
		printf("soak: %s round %llu failed (status %d)\n", l->name,
		       (unsigned long long)l->rounds, st);
	}
}

/* The loops run one round, then more until l->deadline. */
long soak_ipc_loop(void *arg)
{
	soak_loop_t *l = arg;
	char *argv[] = { "ipctest", "stress", NULL };

	do {
		int st = soak_run_in(l, argv, soak_perms);
		soak_round(l, st);
		if (st == 0)
			l->units += 10000;   /* ipctest stress: STRESS_CALLS, all answered */
	} while (soak_now() < l->deadline);
	return soak_loop_end(l);
}

/* One long sleep killed after 0-15 ms; the status it was reaped with. */
static int soak_kill_one(soak_loop_t *l)
{
	char *argv[] = { "sleep", "30", NULL };
	task_id_t id, got;
	int status = 0;

	if (soak_spawn(argv, 0, &id) != EOK)
		return -1;
	l->units++;
	sys_sleep_ns(soak_rand(&l->seed) % 15000000ull);
	errno_t rc = sys_kill(id);
	l->child = id;
	errno_t wrc = sys_wait(id, &status, 0, &got);
	l->child = 0;
	if (wrc != EOK || rc != EOK)
		return -1;
	l->killed++;
	return 0;
}

long soak_storm_loop(void *arg)
{
	soak_loop_t *l = arg;
	char hold[24];
	char *argv[] = { "sleep", "0.01", NULL };

	snprintf(hold, sizeof(hold), "%llu", (unsigned long long)l->hold_s);
	if (l->hold_s)
		argv[1] = hold;              /* -H: the first round's sleep outlives the end */
	do {
		soak_round(l, soak_kill_one(l));
		int st = soak_run_in(l, argv, 0);
		argv[1] = "0.01";
		if (st >= 0)
			l->units++;
		soak_round(l, st);
	} while (soak_now() < l->deadline);
	return soak_loop_end(l);
}

long soak_fuzz_loop(void *arg)
{
	soak_loop_t *l = arg;
	char seed[24], calls[24], threads[8];
	char *argv[] = { "vfuzz", "-w", "-s", seed, "-n", calls, "-t", threads, NULL };

	snprintf(calls, sizeof(calls), "%u", SOAK_FUZZ_CALLS);
	snprintf(threads, sizeof(threads), "%u", l->cpus);
	do {
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)l->seed++);
		int st = soak_run_in(l, argv, 0);
		soak_round(l, st);
		if (st == 0)
			l->units += SOAK_FUZZ_CALLS;
	} while (soak_now() < l->deadline);
	return soak_loop_end(l);
}

/* ---------------------------------------------------------------- toucher */

/* Regions this task holds now (sysinfo system.limits.<id>). */
static uint32_t soak_my_regions(void)
{
	char path[48];
	sysinfo_limits_t r = { 0 };

	snprintf(path, sizeof(path), "system.limits.%llu", (unsigned long long)sys_task_id());
	return leak_si(path, &r, sizeof(r)) == sizeof(r) ? r.regions : LIMIT_REGIONS;
}

/* Map n one-page regions and a big one, write each page, check, unmap. */
static bool soak_touch_round(void **at, unsigned n, uint64_t round)
{
	void *big = NULL;
	unsigned mapped = 0;
	bool ok = sys_map(NULL, SOAK_TOUCH_BIG, PROT_READ | PROT_WRITE, &big) == EOK;

	for (; ok && mapped < n; mapped++) {
		if (sys_map(NULL, PAGE, PROT_READ | PROT_WRITE, &at[mapped]) != EOK)
			ok = false;
		else
			*(volatile uint64_t *)at[mapped] = round * 100000 + mapped;
	}
	for (unsigned p = 0; ok && p < SOAK_TOUCH_BIG / PAGE; p++)
		((volatile uint64_t *)big)[p * PAGE / 8] = round + p;
	for (unsigned i = 0; ok && i < mapped; i++)
		ok = *(volatile uint64_t *)at[i] == round * 100000 + i;
	for (unsigned p = 0; ok && p < SOAK_TOUCH_BIG / PAGE; p++)
		ok = ((volatile uint64_t *)big)[p * PAGE / 8] == round + p;
	for (unsigned i = 0; i < mapped; i++)
		ok &= sys_unmap(at[i], PAGE) == EOK;
	if (big)
		ok &= sys_unmap(big, SOAK_TOUCH_BIG) == EOK;
	return ok;
}

int soak_toucher(uint64_t seconds)
{
	static void *at[LIMIT_REGIONS];
	uint64_t deadline = soak_now() + seconds * 1000000000ull, round = 0, pages = 0;
	uint32_t used = soak_my_regions();
	unsigned n = used + SOAK_TOUCH_SLACK < LIMIT_REGIONS ?
		     LIMIT_REGIONS - used - SOAK_TOUCH_SLACK : 0;

	do {
		if (!soak_touch_round(at, n, ++round)) {
			printf("soak: toucher round %llu failed\n", (unsigned long long)round);
			return 1;
		}
		pages += n + SOAK_TOUCH_BIG / PAGE;
	} while (soak_now() < deadline);
	if (seconds)                 /* not in the warm-up */
		printf("soak: toucher: %llu rounds of %u regions (limit %u), %llu pages touched\n",
		       (unsigned long long)round, used + n + 1, LIMIT_REGIONS,
		       (unsigned long long)pages);
	return 0;
}
