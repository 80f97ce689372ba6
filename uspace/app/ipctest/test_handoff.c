/*
 * ipctest handoff: a server's work is billed to a call's client only
 * while the call is open. The handoff server's main thread takes each
 * call; for HANDOFF_SPIN a helper thread answers it and the main thread
 * spins afterwards. That spinning is the server's own work: the client's
 * imposed cycles must not grow by it. (Before the fix the taker stayed
 * "serving" the answered call until it took another one, so all of it
 * was imposed on the client.) The server runs without permissions.
 */
#include <stdio.h>

#include "ipctest.h"

#define HANDOFF_WORK_NS (50 * NS_PER_MS)
#define HANDOFF_SPIN_NS (200 * NS_PER_MS)

/* The cycles imposed on task id so far (0 if unread). */
static uint64_t imposed_of(task_id_t id)
{
	sysinfo_task_t r;
	char path[48];
	size_t got;

	snprintf(path, sizeof(path), "system.tasks.%lu", (unsigned long)id);
	if (sys_sysinfo_data(path, &r, sizeof(r), &got) != EOK || got != sizeof(r))
		return 0;
	return r.imposed_cycles;
}

/* cycles in nanoseconds at the TSC's rate hz. */
static uint64_t cycles_ns(uint64_t cycles, uint64_t hz)
{
	return hz ? (uint64_t)((__uint128_t)cycles * NS_PER_SEC / hz) : 0;
}

/* Imposed on me during one call(phone, method, ns), in ns; *rc its result. */
static uint64_t handoff_imposed(int phone, uint64_t method, uint64_t ns, uint64_t hz,
				errno_t *rc)
{
	uint64_t before = imposed_of(my_id);

	*rc = call(phone, method, ns, 0, 0, NULL);
	if (*rc == EOK && method == HANDOFF_SPIN)   /* the spin ends before the ping is taken */
		*rc = call(phone, ECHO_PING, 0, 0, 0, NULL);
	return cycles_ns(imposed_of(my_id) - before, hz);
}

void test_handoff(void)
{
	char name[IPC_NAME_MAX + 1];
	uint64_t hz = 0;
	task_id_t id;
	int phone, status;
	errno_t rc;

	make_name(name, sizeof(name), "handoff");
	sys_sysinfo_int("system.tsc_hz", &hz);
	rc = start_server("handoff", name, NULL, &id, &phone);
	if (!tap_ok(rc == EOK, "handoff: server started (%s)", err_str(rc)))
		return;
	uint64_t work = handoff_imposed(phone, HANDOFF_WORK, HANDOFF_WORK_NS, hz, &rc);
	tap_ok(rc == EOK && work >= HANDOFF_WORK_NS,
	       "handoff: %llu ms of work before the taker's answer are imposed on the "
	       "client (%llu ms; %s)", HANDOFF_WORK_NS / NS_PER_MS,
	       (unsigned long long)(work / NS_PER_MS), err_str(rc));
	uint64_t after = handoff_imposed(phone, HANDOFF_SPIN, HANDOFF_SPIN_NS, hz, &rc);
	tap_ok(rc == EOK && after * 2 < HANDOFF_SPIN_NS,
	       "handoff: %llu ms the taker spins after another thread answered are not "
	       "imposed on the client (%llu ms were; %s)", HANDOFF_SPIN_NS / NS_PER_MS,
	       (unsigned long long)(after / NS_PER_MS), err_str(rc));
	stop_server(id, phone, &status);
}
