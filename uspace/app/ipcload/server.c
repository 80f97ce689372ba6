/*
 * ipcload's server: registers its name, answers CONNECT_ME_TO, and for
 * each WORK (WORK_B) call spins args[0] microseconds in serve_a (serve_b)
 * before answering; with a next server (the chain's S1) a WORK call then
 * also calls the next one with WORK_B for the same cost while it is still
 * being served. STOP prints what was served, per calling task and in
 * total with the kernel's served_cycles, answers and ends the server.
 */
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "ipcload.h"

#define SRV_SENDERS 8                   /* calling tasks tracked */

typedef struct srv_sender {
	task_id_t task;
	uint64_t calls, us, tsc;        /* tsc: handler time (wall) */
	uint64_t cpu_ns;                /* handler time (this thread's CPU) */
} srv_sender_t;

typedef struct srv {
	const char *name;
	int next;                       /* phone to the next server, -1: none */
	srv_sender_t senders[SRV_SENDERS];
	uint64_t calls, us, failed;
} srv_t;

/* Spin us microseconds: the work of WORK calls. */
static __attribute__((noinline, noclone)) void serve_a(uint64_t us)
{
	__asm__ volatile("# ipcload serve_a" ::: "memory");
	IPCLOAD_SPIN(us);
}

/* Spin us microseconds: the work of WORK_B calls. */
static __attribute__((noinline, noclone)) void serve_b(uint64_t us)
{
	__asm__ volatile("# ipcload serve_b" ::: "memory");
	IPCLOAD_SPIN(us);
}

/* The entry of a calling task (the last one is shared when full). */
static srv_sender_t *srv_sender(srv_t *s, task_id_t task)
{
	for (unsigned i = 0; i < SRV_SENDERS; i++) {
		if (s->senders[i].task == task || s->senders[i].task == 0) {
			s->senders[i].task = task;
			return &s->senders[i];
		}
	}
	return &s->senders[SRV_SENDERS - 1];
}

/* One WORK or WORK_B call: spin (and call the next server), answer. */
static void srv_work(srv_t *s, const ipc_event_t *ev)
{
	uint64_t us = ev->msg.args[0], t0 = tsc_read(), c0 = ipcload_cpu_ns();
	errno_t rc = EOK;

	if (us > IPCLOAD_MAX_US) {
		ipc_answer_0(ev->callid, EINVAL);
		return;
	}
	if (ev->msg.method == IPCLOAD_M_WORK)
		serve_a(us);
	else
		serve_b(us);
	if (s->next >= 0 && ev->msg.method == IPCLOAD_M_WORK)
		rc = ipc_call_sync(s->next, IPCLOAD_M_WORK_B, us, 0, 0, 0, 0, NULL);
	if (rc != EOK)
		s->failed++;
	srv_sender_t *d = srv_sender(s, ev->sender);
	d->calls++;
	d->us += us;
	d->tsc += tsc_read() - t0;
	d->cpu_ns += ipcload_cpu_ns() - c0;
	s->calls++;
	s->us += us;
	ipc_answer_0(ev->callid, rc);
}

/*
 * STOP: print what was served (before answering: the caller waits). The
 * served cycles and the task's own are read first: printing is work done
 * for STOP's caller.
 */
static void srv_report(const srv_t *s)
{
	uint64_t served, own;

	ipcload_task_cycles(&served, &own);
	for (unsigned i = 0; i < SRV_SENDERS && s->senders[i].task; i++) {
		const srv_sender_t *d = &s->senders[i];
		printf("ipcload: server %s task %llu for task %llu: %llu calls, %llu us, "
		       "%llu tsc, %llu cpu_ns\n", s->name, (unsigned long long)sys_task_id(),
		       (unsigned long long)d->task, (unsigned long long)d->calls,
		       (unsigned long long)d->us, (unsigned long long)d->tsc,
		       (unsigned long long)d->cpu_ns);
	}
	printf("ipcload: server %s task %llu: %llu calls, %llu us served, "
	       "served_cycles %llu, %llu failed, cycles %llu\n", s->name,
	       (unsigned long long)sys_task_id(), (unsigned long long)s->calls,
	       (unsigned long long)s->us, (unsigned long long)served,
	       (unsigned long long)s->failed, (unsigned long long)own);
}

static int srv_handler(void *ctx, const ipc_event_t *ev)
{
	srv_t *s = ctx;

	if (ev->type != IPC_EV_CALL)
		return 0;
	switch (ev->msg.method) {
	case IPCLOAD_M_WORK:
	case IPCLOAD_M_WORK_B:
		srv_work(s, ev);
		return 0;
	case IPCLOAD_M_STOP:
		srv_report(s);
		ipc_answer_0(ev->callid, EOK);
		return 1;
	case IPC_M_CONNECT_ME_TO:
		ipc_answer_0(ev->callid, EOK);
		return 0;
	default:
		ipc_answer_0(ev->callid, ENOTSUP);
		return 0;
	}
}

int server_main(const char *name, const char *next)
{
	static srv_t s;
	errno_t rc;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.next = -1;
	if (next && (rc = service_connect_wait(next, 10000000000ull, &s.next)) != EOK) {
		fprintf(stderr, "ipcload: server %s: cannot reach %s: %s\n", name, next,
			strerror(rc));
		return 1;
	}
	rc = service_register(name);
	if (rc == EOK)
		rc = ipc_server_loop(srv_handler, &s);
	if (rc != EOK) {
		fprintf(stderr, "ipcload: server %s: %s\n", name, strerror(rc));
		return 1;
	}
	if (s.next >= 0)
		sys_ipc_hangup(s.next);
	return 0;
}
