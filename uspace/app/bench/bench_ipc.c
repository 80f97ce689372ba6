/*
 * bench: IPC figures. A server task (bench itself, started as `bench
 * --ipc-server NAME CPU`, pinned to CPU) registers NAME with the naming
 * service and answers through ipc_server_loop(); the client is bench's
 * main thread, pinned to CPU 0, calling through <ipc.h>:
 *
 *   ipc.roundtrip.samecpu   cycles per ipc_call_sync() of an empty method
 *                           (call, switch, answer, switch), server on CPU 0
 *   ipc.roundtrip.crosscpu  the same with the server on CPU 1 (skipped,
 *                           with a "# ..." line, on one CPU)
 *   ipc.roundtrip.samecpu.thread
 *                           the same-CPU round trip with the server a
 *                           thread of bench itself: no address-space
 *                           switch (the difference is its cost)
 *   ipc.datawrite           MB/s (10^6 bytes) of 64 KiB IPC_M_DATA_WRITEs,
 *                           server on CPU 0
 *   ipc.write64, ipc.write64k
 *                           cycles per IPC_M_DATA_WRITE round trip of 64
 *                           bytes / 64 KiB, server on CPU 0 (the slow
 *                           path: data, beside the short calls above)
 *
 * Without a naming service the figures are skipped.
 */
#include <ipc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>

#include "bench.h"

#define IPC_RT_CALLS 1000
#define IPC_DW_CALLS 16
#define IPC_W64_CALLS 200
#define BENCH_M_NOP (IPC_M_USER + 1)
#define BENCH_M_STOP (IPC_M_USER + 2)
#define BENCH_M_SPIN (IPC_M_USER + 3)     /* spin args[0] iterations, then answer */
#define CONNECT_TIMEOUT_NS 10000000000ull

static int ipc_phone = -1;
static task_id_t ipc_server;           /* the server task; 0: it is */
static thread_id_t ipc_server_thread;  /* this thread of bench */
static unsigned ipc_thread_servers;    /* names used by thread servers */
static uint64_t tsc_hz;
static uint8_t dw_buf[IPC_DATA_MAX];

static unsigned cpus_and_hz(void)
{
	system_stats_t st;

	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&st, 0, 0, 0, 0, 0) < 0)
		return 0;
	tsc_hz = st.tsc_hz;
	return st.cpus_online;
}

/* Does phone 0 reach a naming service? (It answers unknown methods.) */
static bool have_ns(void)
{
	return ipc_call_sync(IPC_NS_PHONE, BENCH_M_NOP, 0, 0, 0, 0, 0, NULL) != ENOENT;
}

/* Start the server pinned to server_cpu and connect to it; 0, 1 or -1. */
static int ipc_setup(unsigned server_cpu)
{
	char name[IPC_NAME_MAX + 1], cpu[12];
	const char *const argv[] = { "bench", BENCH_IPC_SERVER, name, cpu, NULL };

	if (!have_ns()) {
		printf("# ipc: no naming service; IPC figures skipped\n");
		return 1;
	}
	snprintf(name, sizeof(name), "bench%lu.ipc", (unsigned long)sys_task_id());
	snprintf(cpu, sizeof(cpu), "%u", server_cpu);
	if (sys_set_affinity(0, 1) != EOK)
		return -1;
	errno_t rc = sys_spawn("/bin/bench", argv, 0, &ipc_server);
	if (rc == EOK && (rc = service_connect_wait(name, CONNECT_TIMEOUT_NS,
						    &ipc_phone)) != EOK) {
		sys_kill(ipc_server);
		sys_wait(ipc_server, NULL, 0, NULL);
	}
	if (rc != EOK) {
		printf("bench: ipc server: error %d\n", rc);
		sys_set_affinity(0, ~0ull);
	}
	return rc == EOK ? 0 : -1;
}

int ipc_rt_same_setup(void)
{
	return cpus_and_hz() ? ipc_setup(0) : -1;
}

int ipc_rt_cross_setup(void)
{
	unsigned cpus = cpus_and_hz();

	if (cpus == 1) {
		printf("# ipc.roundtrip.crosscpu skipped: only 1 CPU online\n");
		return 1;
	}
	return cpus ? ipc_setup(1) : -1;
}

static int server_handler(void *ctx, const ipc_event_t *ev);

/* The server as a thread of bench, on CPU 0. */
static long server_thread(void *arg)
{
	if (sys_set_affinity(0, 1) != EOK)
		return 1;
	return ipc_server_loop(server_handler, NULL) == EOK ? 0 : 1;
}

int ipc_rt_thread_setup(void)
{
	char name[IPC_NAME_MAX + 1];

	if (!cpus_and_hz())
		return -1;
	if (!have_ns()) {
		printf("# ipc: no naming service; IPC figures skipped\n");
		return 1;
	}
	/* Our registrations last as long as bench: a new name each time. */
	snprintf(name, sizeof(name), "bench%lu.thread%u",
		 (unsigned long)sys_task_id(), ipc_thread_servers++);
	ipc_server = 0;
	if (sys_set_affinity(0, 1) != EOK || service_register(name) != EOK ||
	    thread_start(server_thread, NULL, &ipc_server_thread) != EOK)
		return -1;
	if (service_connect(name, &ipc_phone) != EOK) {
		printf("bench: cannot connect to the server thread\n");
		return -1;               /* the thread stays blocked; bench ends */
	}
	return 0;
}

void ipc_serve_spin(unsigned long n)
{
	ipc_call_sync(ipc_phone, BENCH_M_SPIN, n, 0, 0, 0, 0, NULL);
}

int ipc_datawrite_setup(void)
{
	if (!cpus_and_hz() || !tsc_hz)
		return -1;
	memset(dw_buf, 0x5a, sizeof(dw_buf));
	return ipc_setup(0);
}

void ipc_teardown(void)
{
	ipc_call_sync(ipc_phone, BENCH_M_STOP, 0, 0, 0, 0, 0, NULL);
	sys_ipc_hangup(ipc_phone);
	if (ipc_server)
		sys_wait(ipc_server, NULL, 0, NULL);
	else
		thread_join(ipc_server_thread, NULL);
	ipc_phone = -1;
	sys_set_affinity(0, ~0ull);
}

long run_ipc_roundtrip(void)
{
	uint64_t t0 = tsc_read();

	for (int i = 0; i < IPC_RT_CALLS; i++)
		if (ipc_call_sync(ipc_phone, BENCH_M_NOP, 0, 0, 0, 0, 0, NULL) != EOK)
			return -1;
	return (long)((tsc_read() - t0) / IPC_RT_CALLS);
}

long run_ipc_datawrite(void)
{
	uint64_t t0 = tsc_read();

	for (int i = 0; i < IPC_DW_CALLS; i++)
		if (ipc_data_write(ipc_phone, dw_buf, sizeof(dw_buf)) != EOK)
			return -1;
	uint64_t cycles = tsc_read() - t0;
	if (!cycles)
		return -1;
	return (long)((uint64_t)IPC_DW_CALLS * sizeof(dw_buf) * tsc_hz / cycles /
		      1000000);
}

/* Cycles per DATA_WRITE round trip of len bytes, calls of them. */
static long run_ipc_write(size_t len, int calls)
{
	uint64_t t0 = tsc_read();

	for (int i = 0; i < calls; i++)
		if (ipc_data_write(ipc_phone, dw_buf, len) != EOK)
			return -1;
	return (long)((tsc_read() - t0) / (uint64_t)calls);
}

long run_ipc_write64(void)
{
	return run_ipc_write(64, IPC_W64_CALLS);
}

long run_ipc_write64k(void)
{
	return run_ipc_write(sizeof(dw_buf), IPC_DW_CALLS);
}

/* --------------------------------------------------------------- server */

/* The server's work for BENCH_M_SPIN: a sampled thread serving a call. */
static __attribute__((noinline)) void server_spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

static int server_handler(void *ctx, const ipc_event_t *ev)
{
	if (ev->type != IPC_EV_CALL)
		return 0;
	switch (ev->msg.method) {
	case BENCH_M_SPIN:
		server_spin(ev->msg.args[0]);
		ipc_answer_last(ev->callid, EOK, 0, 0, 0, 0, 0);
		return 0;
	case IPC_M_DATA_WRITE:
		ipc_data_write_accept(ev, dw_buf, sizeof(dw_buf), NULL);
		return 0;
	case BENCH_M_STOP:
		ipc_answer_0(ev->callid, EOK);
		return 1;
	default:                           /* CONNECT_ME_TO, BENCH_M_NOP */
		ipc_answer_last(ev->callid, EOK, 0, 0, 0, 0, 0);
		return 0;
	}
}

int bench_ipc_server(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	if (sys_set_affinity(0, 1ull << atoi(argv[1])) != EOK ||
	    service_register(argv[0]) != EOK)
		return 3;
	return ipc_server_loop(server_handler, NULL) == EOK ? 0 : 1;
}
