/*
 * ipcload's client: rounds of local_work (local_us of spinning in this
 * task) and do_calls (one call asking the server for cost_us), then one
 * line: calls made, microseconds asked and worked locally, and the
 * kernel's imposed_cycles of this task (work others did for it; the last
 * call is answered, so it is all there).
 */
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
