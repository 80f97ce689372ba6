/*
 * ipctest limits: the IPC bounds of abi/limits.h and two regressions of
 * issue 13 (each failed before its fix):
 *
 * - Unread answers exhausted kernel memory: `outstanding` dropped when an
 *   answer was delivered, not read, so a task could pile up kbox answers
 *   without end, and the heap never gave the pages back. Now a call
 *   counts against its phone (IPC_PHONE_LIMIT) and its task
 *   (LIMIT_BOX_ANSWERS) until its answer is read, and the free frames
 *   come back once the flooding task exits.
 * - An event was lost when another thread unmapped the wait buffer while
 *   the waiter slept: now the waiter gets EFAULT and the event stays.
 *
 * Helpers spawned without permissions (`ipctest limit-helper KIND`):
 *   flood N   calls its own kbox without reading answers (reconnecting
 *             when a phone is full) until ELIMIT or N calls; exits 0 if
 *             it saw ELIMIT, 1 if not
 *   prof      opens LIMIT_PROF_SESSIONS + 1 profiling sessions on
 *             itself; exits with how many began (ELIMIT expected last)
 *   names P   registers LIMIT_NS_NAMES + 1 names "P.i"; exits with how
 *             many were accepted, + 100 if the last one got ELIMIT
 *   fill N M  sends up to M calls to server N (never read), exits 0 if
 *             all went, 1 on ELIMIT, 2 on another error
 *   reg N     registers N and exits (its status: the errno), leaving N held
 *   free N    registers N, releases it and exits (status: the errno)
 *   nested K N  runs `limit-helper K N` as its own child (status: the child's)
 */
#include <abi/limits.h>
#include <prof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#include "ipctest.h"

#define FLOOD_CALLS 20000
#define FLOOD_WARMUP_CALLS 32
#define FLOOD_SLACK_BYTES (256 * 1024)
#define KBOX_SETTLE_NS (200 * NS_PER_MS)
#define UNMAP_SETTLE_NS (150 * NS_PER_MS)

static uint64_t free_bytes(void)
{
	sysinfo_physmem_t m;
	size_t got;

	return sys_sysinfo_data("system.physmem", &m, sizeof(m), &got) == EOK ? m.free : 0;
}

/* Calls on my kbox phone until one fails; how many went out, *rc the failure. */
static int kbox_calls(int phone, int max, errno_t *rc)
{
	ipc_callid_t id;
	int n = 0;

	*rc = EOK;
	while (n < max && (*rc = ipc_call_async(phone, KBOX_TASK_INFO, 0, 0, 0, 0, 0, &id)) == EOK)
		n++;
	return n;
}

/* Read every answer waiting (non-blocking); how many. */
static int drain_answers(void)
{
	ipc_event_t ev;
	int n = 0;

	while (sys_ipc_wait(&ev, 0, IPC_WAIT_ALL | IPC_WAIT_NONBLOCK, 0) == EOK)
		n += ev.type == IPC_EV_ANSWER;
	return n;
}

/* Flood my kbox, a new phone whenever one is full; total calls sent. */
static int flood(int max, errno_t *last)
{
	int total = 0, phone;

	*last = EOK;
	while (total < max && (*last = sys_ipc_connect_kbox(my_id, &phone)) == EOK) {
		int n = kbox_calls(phone, max - total, last);
		total += n;
		sys_ipc_hangup(phone);
		if (*last != ELIMIT || n == 0)
			break;
		sys_sleep_ns(NS_PER_MS);
	}
	return total;
}

static void limit_phone(void)
{
	int phone;
	errno_t rc = sys_ipc_connect_kbox(my_id, &phone);

	if (!tap_ok(rc == EOK, "limits: kbox phone to myself (%s)", err_str(rc)))
		return;
	int n = kbox_calls(phone, IPC_PHONE_LIMIT, &rc);
	sys_sleep_ns(KBOX_SETTLE_NS);           /* every answer has arrived */
	ipc_callid_t id;
	errno_t more = ipc_call_async(phone, KBOX_TASK_INFO, 0, 0, 0, 0, 0, &id);
	tap_ok(n == IPC_PHONE_LIMIT && more == ELIMIT,
	       "limits: %d calls answered but unread fill a phone: the next gets ELIMIT (%s)",
	       n, err_str(more));
	int read = drain_answers();
	more = ipc_call_sync(phone, KBOX_TASK_INFO, 0, 0, 0, 0, 0, NULL);
	tap_ok(read == n && more == EOK,
	       "limits: once the %d answers are read the phone takes calls again (%s)",
	       read, err_str(more));
	sys_ipc_hangup(phone);
}

static void limit_task_answers(void)
{
	errno_t last;
	int total = flood(LIMIT_BOX_ANSWERS + 256, &last);

	sys_sleep_ns(KBOX_SETTLE_NS);
	int read = drain_answers();
	tap_ok(total == LIMIT_BOX_ANSWERS && last == ELIMIT,
	       "limits: unread answers over many phones stop at %d per task: ELIMIT "
	       "(%d sent, %s)", LIMIT_BOX_ANSWERS, total, err_str(last));
	tap_ok(read == total, "limits: all %d answers were kept and read (%d)", total, read);
}

/* Task id's usage record (all zero if the read fails). */
sysinfo_limits_t limits_of(task_id_t id)
{
	sysinfo_limits_t r = { 0 };
	char path[48];
	size_t got;

	snprintf(path, sizeof(path), "system.limits.%lu", (unsigned long)id);
	if (sys_sysinfo_data(path, &r, sizeof(r), &got) != EOK || got != sizeof(r))
		r = (sysinfo_limits_t){ 0 };
	return r;
}

/*
 * Fill name's box: connect, call until the phone is full, hang up, again,
 * until max calls went out or a connect (ns forwards it) or a call says
 * ELIMIT (*last). Calls sent.
 */
static int fill_box(const char *name, int max, errno_t *last)
{
	int total = 0;

	*last = EOK;
	while (total < max && *last == EOK) {
		int phone, n;
		if ((*last = service_connect(name, &phone)) != EOK)
			break;
		for (n = 0; n < IPC_PHONE_LIMIT && total + n < max; n++) {
			ipc_callid_t id;
			*last = ipc_call_async(phone, ECHO_PING, 0, 0, 0, 0, 0, &id);
			if (*last != EOK)
				break;
		}
		total += n;
		sys_ipc_hangup(phone);
	}
	return total;
}

/*
 * A server that never answers: its box stops at LIMIT_BOX_CALLS calls.
 * Helpers fill it (their calls stay in the box after they exit), so our
 * own unread answers stay few and our output keeps flowing.
 */
static void limit_box_calls(void)
{
	char name[IPC_NAME_MAX + 1], max[16];
	task_id_t sink;
	int phone, status, full = 0, fills = 0;

	make_name(name, sizeof(name), "full");
	errno_t rc = start_server("sink", name, NULL, &sink, &phone);
	if (!tap_ok(rc == EOK, "limits: sink started (%s)", err_str(rc)))
		return;
	snprintf(max, sizeof(max), "%d", LIMIT_BOX_CALLS / 4);
	for (int i = 0; i < 6 && !full; i++, fills++) {
		const char *argv[] = { "ipctest", "limit-helper", "fill", name, max, NULL };
		task_id_t id;
		status = -1;
		if (sys_spawn("/bin/ipctest", argv, 0, &id) == EOK)
			sys_wait(id, &status, 0, NULL);
		full = status == 1;
	}
	sys_sleep_ns(KBOX_SETTLE_NS);            /* hang-up notifications read */
	sysinfo_limits_t box = limits_of(sink);
	ipc_callid_t id;
	errno_t more = ipc_call_async(phone, ECHO_PING, 0, 0, 0, 0, 0, &id);
	tap_ok(full && fills == 4 && box.box_calls == LIMIT_BOX_CALLS && more == ELIMIT,
	       "limits: a box that is never answered stops at %d calls: the 4th filler "
	       "saw ELIMIT (%d fillers, last status %d; %u in the box), so does the next "
	       "call (%s)", LIMIT_BOX_CALLS, fills, status, box.box_calls, err_str(more));
	errno_t conn = service_connect(name, &phone);
	tap_ok(conn == ELIMIT, "limits: ns answers a connect to the full server ELIMIT, "
	       "busy rather than gone (%s)", err_str(conn));
	kill_wait(sink, &status);
	drain_answers();
	sys_ipc_hangup(phone);
}

/* Spawn /bin/ipctest with argv and no permissions, wait; its status or -1. */
int run_unprivileged(const char **argv)
{
	task_id_t id;
	int status = -1;

	if (sys_spawn("/bin/ipctest", argv, 0, &id) != EOK ||
	    sys_wait(id, &status, 0, NULL) != EOK)
		return -1;
	return status;
}

/* Spawn `ipctest limit-helper KIND ARG` without permissions; its status. */
static int run_helper(const char *kind, const char *arg)
{
	const char *argv[] = { "ipctest", "limit-helper", kind, arg, NULL };

	return run_unprivileged(argv);
}

static void limit_flood_memory(void)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", FLOOD_WARMUP_CALLS);
	run_helper("flood", n);                 /* warm caches up, not the heap */
	snprintf(n, sizeof(n), "%d", FLOOD_CALLS);
	uint64_t before = free_bytes();
	int status = run_helper("flood", n);
	uint64_t after = free_bytes();
	int64_t lost = (int64_t)before - (int64_t)after;
	tap_ok(status == 0, "limits: a task flooding its kbox without reading gets ELIMIT "
	       "(status %d)", status);
	tap_ok(lost < FLOOD_SLACK_BYTES,
	       "limits: after it exits the free memory is back (%lld KiB short, < %d)",
	       (long long)(lost / 1024), FLOOD_SLACK_BYTES / 1024);
}

typedef struct unmap_waiter {
	ipc_event_t *buf;
	errno_t rc;
} unmap_waiter_t;

static long unmap_wait_thread(void *arg)
{
	unmap_waiter_t *w = arg;

	w->rc = sys_ipc_wait(w->buf, 5 * NS_PER_SEC, IPC_WAIT_ALL, 0);
	return 0;
}

static void limit_unmapped_buffer(void)
{
	unmap_waiter_t w = { .rc = -1 };
	thread_id_t tid;
	ipc_callid_t cid;
	ipc_msg_t a;
	int phone;
	void *page;

	errno_t rc = sys_map(NULL, 4096, PROT_READ | PROT_WRITE, &page);
	if (rc == EOK)
		rc = sys_ipc_connect_kbox(my_id, &phone);
	if (!tap_ok(rc == EOK, "regress: a page and a kbox phone (%s)", err_str(rc)))
		return;
	w.buf = page;
	rc = thread_start(unmap_wait_thread, &w, &tid);
	sys_sleep_ns(UNMAP_SETTLE_NS);           /* the waiter sleeps in the kernel */
	sys_unmap(page, 4096);
	if (rc == EOK)
		rc = ipc_call_async(phone, KBOX_TASK_INFO, 0, 0, 0, 0, 0, &cid);
	if (rc == EOK)
		thread_join(tid, NULL);
	errno_t got = rc == EOK ? ipc_wait_answer(cid, 2 * NS_PER_SEC, &a) : rc;
	tap_ok(w.rc == EFAULT && got == EOK,
	       "regress: a waiter whose buffer was unmapped while it slept gets EFAULT "
	       "(%s) and the answer stays queued (%s)", err_str(w.rc), err_str(got));
	sys_ipc_hangup(phone);
}

typedef struct connect_waiter {
	const char *name;
	int phone;
	errno_t rc;
	volatile bool done;
} connect_waiter_t;

static long connect_wait_thread(void *arg)
{
	connect_waiter_t *w = arg;

	w->rc = service_connect_wait(w->name, UINT64_MAX, &w->phone);
	w->done = true;
	return 0;
}

/* service_connect_wait(UINT64_MAX) waits until the name appears, not 0 ns. */
static void limit_connect_forever(void)
{
	char name[IPC_NAME_MAX + 1];
	connect_waiter_t w = { .name = name, .phone = -1 };
	thread_id_t tid;
	task_id_t srv;
	int phone, status;

	make_name(name, sizeof(name), "late");
	errno_t rc = thread_start(connect_wait_thread, &w, &tid);
	if (!tap_ok(rc == EOK, "limits: a connect waiter started (%s)", err_str(rc)))
		return;
	sys_sleep_ns(UNMAP_SETTLE_NS);
	bool early = w.done;
	rc = start_server("echo", name, NULL, &srv, &phone);
	if (rc == EOK)
		thread_join(tid, NULL);
	tap_ok(!early && rc == EOK && w.rc == EOK,
	       "limits: service_connect_wait(UINT64_MAX ns) waits until the name is "
	       "registered (gave up early: %s; then %s)", early ? "yes" : "no",
	       err_str(w.rc));
	if (rc != EOK)
		return;
	sys_ipc_hangup(w.phone);
	stop_server(srv, phone, &status);
}

static void limit_prof_sessions(void)
{
	int status = run_helper("prof", NULL);

	tap_ok(status == LIMIT_PROF_SESSIONS + 100,
	       "limits: a task without PERM_PROFILE gets %d profiling sessions, then "
	       "ELIMIT (status %d)", LIMIT_PROF_SESSIONS, status);
}

static void limit_names(void)
{
	char prefix[IPC_NAME_MAX + 1];

	make_name(prefix, sizeof(prefix), "n");
	int status = run_helper("names", prefix);
	tap_ok(status == LIMIT_NS_NAMES + 100,
	       "limits: ns registers %d names per task, then ELIMIT (status %d)",
	       LIMIT_NS_NAMES, status);
}

/* A dead server's name is held: a stranger gets EPERM, a sibling takes it. */
static void limit_dead_name(void)
{
	char n1[IPC_NAME_MAX + 1], n2[IPC_NAME_MAX + 1];

	make_name(n1, sizeof(n1), "held");
	make_name(n2, sizeof(n2), "freed");
	int reg = run_helper("reg", n1);
	const char *argv[] = { "ipctest", "limit-helper", "nested", "reg", n1, NULL };
	task_id_t id;
	int stranger = -1;
	if (sys_spawn("/bin/ipctest", argv, 0, &id) == EOK)
		sys_wait(id, &stranger, 0, NULL);
	int sibling = run_helper("reg", n1);
	tap_ok(reg == EOK && stranger == EPERM && sibling == EOK,
	       "limits: ns: a dead server's name is refused to another task's child "
	       "(%s) and taken by its sibling (%s)", err_str(stranger), err_str(sibling));
	reg = run_helper("free", n2);
	argv[4] = n2;
	stranger = -1;
	if (sys_spawn("/bin/ipctest", argv, 0, &id) == EOK)
		sys_wait(id, &stranger, 0, NULL);
	tap_ok(reg == EOK && stranger == EOK,
	       "limits: ns: a released name is anyone's (%s, then %s)", err_str(reg),
	       err_str(stranger));
}

void test_limits(void)
{
	limit_phone();
	limit_task_answers();
	limit_flood_memory();
	limit_box_calls();
	limit_unmapped_buffer();
	limit_connect_forever();
	limit_prof_sessions();
	limit_names();
	limit_dead_name();
}

/* ------------------------------------------------ helpers (no permissions) */

static int helper_flood(int max)
{
	errno_t last;

	flood(max, &last);
	return last == ELIMIT ? 0 : 1;
}

static int helper_prof(void)
{
	prof_params_t p = { .hz = 100 };
	int begun = 0;
	errno_t rc = EOK;

	for (int i = 0; i <= LIMIT_PROF_SESSIONS && rc == EOK; i++) {
		int phone;
		rc = prof_connect(my_id, &phone);
		if (rc == EOK)
			rc = prof_task_begin(phone, &p, NULL, NULL);
		begun += rc == EOK;
	}
	return begun + (rc == ELIMIT ? 100 : 0);
}

static int helper_names(const char *prefix)
{
	char name[IPC_NAME_MAX + 1];
	errno_t rc = EOK;
	int n = 0;

	for (int i = 0; i <= LIMIT_NS_NAMES && rc == EOK; i++) {
		snprintf(name, sizeof(name), "%s.%d", prefix, i);
		rc = service_register(name);
		n += rc == EOK;
	}
	return n + (rc == ELIMIT ? 100 : 0);
}

/* 0: max calls sent; 1: ELIMIT first; 2: another error. */
static int helper_fill(const char *name, int max)
{
	errno_t last;
	int n = fill_box(name, max, &last);

	return n == max ? 0 : last == ELIMIT ? 1 : 2;
}

static int helper_reg(const char *name, bool release)
{
	errno_t rc = service_register(name);

	if (rc == EOK && release)
		rc = service_release(name);
	return rc;
}

static int helper_nested(const char *kind, const char *name)
{
	const char *argv[] = { "ipctest", "limit-helper", kind, name, NULL };
	task_id_t id;
	int status = -1;

	if (sys_spawn("/bin/ipctest", argv, 0, &id) != EOK ||
	    sys_wait(id, &status, 0, NULL) != EOK)
		return 255;
	return status;
}

int limit_helper_main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[0], "fill"))
		return helper_fill(argv[1], atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[0], "reg"))
		return helper_reg(argv[1], false);
	if (argc >= 2 && !strcmp(argv[0], "free"))
		return helper_reg(argv[1], true);
	if (argc >= 3 && !strcmp(argv[0], "nested"))
		return helper_nested(argv[1], argv[2]);
	if (argc >= 2 && !strcmp(argv[0], "flood"))
		return helper_flood(atoi(argv[1]));
	if (argc >= 1 && !strcmp(argv[0], "prof"))
		return helper_prof();
	if (argc >= 2 && !strcmp(argv[0], "names"))
		return helper_names(argv[1]);
	return 2;
}
