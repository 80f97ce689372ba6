/*
 * The terminal protocol (<console.h>): writes are answered when their
 * bytes have left the serial port, reads wait in a queue (readq.c) until
 * input is there for the foreground (fg.c), DATA_WRITEs wait while the TX
 * ring is full. SET_FG and SET_MODE are for the foreground only.
 */
#include <console.h>
#include <string.h>
#include <vernier.h>

#include "console.h"

#define MAX_CONNS 64
#define MAX_WAITS 64
#define MAX_DEFERRED 64
#define WRITE_CHUNK (16 * 1024)

typedef struct conn {
	uint64_t id;               /* 0: free */
	uint64_t until;            /* its bytes are out once uart_sent() reaches it */
} conn_t;

typedef struct write_wait {
	ipc_callid_t call;
	uint64_t until;            /* answer once uart_sent() reaches it */
	size_t n;
} write_wait_t;

typedef struct evq {
	ipc_event_t ev[MAX_DEFERRED];
	unsigned n;
} evq_t;

static conn_t conns[MAX_CONNS];
static write_wait_t waits[MAX_WAITS];
static unsigned nwaits;
static evq_t deferred;
static char wbuf[WRITE_CHUNK];

static conn_t *conn_find(uint64_t id, bool create)
{
	conn_t *free_slot = NULL;

	for (int i = 0; i < MAX_CONNS; i++) {
		if (conns[i].id == id)
			return &conns[i];
		if (!conns[i].id && !free_slot)
			free_slot = &conns[i];
	}
	if (create && free_slot)
		*free_slot = (conn_t){ .id = id };
	return create ? free_slot : NULL;
}

static bool evq_push(evq_t *q, const ipc_event_t *ev)
{
	if (q->n >= MAX_DEFERRED)
		return false;
	q->ev[q->n++] = *ev;
	return true;
}

static void evq_pop(evq_t *q)
{
	memmove(q->ev, q->ev + 1, --q->n * sizeof(q->ev[0]));
}

/* Take a DATA_WRITE's bytes into the output; false if there is no room. */
static bool data_write(const ipc_event_t *ev)
{
	size_t len = 0;

	klog_sync();
	pthread_mutex_lock(&out_lock);
	size_t room = uart_room();
	if (room == 0) {
		pthread_mutex_unlock(&out_lock);
		return false;
	}
	size_t max = room < sizeof(wbuf) ? room : sizeof(wbuf);
	if (ipc_data_write_accept(ev, wbuf, max, &len) != EOK)
		len = 0;
	out_write(wbuf, len);
	uint64_t until = uart_queued();
	pthread_mutex_unlock(&out_lock);
	conn_t *c = conn_find(ev->conn, true);
	if (c)
		c->until = until;
	return true;
}

static void on_data_write(const ipc_event_t *ev)
{
	if (deferred.n == 0 && data_write(ev))
		return;
	if (!evq_push(&deferred, ev))
		ipc_answer_0(ev->callid, ELIMIT);
}

/* CONSOLE_M_WRITE: answer once the phone's bytes have been sent. */
static void on_write(const ipc_event_t *ev)
{
	conn_t *c = conn_find(ev->conn, false);
	uint64_t n = ev->msg.args[0];

	if (!c || c->until <= uart_sent() || nwaits >= MAX_WAITS)
		ipc_answer(ev->callid, EOK, n, 0, 0, 0, 0);
	else
		waits[nwaits++] = (write_wait_t){ ev->callid, c->until, n };
}

/* Answer EHANGUP to the events of q from connection conn and drop them. */
static void evq_drop_conn(evq_t *q, uint64_t conn)
{
	unsigned k = 0;

	for (unsigned i = 0; i < q->n; i++) {
		if (q->ev[i].conn == conn)
			ipc_answer_0(q->ev[i].callid, EHANGUP);
		else
			q->ev[k++] = q->ev[i];
	}
	q->n = k;
}

/*
 * A client hung up (or died): its queued reads and deferred writes are
 * answered now, or their calls (and the dead caller's thread) would stay
 * held until someone typed a key.
 */
static void on_hangup(const ipc_event_t *ev)
{
	conn_t *c = conn_find(ev->msg.args[0], false);

	readq_drop_conn(ev->msg.args[0]);
	evq_drop_conn(&deferred, ev->msg.args[0]);
	if (c)
		*c = (conn_t){ 0 };
}

/* The caller's permissions (none if the kernel cannot tell). */
static uint32_t caller_perms(const ipc_event_t *ev)
{
	uint32_t perms = 0;

	return sys_ipc_caller_perms(ev->callid, &perms) == EOK ? perms : 0;
}

/* CONSOLE_M_SET_MODE: for the foreground only. */
static void on_set_mode(const ipc_event_t *ev)
{
	uint64_t a = ev->msg.args[0];

	if (a != CONSOLE_MODE_COOKED && a != CONSOLE_MODE_RAW)
		ipc_answer_0(ev->callid, EINVAL);
	else if (!fg_controls(ev->sender))
		ipc_answer_0(ev->callid, EPERM);
	else
		ipc_answer(ev->callid, EOK, tty_set_mode((unsigned)a), 0, 0, 0, 0);
}

/* CONSOLE_M_SET_FG(task, how): the rules are fg.c's. */
static void on_set_fg(const ipc_event_t *ev)
{
	task_id_t old;
	errno_t rc = fg_set(ev->sender, caller_perms(ev), ev->msg.args[0],
			    ev->msg.args[1] > ~0u ? ~0u : (unsigned)ev->msg.args[1], &old);

	ipc_answer(ev->callid, rc, old, 0, 0, 0, 0);
}

/* CONSOLE_M_STATUS(task): queued reads (all, task's, its tree's), the holder. */
static void on_status(const ipc_event_t *ev)
{
	task_id_t task = ev->msg.args[0] ? ev->msg.args[0] : ev->sender;
	task_id_t root, member;
	unsigned all, mine, tree;

	readq_usage(task, &all, &mine, &tree, &root);
	ipc_answer(ev->callid, EOK, all, mine, tree, root, fg_status(&member));
}

/* Calls answered at once. */
static void on_simple(const ipc_event_t *ev)
{
	unsigned rows, cols;

	switch (ev->msg.method) {
	case IPC_M_CONNECT_ME_TO:
		ipc_answer_0(ev->callid, EOK);
		break;
	case CONSOLE_M_SET_MODE: on_set_mode(ev); break;
	case CONSOLE_M_GET_SIZE:
		screen_size(&rows, &cols);
		ipc_answer(ev->callid, EOK, rows, cols, 0, 0, 0);
		break;
	case CONSOLE_M_SET_FG: on_set_fg(ev); break;
	case CONSOLE_M_STATUS: on_status(ev); break;
	default:
		ipc_answer_0(ev->callid, ENOTSUP);
		break;
	}
}

void tty_event(const ipc_event_t *ev)
{
	if (ev->type == IPC_EV_NOTIFY) {
		if (ev->msg.method == IPC_M_PHONE_HUNGUP)
			on_hangup(ev);
		return;
	}
	switch (ev->msg.method) {
	case NS_M_WATCH: break;           /* never answered */
	case CONSOLE_M_WRITE: on_write(ev); break;
	case IPC_M_DATA_WRITE: on_data_write(ev); break;
	case IPC_M_DATA_READ:
		if (readq_push(ev) != EOK)
			ipc_answer_0(ev->callid, ELIMIT);
		break;
	default: on_simple(ev); break;
	}
}

/* Answer the writes whose bytes have all been sent. */
static void answer_writes(void)
{
	uint64_t sent = uart_sent();
	unsigned k = 0;

	for (unsigned i = 0; i < nwaits; i++) {
		if (waits[i].until <= sent)
			ipc_answer(waits[i].call, EOK, waits[i].n, 0, 0, 0, 0);
		else
			waits[k++] = waits[i];
	}
	nwaits = k;
}

void tty_progress(void)
{
	while (deferred.n > 0 && data_write(&deferred.ev[0]))
		evq_pop(&deferred);
	answer_writes();
	readq_serve();
}

bool tty_busy(void)
{
	return nwaits > 0 || deferred.n > 0 || uart_queued() != uart_sent();
}
