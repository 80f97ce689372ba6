/*
 * ipctest's helper tasks, spawned by the tests as `ipctest server KIND
 * NAME [ARG]` or `ipctest kbox-probe ...`:
 *
 *   echo NAME [THREADS]     the echo protocol of ipctest.h, served by
 *                           THREADS threads (default 1; thread i is pinned
 *                           to CPU i)
 *   forward NAME TARGET     forward every call to the server of TARGET
 *                           (FWD_REWRITE becomes ECHO_WHO, arg0 FWD_ARG0;
 *                           FWD_EVIL becomes DATA_READ into &kbug_victim)
 *   sink NAME               accept connections, never answer anything
 *   answerwait NAME         AW_STEP and ECHO_EXIT through raw
 *                           SYS_IPC_ANSWER_WAIT; a system method's call
 *                           (DATA_WRITE) is answered ENOTSUP if
 *                           SYS_IPC_ANSWER_WAIT refused it (EINVAL, not
 *                           answered), else EIO
 *   lossy NAME              echo, but wait once with a bad event buffer
 *                           after the first connection (kbugs)
 *   selfcall NAME THREADS   echo served by THREADS threads, and called by
 *                           THREADS threads of its own and its main
 *                           thread, over a phone to itself, until
 *                           killed (killrace)
 *   handoff NAME            HANDOFF_WORK and HANDOFF_SPIN (ipctest.h): a
 *                           call taken by one thread, answered by another
 *   kbox-probe ID...        (no permissions) try to connect to the kbox of
 *                           each task ID; exit with bit i set if task i
 *                           was not refused with EPERM
 *
 * Servers register NAME with the naming service, print nothing unless
 * something goes wrong ("# ipctest server: ..." lines, TAP diagnostics)
 * and exit 3 on a set-up failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <time.h>

#include "ipctest.h"

#define MAX_THREADS 8
#define MAX_HUNGUPS 64

/* ------------------------------------------------------------ echo */

typedef struct hungup {
	uint64_t conn;
	task_id_t task;
} hungup_t;

static uint8_t echo_buf[IPC_DATA_MAX];
static volatile uint64_t echo_seq_calls;
static volatile size_t echo_len;
static volatile errno_t echo_bad_rc = -1, echo_data_rc = -1;
static hungup_t hungups[MAX_HUNGUPS];
static volatile unsigned nhungups;

/*
 * The echo buffer's lock. Accepting a write answers the client, who may
 * send its next call (a read) to another serving thread at once: the
 * writer holds the lock until echo_len is set, so that read waits for it.
 */
static volatile bool echo_lock;

static void echo_buf_lock(void)
{
	while (__atomic_test_and_set(&echo_lock, __ATOMIC_ACQUIRE))
		sys_yield();
}

static void echo_buf_unlock(void)
{
	__atomic_clear(&echo_lock, __ATOMIC_RELEASE);
}

static void echo_data_write(const ipc_event_t *ev)
{
	size_t len = 0;
	errno_t rc;

	if (ev->msg.args[2] & DATA_BAD_SERVER) {
		rc = ipc_data_write_accept(ev, BAD_ADDR, IPC_DATA_MAX, &len);
		echo_bad_rc = rc;
		if (rc != EFAULT)
			return;                 /* answered after all */
	}
	echo_buf_lock();
	rc = ipc_data_write_accept(ev, echo_buf, sizeof(echo_buf), &len);
	echo_data_rc = rc;
	if (rc == EOK)
		echo_len = len;
	echo_buf_unlock();
	if (rc == EFAULT)
		ipc_answer_0(ev->callid, EFAULT);
}

static void echo_data_read(const ipc_event_t *ev)
{
	errno_t rc;

	if (ev->msg.args[2] & DATA_BAD_SERVER) {
		rc = ipc_data_read_answer(ev, BAD_ADDR, echo_len);
		echo_bad_rc = rc;
		if (rc != EFAULT)
			return;
	}
	echo_buf_lock();
	rc = ipc_data_read_answer(ev, echo_buf, echo_len);
	echo_data_rc = rc;
	echo_buf_unlock();
	if (rc == EFAULT)
		ipc_answer_0(ev->callid, EFAULT);
}

static void echo_stats(const ipc_event_t *ev)
{
	echo_buf_lock();
	uint64_t len = echo_len, sum = checksum(echo_buf, echo_len);
	echo_buf_unlock();
	ipc_answer(ev->callid, EOK, echo_seq_calls, len, sum, (uint64_t)echo_bad_rc,
		   (uint64_t)echo_data_rc);
}

static void echo_hungup(const ipc_event_t *ev)
{
	unsigned i = __atomic_fetch_add(&nhungups, 1, __ATOMIC_ACQ_REL);

	if (i < MAX_HUNGUPS) {
		hungups[i].conn = ev->msg.args[0];
		__atomic_store_n(&hungups[i].task, ev->msg.args[1], __ATOMIC_RELEASE);
	}
}

static bool echo_saw_hangup(uint64_t conn, task_id_t task)
{
	unsigned n = __atomic_load_n(&nhungups, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n && i < MAX_HUNGUPS; i++)
		if (__atomic_load_n(&hungups[i].task, __ATOMIC_ACQUIRE) == task &&
		    hungups[i].conn == conn)
			return true;
	return false;
}

static void echo_call(const ipc_event_t *ev)
{
	const uint64_t *a = ev->msg.args;

	switch (ev->msg.method) {
	case IPC_M_CONNECT_ME_TO:
		ipc_answer_0(ev->callid, EOK);
		break;
	case ECHO_PING:
		ipc_answer_last(ev->callid, EOK, a[0] + 1, a[1] + 2, a[2] + 3, a[3] + 4,
				a[4] + 5);
		break;
	case ECHO_SEQ:
		__atomic_add_fetch(&echo_seq_calls, 1, __ATOMIC_RELAXED);
		ipc_answer_last(ev->callid, EOK, a[0], ~a[0], a[1], sys_thread_id(), 0);
		break;
	case ECHO_WHO:
		ipc_answer_last(ev->callid, EOK, ev->sender, ev->conn, sys_task_id(),
				a[0], ev->msg.method);
		break;
	case ECHO_HUNGUPS:
		ipc_answer_last(ev->callid, EOK, echo_saw_hangup(a[0], a[1]), nhungups,
				0, 0, 0);
		break;
	case ECHO_STATS:
		echo_stats(ev);
		break;
	case ECHO_EXIT:
		ipc_answer_0(ev->callid, EOK);
		exit(0);
	case ECHO_FAIL:
		ipc_answer_last(ev->callid, (errno_t)a[0], 0, 0, 0, 0, 0);
		break;
	case IPC_M_DATA_WRITE:
		echo_data_write(ev);
		break;
	case IPC_M_DATA_READ:
		echo_data_read(ev);
		break;
	default:
		ipc_answer_0(ev->callid, ENOTSUP);
	}
}

static int echo_handler(void *ctx, const ipc_event_t *ev)
{
	if (ev->type == IPC_EV_CALL)
		echo_call(ev);
	else if (ev->type == IPC_EV_NOTIFY && ev->msg.method == IPC_M_PHONE_HUNGUP)
		echo_hungup(ev);
	return 0;
}

/* One serving thread, pinned to CPU (long)arg. */
static long echo_thread(void *arg)
{
	sys_set_affinity(0, 1ull << (long)arg);
	errno_t rc = ipc_server_loop(echo_handler, NULL);
	printf("# ipctest server: echo loop ended: %s\n", err_str(rc));
	return 1;
}

static int serve_echo(int threads)
{
	thread_id_t tid;

	for (long i = 1; i < threads; i++)
		if (thread_start(echo_thread, (void *)(i % ncpus), &tid) != EOK)
			return 3;
	return (int)echo_thread((void *)0);
}

/* ------------------------------------------------------------ selfcall */

/* ECHO_PING on the phone (long)arg until a call fails; 1 then. */
static long selfcall_client(void *arg)
{
	int phone = (int)(long)arg;

	for (uint64_t i = 0;; i++)
		if (ipc_call_sync(phone, ECHO_PING, i, 0, 0, 0, 0, NULL) != EOK)
			return 1;
}

/*
 * Serve echo with threads threads and call it from threads more and the
 * main thread, client i pinned to CPU i + 1 (every call's wake-up goes
 * within a CPU and across), until killed: server and clients enter and
 * leave their waits all the time, all in this task.
 */
static int serve_selfcall(const char *name, int threads)
{
	thread_id_t tid;
	int phone;

	for (long i = 0; i < threads; i++)
		if (thread_start(echo_thread, (void *)(i % ncpus), &tid) != EOK)
			return 3;
	if (service_connect_wait(name, CONNECT_TIMEOUT_NS, &phone) != EOK)
		return 3;
	for (long i = 0; i < threads; i++)
		if (thread_start(selfcall_client, (void *)(long)phone, &tid) != EOK ||
		    sys_set_affinity(tid, 1ull << ((i + 1) % ncpus)) != EOK)
			return 3;
	return (int)selfcall_client((void *)(long)phone);
}

/* ------------------------------------------------------------ forward */

volatile uint64_t kbug_victim;
static int fwd_phone = -1;

static int fwd_handler(void *ctx, const ipc_event_t *ev)
{
	errno_t rc;

	if (ev->type != IPC_EV_CALL)
		return 0;
	if (ev->msg.method == IPC_M_CONNECT_ME_TO)
		rc = ipc_answer_0(ev->callid, EOK);
	else if (ev->msg.method == FWD_REWRITE)
		rc = sys_ipc_forward(ev->callid, fwd_phone, ECHO_WHO, FWD_ARG0);
	else if (ev->msg.method == FWD_EVIL)
		rc = sys_ipc_forward(ev->callid, fwd_phone, IPC_M_DATA_READ,
				     (uint64_t)(uintptr_t)&kbug_victim);
	else
		rc = sys_ipc_forward(ev->callid, fwd_phone, 0, 0);
	if (rc != EOK)
		ipc_answer_0(ev->callid, rc);
	return 0;
}

/* ------------------------------------------------------------ sink */

static int sink_handler(void *ctx, const ipc_event_t *ev)
{
	if (ev->type == IPC_EV_CALL && ev->msg.method == IPC_M_CONNECT_ME_TO)
		ipc_answer_0(ev->callid, EOK);
	return 0;                          /* everything else: never answered */
}

/* ------------------------------------------------------------ lossy */

static int serve_lossy(void)
{
	ipc_event_t ev;
	bool lost = false;

	for (;;) {
		if (sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS, 0) != EOK)
			return 1;
		if (ev.type != IPC_EV_CALL || ev.msg.method == NS_M_WATCH)
			continue;
		if (ev.msg.method != IPC_M_CONNECT_ME_TO) {
			echo_call(&ev);
			continue;
		}
		ipc_answer_0(ev.callid, EOK);
		if (!lost) {
			lost = true;
			sys_ipc_wait(BAD_ADDR, 0, IPC_WAIT_CALLS, 0);
		}
	}
}

/* ------------------------------------------------------------ handoff */

static volatile ipc_callid_t handoff_id;        /* for the helper to answer */
static volatile ipc_callid_t handoff_answered;  /* the last one it answered */

/* The helper thread: answer each call the main thread hands over. */
static __attribute__((noreturn)) long handoff_helper(void *arg)
{
	for (;;) {
		ipc_callid_t id = __atomic_exchange_n(&handoff_id, 0, __ATOMIC_ACQ_REL);
		if (!id) {
			sys_sleep_ns(NS_PER_MS);
			continue;
		}
		ipc_answer_0(id, EOK);
		__atomic_store_n(&handoff_answered, id, __ATOMIC_RELEASE);
	}
}

/* Spin ns nanoseconds of this thread's CPU time. */
static void handoff_spin(uint64_t ns)
{
	uint64_t t0 = sys_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while (sys_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < ns)
		;
}

/* HANDOFF_SPIN: the helper answers ev's call, then this thread spins. */
static void handoff_pass(const ipc_event_t *ev)
{
	__atomic_store_n(&handoff_id, ev->callid, __ATOMIC_RELEASE);
	while (__atomic_load_n(&handoff_answered, __ATOMIC_ACQUIRE) != ev->callid)
		sys_yield();
	handoff_spin(ev->msg.args[0]);
}

static void handoff_call(const ipc_event_t *ev)
{
	switch (ev->msg.method) {
	case HANDOFF_WORK:
		handoff_spin(ev->msg.args[0]);
		ipc_answer_0(ev->callid, EOK);
		break;
	case HANDOFF_SPIN:
		handoff_pass(ev);
		break;
	default:
		echo_call(ev);
	}
}

static int serve_handoff(void)
{
	thread_id_t tid;
	ipc_event_t ev;

	if (thread_start(handoff_helper, NULL, &tid) != EOK)
		return 3;
	for (;;) {
		if (sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS, 0) != EOK)
			return 1;
		if (ev.type == IPC_EV_CALL && ev.msg.method != NS_M_WATCH)
			handoff_call(&ev);
	}
}

/* ------------------------------------------------------------ answerwait */

/* A system method's call: SYS_IPC_ANSWER_WAIT must refuse it and leave it ours. */
static void aw_system(const ipc_event_t *ev)
{
	ipc_msg_t m = { .method = EOK };
	ipc_event_t tmp;
	bool answered = true;
	errno_t rc = sys_ipc_answer_wait(ev->callid, &m, &tmp, 0,
					 IPC_WAIT_CALLS | IPC_WAIT_NONBLOCK, &answered);

	ipc_answer_0(ev->callid, rc == EINVAL && !answered ? ENOTSUP : EIO);
}

static int serve_answer_wait(void)
{
	ipc_event_t ev;
	errno_t rc = sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS, 0), last = -1;
	bool answered = false;

	while (rc == EOK) {
		uint64_t meth = ev.type == IPC_EV_CALL ? ev.msg.method : 0;
		if (meth == IPC_M_CONNECT_ME_TO)
			ipc_answer_0(ev.callid, EOK);
		else if (meth == IPC_M_DATA_WRITE)
			aw_system(&ev);
		else if (meth == ECHO_EXIT)
			return ipc_answer_0(ev.callid, EOK) == EOK ? 0 : 1;
		if (meth != AW_STEP) {
			rc = sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS, 0);
			continue;
		}
		ipc_msg_t m = { EOK, { (uint64_t)last, answered, ev.msg.args[0] + 1 } };
		unsigned flags = IPC_WAIT_CALLS | (ev.msg.args[1] ? IPC_WAIT_NONBLOCK : 0);
		last = rc = sys_ipc_answer_wait(ev.callid, &m, &ev, 0, flags, &answered);
		if (answered && rc == EAGAIN)
			rc = sys_ipc_wait(&ev, 0, IPC_WAIT_CALLS, 0);
	}
	return 1;
}

/* ------------------------------------------------------------ entry */

static unsigned server_cpus(void)
{
	system_stats_t st;
	long r = __vernier_syscall(SYS_SYSTEM_STATS, (long)&st, 0, 0, 0, 0, 0);

	return r < 0 || st.cpus_online == 0 ? 1 : st.cpus_online;
}

/* The task that started this server (see orphan_watch). */
static task_id_t server_parent;

/*
 * Ends the server once ipctest is gone (it was killed, say under fault
 * injection): its task is then re-parented, and a server nobody will stop
 * must not outlive the suite. Polls every 50 ms.
 */
static long orphan_watch(void *arg)
{
	task_info_t info;

	for (;;) {
		sys_sleep_ns(50000000ull);
		if (sys_task_info(sys_task_id(), &info) == EOK && info.parent != server_parent)
			sys_exit(4);
	}
	return 0;
}

/* Note the parent and start orphan_watch; false if either fails. */
static bool server_watch_parent(void)
{
	task_info_t info;
	thread_id_t tid;

	if (sys_task_info(sys_task_id(), &info) != EOK)
		return false;
	server_parent = info.parent;
	return thread_start(orphan_watch, NULL, &tid) == EOK;
}

int server_main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ipctest server "
			"echo|forward|sink|lossy|answerwait|selfcall|handoff NAME [ARG]\n");
		return 2;
	}
	const char *kind = argv[0], *name = argv[1];
	ncpus = server_cpus();
	if (!strcmp(kind, "forward")) {
		errno_t rc = argc > 2 ? service_connect_wait(argv[2], CONNECT_TIMEOUT_NS,
							      &fwd_phone) : EINVAL;
		if (rc != EOK) {
			printf("# ipctest server: cannot connect to the target: %s\n",
			       err_str(rc));
			return 3;
		}
	} else if (strcmp(kind, "echo") && strcmp(kind, "sink") &&
		   strcmp(kind, "lossy") && strcmp(kind, "answerwait") &&
		   strcmp(kind, "selfcall") && strcmp(kind, "handoff")) {
		fprintf(stderr, "ipctest server: unknown kind '%s'\n", kind);
		return 2;
	}
	if (!server_watch_parent()) {
		printf("# ipctest server: cannot watch for the parent's end\n");
		return 3;
	}
	errno_t rc = service_register(name);
	if (rc != EOK) {
		printf("# ipctest server: cannot register %s: %s\n", name, err_str(rc));
		return 3;
	}
	if (!strcmp(kind, "lossy"))
		return serve_lossy();
	if (!strcmp(kind, "answerwait"))
		return serve_answer_wait();
	if (!strcmp(kind, "handoff"))
		return serve_handoff();
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
	if (!strcmp(kind, "echo"))
		return serve_echo(threads);
	if (!strcmp(kind, "selfcall"))
		return serve_selfcall(name, threads);
	rc = ipc_server_loop(!strcmp(kind, "sink") ? sink_handler : fwd_handler, NULL);
	printf("# ipctest server: %s loop ended: %s\n", kind, err_str(rc));
	return 1;
}

int kbox_probe_main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 0; i < argc && i < 8; i++) {
		int phone;
		errno_t rc = sys_ipc_connect_kbox(strtoull(argv[i], NULL, 10), &phone);
		if (rc != EPERM)
			bad |= 1 << i;
	}
	return bad;
}
