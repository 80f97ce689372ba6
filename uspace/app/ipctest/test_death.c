/*
 * ipctest limit: a phone takes IPC_PHONE_LIMIT outstanding calls, the next
 * one gets ELIMIT (another phone to the same server is not affected);
 * killing the server that never answered makes the kernel answer every
 * pending call EHANGUP, and calls to the dead server too.
 * ipctest kbox: connecting to the kbox of a task that is not our child
 * without PERM_PROFILE gives EPERM; our child's kbox answers KBOX_TASK_INFO.
 * ipctest ns: the naming service's answers: EEXIST, ENOENT, EINVAL,
 * ENOTSUP; it survives malformed requests and forgets a dead server, whose
 * name can then be registered again.
 */
#include <stdio.h>
#include <string.h>

#include "ipctest.h"

#define FORGET_POLL_NS (5 * NS_PER_SEC)
#define MAX_TASK_SCAN 1024

/* ------------------------------------------------------------ limit + kill */

/* Wait for each of n calls; count those answered with want. */
static int wait_all(const ipc_callid_t *ids, int n, errno_t want)
{
	int good = 0;

	for (int i = 0; i < n; i++)
		good += ipc_wait_answer(ids[i], ANSWER_TIMEOUT_NS, NULL) == want;
	return good;
}

/* Fill phone with calls until refused; returns how many went, *rc why not. */
static int fill_phone(int phone, ipc_callid_t *ids, int max, errno_t *rc)
{
	int n = 0;

	*rc = EOK;
	while (n < max && (*rc = ipc_call_async(phone, ECHO_PING, (uint64_t)n, 0, 0,
						0, 0, &ids[n])) == EOK)
		n++;
	return n;
}

void test_limit_kill(void)
{
	char name[IPC_NAME_MAX + 1];
	ipc_callid_t ids[IPC_PHONE_LIMIT + 2];
	task_id_t sink;
	int phone, phone2, status = 0;
	errno_t rc, rc2;

	make_name(name, sizeof(name), "sink");
	rc = start_server("sink", name, NULL, &sink, &phone);
	if (!tap_ok(rc == EOK, "limit: sink server started (%s)", err_str(rc)))
		return;
	int n = fill_phone(phone, ids, IPC_PHONE_LIMIT + 1, &rc);
	tap_ok(n == IPC_PHONE_LIMIT && rc == ELIMIT,
	       "limit: %d calls outstanding on one phone, the next one ELIMIT "
	       "(%d went, then %s)", IPC_PHONE_LIMIT, n, err_str(rc));
	rc = service_connect(name, &phone2);
	rc2 = rc == EOK ? ipc_call_async(phone2, ECHO_PING, 0, 0, 0, 0, 0, &ids[n]) : rc;
	tap_ok(rc2 == EOK, "limit: another phone to the same server still takes "
	       "calls (%s)", err_str(rc2));
	int pending = n + (rc2 == EOK);
	rc = ipc_wait_answer(ids[0], 50 * NS_PER_MS, NULL);
	tap_ok(rc == ETIMEOUT, "limit: the sink answers nothing (%s)", err_str(rc));
	rc = kill_wait(sink, &status);
	tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_SIGNAL),
	       "kill: sink killed with %d calls pending (%s, status %#x)",
	       pending, err_str(rc), status);
	int hung = wait_all(ids, pending, EHANGUP);
	tap_ok(hung == pending, "kill: all %d pending calls answered EHANGUP "
	       "(%d were)", pending, hung);
	n = fill_phone(phone, ids, IPC_PHONE_LIMIT, &rc);
	hung = wait_all(ids, n, EHANGUP);
	tap_ok(n == IPC_PHONE_LIMIT && hung == n,
	       "kill: the phone's count went back to zero: %d new calls to the dead "
	       "server, each answered EHANGUP (%d)", n, hung);
	sys_ipc_hangup(phone);
	sys_ipc_hangup(phone2);
}

/* ------------------------------------------------------------ kbox */

/* The naming service's task id (a task named "ns" with threads), or 0. */
static task_id_t find_ns(void)
{
	for (task_id_t id = 1; id < MAX_TASK_SCAN; id++) {
		task_info_t info;
		if (sys_task_info(id, &info) == EOK && !strcmp(info.name, "ns") &&
		    info.threads > 0)
			return id;
	}
	return 0;
}

/* Spawn `ipctest kbox-probe A B` without permissions; its exit status. */
static int kbox_probe(task_id_t a, task_id_t b)
{
	char sa[24], sb[24];
	const char *argv[] = { "ipctest", "kbox-probe", sa, sb, NULL };
	task_id_t id;
	int status = -1;

	snprintf(sa, sizeof(sa), "%lu", (unsigned long)a);
	snprintf(sb, sizeof(sb), "%lu", (unsigned long)b);
	if (sys_spawn("/bin/ipctest", argv, 0, &id) != EOK ||
	    sys_wait(id, &status, 0, NULL) != EOK)
		return -1;
	return status;
}

/*
 * Our tree's task count once it is back at want (a dead task counts until
 * its task_t is freed), or what it is after 2 s.
 */
static uint32_t tree_settled(uint32_t want)
{
	uint32_t n = limits_of(my_id).tree_tasks;

	for (int i = 0; i < 200 && n != want; i++) {
		sys_sleep_ns(10 * NS_PER_MS);
		n = limits_of(my_id).tree_tasks;
	}
	return n;
}

static void kbox_child(void)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t child;
	int phone, kphone = -1, status;
	ipc_msg_t a;

	uint32_t tree0 = limits_of(my_id).tree_tasks;
	make_name(name, sizeof(name), "kbox");
	errno_t rc = start_server("sink", name, NULL, &child, &phone);
	if (rc == EOK)
		rc = sys_ipc_connect_kbox(child, &kphone);
	tap_ok(rc == EOK, "kbox: connecting to our child's kbox (%s)", err_str(rc));
	if (rc != EOK)
		return;
	rc = call(kphone, KBOX_TASK_INFO, 0, 0, 0, &a);
	tap_ok(rc == EOK && a.args[0] == child && a.args[1] == 2 && a.args[2] == 0 &&
	       a.args[3] == my_id,
	       "kbox: KBOX_TASK_INFO answers the child's id %lu (%llu), 2 threads "
	       "(the server loop and its orphan watch) "
	       "(%llu), no perms (%#llx), parent us (%llu) (%s)",
	       (unsigned long)child, (unsigned long long)a.args[0],
	       (unsigned long long)a.args[1], (unsigned long long)a.args[2],
	       (unsigned long long)a.args[3], err_str(rc));
	rc = call(kphone, IPC_M_USER + 77, 0, 0, 0, NULL);
	tap_ok(rc == ENOTSUP, "kbox: an unknown kbox method ENOTSUP (%s)", err_str(rc));
	kill_wait(child, &status);
	rc = sys_ipc_hangup(kphone);
	tap_ok(rc == EOK, "kbox: hanging up the kbox phone (%s)", err_str(rc));
	uint32_t tree = tree_settled(tree0);
	tap_ok(tree == tree0, "kbox: the dead child is freed while our phone to it is still "
	       "up (tree tasks %u, %u before it)", tree, tree0);
	rc = call(phone, ECHO_PING, 0, 0, 0, NULL);
	tap_ok(rc == EHANGUP, "kbox: a call on that phone EHANGUP (%s)", err_str(rc));
	rc = sys_ipc_hangup(phone);
	tap_ok(rc == EOK, "kbox: hanging it up EOK (%s)", err_str(rc));
}

void test_kbox(void)
{
	task_id_t ns = find_ns();
	task_info_t me;
	int phone;

	tap_ok(ns != 0, "kbox: found the naming service (task %lu)", (unsigned long)ns);
	int st = kbox_probe(ns, my_id);
	tap_ok(st >= 0 && !(st & 1), "kbox: a task without PERM_PROFILE gets EPERM "
	       "for the kbox of ns, not its child (status %d)", st);
	tap_ok(st >= 0 && !(st & 2), "kbox: ... and for the kbox of its parent "
	       "(status %d)", st);
	kbox_child();
	errno_t rc = sys_ipc_connect_kbox(1ull << 40, &phone);
	tap_ok(rc == ESRCH, "kbox: no such task ESRCH (%s)", err_str(rc));
	if (sys_task_info(0, &me) == EOK && (me.perms & PERM_PROFILE) && ns) {
		ipc_msg_t a;
		rc = sys_ipc_connect_kbox(ns, &phone);
		errno_t rc2 = rc == EOK ? call(phone, KBOX_TASK_INFO, 0, 0, 0, &a) : rc;
		tap_ok(rc2 == EOK && a.args[0] == ns, "kbox: with PERM_PROFILE the "
		       "kbox of ns is open to us (%s, %s)", err_str(rc), err_str(rc2));
		sys_ipc_hangup(phone);
	}
}

/* ------------------------------------------------------------ ns */

/* A raw request to the naming service with the given words. */
static errno_t ns_raw(uint64_t method, uint64_t a0, uint64_t a1, uint64_t a4)
{
	ipc_msg_t m = { .method = method, .args = { a0, a1, 0, 0, a4 } };
	ipc_callid_t id;
	errno_t rc = sys_ipc_call(IPC_NS_PHONE, &m, &id);

	return rc != EOK ? rc : ipc_wait_answer(id, ANSWER_TIMEOUT_NS, NULL);
}

static void ns_names(void)
{
	uint64_t args[IPC_ARGS];
	char out[IPC_NAME_MAX + 1];
	const char *n39 = "abcdefghijklmnopqrstuvwxyz0123456789ABC";

	errno_t e1 = ipc_name_pack("", args);
	errno_t e2 = ipc_name_pack("abcdefghijklmnopqrstuvwxyz0123456789ABCD", args);
	errno_t e3 = ipc_name_pack(n39, args);
	errno_t e4 = ipc_name_unpack(args, out);
	tap_ok(e1 == EINVAL && e2 == EINVAL && e3 == EOK && e4 == EOK &&
	       !strcmp(out, n39) && args[0] == 0x6867666564636261ull &&
	       (args[4] >> 56) == 0,
	       "ns: names of 1..39 bytes pack little-endian into the 5 words and "
	       "back (empty %s, 40 bytes %s)", err_str(e1), err_str(e2));
	/* 'a', NUL, then 'b': bytes after the end; then byte 39 set. */
	e1 = ns_raw(IPC_M_CONNECT_ME_TO, 0x620061, 0, 0);
	e2 = ns_raw(IPC_M_CONNECT_TO_ME, 0x61, 0, 0x61ull << 56);
	e3 = ns_raw(IPC_M_CONNECT_ME_TO, 0, 0, 0);
	tap_ok(e1 == EINVAL && e2 == EINVAL && e3 == EINVAL,
	       "ns: malformed names EINVAL (embedded NUL %s, 40 bytes %s, empty %s)",
	       err_str(e1), err_str(e2), err_str(e3));
}

static void ns_robust(void)
{
	ipc_msg_t m = { .method = IPC_M_DATA_WRITE,
			.args = { (uint64_t)(uintptr_t)BAD_ADDR, 4096 } };
	ipc_callid_t id;
	int phone;

	errno_t e1 = ns_raw(IPC_M_USER + 5, 1, 2, 3);
	errno_t e2 = sys_ipc_call(IPC_NS_PHONE, &m, &id);
	if (e2 == EOK)
		e2 = ipc_wait_answer(id, ANSWER_TIMEOUT_NS, NULL);
	m.method = IPC_M_DATA_READ;
	errno_t e3 = sys_ipc_call(IPC_NS_PHONE, &m, &id);
	if (e3 == EOK)
		e3 = ipc_wait_answer(id, ANSWER_TIMEOUT_NS, NULL);
	errno_t e4 = service_connect(echo_name(), &phone);
	tap_ok(e1 == ENOTSUP && e2 == ENOTSUP && e3 == ENOTSUP && e4 == EOK,
	       "ns: unknown method, DATA_WRITE and DATA_READ with bad buffers are "
	       "refused ENOTSUP (%s, %s, %s) and ns still connects us (%s)",
	       err_str(e1), err_str(e2), err_str(e3), err_str(e4));
	if (e4 == EOK)
		sys_ipc_hangup(phone);
}

/* Poll until name is unknown to ns; returns the last answer. */
static errno_t wait_forgotten(const char *name)
{
	uint64_t deadline = now_ns() + FORGET_POLL_NS;
	errno_t rc;
	int phone;

	for (;;) {
		rc = service_connect(name, &phone);
		if (rc == EOK)
			sys_ipc_hangup(phone);
		if (rc == ENOENT || now_ns() >= deadline)
			return rc;
		sys_sleep_ns(NS_PER_MS);
	}
}

static void ns_death(void)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t id, id2;
	int phone, status;
	ipc_msg_t a;

	make_name(name, sizeof(name), "reborn");
	errno_t rc = start_server("sink", name, NULL, &id, &phone);
	if (!tap_ok(rc == EOK, "ns: a sink registered as %s (%s)", name, err_str(rc)))
		return;
	sys_ipc_hangup(phone);
	kill_wait(id, &status);
	rc = wait_forgotten(name);
	tap_ok(rc == ENOENT, "ns: the name of a dead server is forgotten (%s)",
	       err_str(rc));
	rc = start_server("echo", name, NULL, &id2, &phone);
	errno_t rc2 = rc == EOK ? call(phone, ECHO_WHO, 0, 0, 0, &a) : rc;
	tap_ok(rc2 == EOK && a.args[2] == id2, "ns: the name registered again "
	       "reaches the new server (task %llu, want %lu) (%s)",
	       (unsigned long long)a.args[2], (unsigned long)id2, err_str(rc2));
	if (rc == EOK) {
		rc = stop_server(id2, phone, &status);
		tap_ok(rc == EOK && status == 0, "ns: new server stopped (%s, status %d)",
		       err_str(rc), status);
	}
}

void test_ns(void)
{
	int phone;

	if (!tap_ok(echo_phone() >= 0, "ns: echo server running"))
		return;
	errno_t rc = service_register(echo_name());
	tap_ok(rc == EEXIST, "ns: registering a live server's name again EEXIST (%s)",
	       err_str(rc));
	rc = service_connect("ipctest.nobody", &phone);
	tap_ok(rc == ENOENT, "ns: connecting to an unknown name ENOENT (%s)",
	       err_str(rc));
	uint64_t t0 = now_ns();
	rc = service_connect_wait("ipctest.nobody", 50 * NS_PER_MS, &phone);
	tap_ok(rc == ETIMEOUT && now_ns() - t0 >= 50 * NS_PER_MS,
	       "ns: waiting 50 ms for an unknown name ETIMEOUT (%s)", err_str(rc));
	ns_names();
	ns_robust();
	ns_death();
}
