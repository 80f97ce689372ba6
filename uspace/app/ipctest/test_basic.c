/*
 * ipctest ping: call/answer round trips, error results, the system calls'
 * own errors, synchronous calls from several threads at once.
 * ipctest forward: a forwarder server passes calls on to the echo server;
 * answers reach the original caller with its sender id intact.
 * ipctest hangup: hanging up a phone notifies the server with the
 * connection id and the task.
 */
#include <string.h>
#include <thread.h>

#include "ipctest.h"

#define PINGS 200
#define SYNC_THREADS 4
#define SYNC_CALLS 200
#define HANGUP_POLL_NS (5 * NS_PER_SEC)

/* ------------------------------------------------------------ ping */

static bool ping_ok(int phone, uint64_t base)
{
	ipc_msg_t a;

	if (call(phone, ECHO_PING, base, base * 3, ~base, &a) != EOK)
		return false;
	return a.args[0] == base + 1 && a.args[1] == base * 3 + 2 &&
	       a.args[2] == ~base + 3 && a.args[3] == 4 && a.args[4] == 5;
}

/* Synchronous pings from one of several threads (arg: its index). */
static long sync_pinger(void *arg)
{
	int phone = echo_phone();
	long bad = 0;

	for (uint64_t i = 0; i < SYNC_CALLS; i++) {
		ipc_msg_t a;
		uint64_t v = ((uint64_t)(long)arg << 32) | i;
		errno_t rc = ipc_call_sync(phone, ECHO_PING, v, 0, 0, 0, 0, &a);
		bad += rc != EOK || a.args[0] != v + 1;
	}
	return bad;
}

static void ping_threads(void)
{
	thread_id_t tid[SYNC_THREADS];
	long bad = 0;
	int started = 0;

	for (long i = 0; i < SYNC_THREADS; i++)
		if (thread_start(sync_pinger, (void *)i, &tid[started]) == EOK)
			started++;
	for (int i = 0; i < started; i++) {
		long v = 1;
		thread_join(tid[i], &v);
		bad += v;
	}
	tap_ok(started == SYNC_THREADS && bad == 0,
	       "ping: %d threads x %d ipc_call_sync each got their own answers "
	       "(%ld wrong)", started, SYNC_CALLS, bad);
}

/* The IPC system calls' own errors. */
static void ping_errors(void)
{
	ipc_msg_t m = { .method = ECHO_PING };
	ipc_event_t ev;
	errno_t e1 = sys_ipc_call(IPC_MAX_PHONES - 1, &m, NULL);
	errno_t e2 = sys_ipc_call(IPC_MAX_PHONES, &m, NULL);
	errno_t e3 = sys_ipc_call(echo_phone(), BAD_ADDR, NULL);

	tap_ok(e1 == ENOENT && e2 == EINVAL && e3 == EFAULT,
	       "ping: call on an unconnected phone ENOENT (%s), on phone %d EINVAL "
	       "(%s), with a bad message EFAULT (%s)", err_str(e1), IPC_MAX_PHONES,
	       err_str(e2), err_str(e3));
	m.method = IPC_M_PHONE_HUNGUP;
	e1 = sys_ipc_call(echo_phone(), &m, NULL);
	e2 = sys_ipc_answer(12345, &m, NULL);
	e3 = sys_ipc_hangup(IPC_MAX_PHONES - 1);
	tap_ok(e1 == EINVAL && e2 == ENOENT && e3 == ENOENT,
	       "ping: sending IPC_M_PHONE_HUNGUP EINVAL (%s), answering an unknown "
	       "call ENOENT (%s), hanging up a free phone ENOENT (%s)",
	       err_str(e1), err_str(e2), err_str(e3));
	e1 = sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS | IPC_WAIT_NONBLOCK, 0);
	uint64_t t0 = now_ns();
	e2 = sys_ipc_wait(&ev, 20 * NS_PER_MS, IPC_WAIT_CALLS, 0);
	uint64_t dt = now_ns() - t0;
	e3 = sys_ipc_wait(&ev, 0, 7, 0);
	tap_ok(e1 == EAGAIN && e2 == ETIMEOUT && dt >= 20 * NS_PER_MS && e3 == EINVAL,
	       "ping: empty box: non-blocking wait EAGAIN (%s), 20 ms wait ETIMEOUT "
	       "(%s) after %llu ms, bad flags EINVAL (%s)", err_str(e1), err_str(e2),
	       (unsigned long long)(dt / NS_PER_MS), err_str(e3));
}

void test_ping(void)
{
	int phone = echo_phone();

	if (!tap_ok(phone >= 0, "ping: echo server started and connected through "
		    "the naming service (phone %d)", phone))
		return;
	ipc_msg_t a;
	errno_t rc = call(phone, ECHO_PING, 10, 20, 30, &a);
	tap_ok(rc == EOK && a.method == EOK && a.args[0] == 11 && a.args[1] == 22 &&
	       a.args[2] == 33 && a.args[3] == 4 && a.args[4] == 5,
	       "ping: one call round-trips its values (%s; %llu %llu %llu %llu %llu)",
	       err_str(rc), (unsigned long long)a.args[0],
	       (unsigned long long)a.args[1], (unsigned long long)a.args[2],
	       (unsigned long long)a.args[3], (unsigned long long)a.args[4]);
	int bad = 0;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < PINGS; i++)
		bad += !ping_ok(phone, 0x9e3779b97f4a7c15ull * (i + 1));
	uint64_t dt = now_ns() - t0;
	tap_ok(bad == 0, "ping: %d calls with varied values all round-trip "
	       "(%d wrong, %llu us each)", PINGS, bad,
	       (unsigned long long)(dt / PINGS / 1000));
	rc = call(phone, ECHO_FAIL, ENOSPC, 0, 0, &a);
	errno_t rc2 = call(phone, IPC_M_USER + 999, 0, 0, 0, NULL);
	tap_ok(rc == ENOSPC && a.method == ENOSPC && rc2 == ENOTSUP,
	       "ping: the server's result reaches the caller (ENOSPC: %s; unknown "
	       "method ENOTSUP: %s)", err_str(rc), err_str(rc2));
	ping_errors();
	ping_threads();
}

/* ------------------------------------------------------------ forward */

void test_forward(void)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t fwd;
	int phone, status;
	ipc_msg_t a;

	if (!tap_ok(echo_phone() >= 0, "forward: echo server running"))
		return;
	make_name(name, sizeof(name), "fwd");
	errno_t rc = start_server("forward", name, echo_name(), &fwd, &phone);
	if (!tap_ok(rc == EOK, "forward: forwarder started and connected (%s)",
		    err_str(rc)))
		return;
	rc = call(phone, ECHO_WHO, 5, 0, 0, &a);
	tap_ok(rc == EOK && a.args[0] == my_id && a.args[2] == echo_task() &&
	       a.args[4] == ECHO_WHO,
	       "forward: a call through the forwarder is answered by the echo server "
	       "(task %llu, expected %llu) and keeps the sender (%llu, we are %lu) (%s)",
	       (unsigned long long)a.args[2], (unsigned long long)echo_task(),
	       (unsigned long long)a.args[0], (unsigned long)my_id, err_str(rc));
	tap_ok(rc == EOK && a.args[2] != fwd && a.args[3] == 5,
	       "forward: not answered by the forwarder (task %lu), arguments kept",
	       (unsigned long)fwd);
	int bad = 0;
	for (uint64_t i = 0; i < PINGS; i++)
		bad += !ping_ok(phone, i * 7919);
	tap_ok(bad == 0, "forward: %d forwarded pings round-trip (%d wrong)",
	       PINGS, bad);
	rc = call(phone, FWD_REWRITE, 1, 0, 0, &a);
	tap_ok(rc == EOK && a.args[4] == ECHO_WHO && a.args[3] == FWD_ARG0 &&
	       a.args[0] == my_id,
	       "forward: forwarding with a new method and arg0 (seen: method %llu, "
	       "arg0 %#llx, sender %llu) (%s)", (unsigned long long)a.args[4],
	       (unsigned long long)a.args[3], (unsigned long long)a.args[0],
	       err_str(rc));
	rc = kill_wait(fwd, &status);
	tap_ok(rc == EOK, "forward: forwarder killed and reaped (%s)", err_str(rc));
	rc = call(phone, ECHO_PING, 1, 0, 0, &a);
	tap_ok(rc == EHANGUP, "forward: a call to the dead forwarder is answered "
	       "EHANGUP (%s)", err_str(rc));
	sys_ipc_hangup(phone);
}

/* ------------------------------------------------------------ hangup */

/* Poll the echo server until it reports the hang-up of conn by us. */
static bool echo_saw_hangup(uint64_t conn)
{
	uint64_t deadline = now_ns() + HANGUP_POLL_NS;
	ipc_msg_t a;

	do {
		if (call(echo_phone(), ECHO_HUNGUPS, conn, my_id, 0, &a) == EOK &&
		    a.args[0] == 1)
			return true;
		sys_sleep_ns(NS_PER_MS);
	} while (now_ns() < deadline);
	return false;
}

void test_hangup(void)
{
	int phone;
	ipc_msg_t a, b;

	if (!tap_ok(echo_phone() >= 0, "hangup: echo server running"))
		return;
	errno_t rc = service_connect(echo_name(), &phone);
	errno_t rc2 = call(phone, ECHO_WHO, 0, 0, 0, &a);
	errno_t rc3 = call(echo_phone(), ECHO_WHO, 0, 0, 0, &b);
	if (!tap_ok(rc == EOK && rc2 == EOK && rc3 == EOK && a.args[0] == my_id &&
		    a.args[1] != b.args[1],
		    "hangup: a second phone to the echo server has its own connection "
		    "id (%llu vs %llu) (%s, %s)", (unsigned long long)a.args[1],
		    (unsigned long long)b.args[1], err_str(rc), err_str(rc2)))
		return;
	uint64_t conn = a.args[1];
	rc = sys_ipc_hangup(phone);
	tap_ok(rc == EOK, "hangup: hanging up the phone (%s)", err_str(rc));
	tap_ok(echo_saw_hangup(conn), "hangup: the server was notified with that "
	       "connection id and our task id");
	rc = call(echo_phone(), ECHO_HUNGUPS, b.args[1], my_id, 0, &a);
	tap_ok(rc == EOK && a.args[0] == 0, "hangup: no hang-up reported for the "
	       "connection still up (%s, %llu)", err_str(rc),
	       (unsigned long long)a.args[0]);
	rc = call(phone, ECHO_PING, 0, 0, 0, NULL);
	rc2 = call(echo_phone(), ECHO_PING, 0, 0, 0, NULL);
	tap_ok(rc == ENOENT && rc2 == EOK, "hangup: the hung-up phone is free "
	       "(ENOENT: %s), the other still works (%s)", err_str(rc), err_str(rc2));
}

/* SYS_IPC_ANSWER_WAIT's own errors: nothing answered, no wait. */
static void answer_wait_errors(void)
{
	ipc_msg_t m = { .method = EOK };
	ipc_event_t ev;
	bool a1 = true, a2 = true;
	errno_t e1 = sys_ipc_answer_wait(12345, &m, &ev, 0, IPC_WAIT_CALLS, &a1);
	errno_t e2 = sys_ipc_answer_wait(12345, &m, &ev, 0, 7, &a2);

	tap_ok(e1 == ENOENT && !a1 && e2 == EINVAL && !a2,
	       "answerwait: an unknown call ENOENT (%s), bad flags EINVAL (%s), "
	       "neither answered", err_str(e1), err_str(e2));
}

/*
 * Another task's call cannot be answered with it: our own call to a sink
 * (which never answers) stays unanswered, ENOENT to us.
 */
static void answer_wait_foreign(void)
{
	char name[IPC_NAME_MAX + 1];
	ipc_msg_t m = { .method = EOK, .args = { 99 } };
	ipc_event_t ev;
	ipc_callid_t id = 0;
	task_id_t sink;
	int phone, status;
	bool answered = true;

	make_name(name, sizeof(name), "awsink");
	errno_t rc = start_server("sink", name, NULL, &sink, &phone);
	if (rc == EOK)
		rc = ipc_call_async(phone, ECHO_PING, 1, 0, 0, 0, 0, &id);
	errno_t e = rc == EOK ? sys_ipc_answer_wait(id, &m, &ev, 0, IPC_WAIT_CALLS, &answered)
			      : rc;
	errno_t w = sys_ipc_wait(&ev, 0, IPC_WAIT_ANSWER | IPC_WAIT_NONBLOCK, id);
	if (rc == EOK)
		kill_wait(sink, &status);
	tap_ok(rc == EOK && e == ENOENT && !answered && w == EAGAIN,
	       "answerwait: our call in another task's box: answering it ENOENT (%s), "
	       "no answer came (%s)", err_str(e), err_str(w));
}

/*
 * The answerwait server answers each AW_STEP with SYS_IPC_ANSWER_WAIT and
 * reports the previous one's result with the next answer.
 */
void test_answer_wait(void)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t id;
	int phone, status = -1;
	ipc_msg_t a1, a2, a3;

	answer_wait_errors();
	answer_wait_foreign();
	make_name(name, sizeof(name), "aw");
	errno_t rc = start_server("answerwait", name, NULL, &id, &phone);
	if (!tap_ok(rc == EOK, "answerwait: server started and connected (%s)", err_str(rc)))
		return;
	errno_t r1 = call(phone, AW_STEP, 41, 1, 0, &a1);
	errno_t r2 = call(phone, AW_STEP, 7, 0, 0, &a2);
	tap_ok(r1 == EOK && a1.args[2] == 42 && r2 == EOK && a2.args[2] == 8 &&
	       a2.args[0] == EAGAIN && a2.args[1] == 1,
	       "answerwait: answers arrive (%llu, %llu); a non-blocking wait after one "
	       "was EAGAIN with the answer gone (%s, %llu)", (unsigned long long)a1.args[2],
	       (unsigned long long)a2.args[2], err_str((errno_t)a2.args[0]),
	       (unsigned long long)a2.args[1]);
	errno_t w = ipc_data_write(phone, "x", 1);
	errno_t r3 = call(phone, AW_STEP, 1, 0, 0, &a3);
	tap_ok(w == ENOTSUP, "answerwait: a system method's call is refused EINVAL and "
	       "stays the server's to answer (%s)", err_str(w));
	tap_ok(r3 == EOK && a3.args[0] == EOK && a3.args[1] == 1 && a3.args[2] == 2,
	       "answerwait: a blocking wait after an answer took the next call (%s, %llu)",
	       err_str((errno_t)a3.args[0]), (unsigned long long)a3.args[1]);
	rc = stop_server(id, phone, &status);
	tap_ok(rc == EOK && status == 0, "answerwait: server exits 0 (%s, %d)", err_str(rc),
	       status);
}

/* ------------------------------------------------------------ short */

/* SYS_IPC_CALL_SHORT raw: w's words in, the registers' words back in w. */
static long short_raw(uint64_t phone, uint64_t method, uint64_t timeout_ns, unsigned long w[6])
{
	w[0] = phone;
	w[1] = method;
	w[2] = 7;
	w[3] = 8;
	w[4] = 9;
	w[5] = timeout_ns;
	return __vernier_syscall_words(SYS_IPC_CALL_SHORT, w);
}

/* Errors: no call made, and not one of the argument registers changed. */
static void short_errors(void)
{
	static const uint64_t phones[] = { IPC_MAX_PHONES - 1, IPC_MAX_PHONES, 1ull << 32 };
	static const long want[] = { -ENOENT, -EINVAL, -EINVAL };
	int bad = 0;

	for (int i = 0; i < 3; i++) {
		unsigned long w[6];
		long r = short_raw(phones[i], ECHO_PING, 0, w);
		bad += r != want[i] || w[0] != phones[i] || w[1] != ECHO_PING || w[2] != 7 ||
		       w[3] != 8 || w[4] != 9 || w[5] != 0;
	}
	unsigned long w[6];
	long r = short_raw((uint64_t)echo_phone(), IPC_M_PHONE_HUNGUP, 0, w);
	long r2 = short_raw((uint64_t)echo_phone(), IPC_M_IRQ, 0, w);
	w[0] = (unsigned long)echo_phone();        /* a read larger than IPC_DATA_MAX */
	w[1] = IPC_M_DATA_READ;
	w[2] = 0x1000;
	w[3] = IPC_DATA_MAX + 1;
	w[4] = w[5] = 0;
	long r3 = __vernier_syscall_words(SYS_IPC_CALL_SHORT, w);
	tap_ok(bad == 0 && r == -EINVAL && r2 == -EINVAL && r3 == -EINVAL,
	       "short: an unconnected phone ENOENT, phone %d and 2^32 EINVAL (not phone 0); "
	       "no forged system message: IPC_M_PHONE_HUNGUP %ld, IPC_M_IRQ %ld, a data "
	       "read over IPC_DATA_MAX %ld; the registers unchanged (%d wrong)",
	       IPC_MAX_PHONES, r, r2, r3, bad);
}

/* A sink never answers: the wait times out, the call stays, waited for by id. */
static void short_timeout(void)
{
	char name[IPC_NAME_MAX + 1];
	ipc_msg_t m = { .method = ECHO_PING }, a;
	ipc_callid_t id = 0;
	task_id_t sink;
	int phone, status;

	make_name(name, sizeof(name), "shsink");
	errno_t rc = start_server("sink", name, NULL, &sink, &phone);
	uint64_t t0 = now_ns();
	errno_t e = rc == EOK ? sys_ipc_call_short(phone, &m, &a, 20 * NS_PER_MS, &id) : rc;
	uint64_t dt = now_ns() - t0;
	ipc_event_t ev = { 0 };             /* read below even without a call */
	errno_t w = id ? sys_ipc_wait(&ev, 0, IPC_WAIT_ANSWER | IPC_WAIT_NONBLOCK, id) : EINVAL;
	if (rc == EOK)
		kill_wait(sink, &status);
	errno_t after = id ? sys_ipc_wait(&ev, ANSWER_TIMEOUT_NS, IPC_WAIT_ANSWER, id) : EINVAL;
	tap_ok(e == EOK && id != 0 && dt >= 20 * NS_PER_MS && w == EAGAIN && after == EOK &&
	       ev.msg.method == EHANGUP,
	       "short: no answer in 20 ms: EOK with the call id (%s, %llu ms), the call "
	       "stays (%s), its answer EHANGUP once the sink died (%s, %lld)", err_str(e),
	       (unsigned long long)(dt / NS_PER_MS), err_str(w), err_str(after),
	       (long long)ev.msg.method);
}

/*
 * SYS_IPC_CALL_SHORT: the message in registers and all six answer words
 * back in them; ipc_call_sync takes it when args 3 and 4 are 0, the
 * memory path when not.
 */
void test_short(void)
{
	int phone = echo_phone();
	ipc_msg_t m = { .method = ECHO_PING, .args = { 10, 20, 30 } }, a;
	ipc_callid_t id = 1;

	if (!tap_ok(phone >= 0, "short: echo server connected (phone %d)", phone))
		return;
	errno_t rc = sys_ipc_call_short(phone, &m, &a, 0, &id);
	tap_ok(rc == EOK && id == 0 && a.method == EOK && a.args[0] == 11 && a.args[1] == 22 &&
	       a.args[2] == 33 && a.args[3] == 4 && a.args[4] == 5,
	       "short: the answer's six words come back in the registers (%s; %llu %llu "
	       "%llu %llu %llu)", err_str(rc), (unsigned long long)a.args[0],
	       (unsigned long long)a.args[1], (unsigned long long)a.args[2],
	       (unsigned long long)a.args[3], (unsigned long long)a.args[4]);
	rc = sys_ipc_call_short(phone, &m, &m, 0, &id);
	tap_ok(rc == EOK && m.args[0] == 11 && m.args[2] == 33 && m.args[4] == 5,
	       "short: the message's own buffer takes its answer (%s)", err_str(rc));
	errno_t r1 = ipc_call_sync(phone, ECHO_PING, 1, 2, 3, 0, 0, &a);
	bool short_ok = r1 == EOK && a.args[0] == 2 && a.args[3] == 4 && a.args[4] == 5;
	errno_t r2 = ipc_call_sync(phone, ECHO_PING, 1, 2, 3, 40, 50, &a);
	tap_ok(short_ok && r2 == EOK && a.args[3] == 44 && a.args[4] == 55,
	       "short: ipc_call_sync with args 3, 4 zero (%s) and set (%s: %llu %llu)",
	       err_str(r1), err_str(r2), (unsigned long long)a.args[3],
	       (unsigned long long)a.args[4]);
	rc = ipc_call_sync(phone, ECHO_FAIL, ENOSPC, 0, 0, 0, 0, &a);
	tap_ok(rc == ENOSPC && a.method == ENOSPC, "short: the server's result (%s)",
	       err_str(rc));
	short_errors();
	short_timeout();
}
