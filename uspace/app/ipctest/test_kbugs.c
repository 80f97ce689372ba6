/*
 * ipctest regress: regression tests for kernel IPC bugs found while
 * writing this suite (each failed before its fix):
 *
 * - A SYS_IPC_WAIT whose event buffer faulted lost the event: the call
 *   was taken off the box and never seen, so its caller waited forever.
 *   (The kernel now checks the buffer before taking anything.)
 * - The outstanding-call count belonged to the phone slot, not to the
 *   connection: a phone hung up with calls pending and reused for a new
 *   connection started out at ELIMIT.
 * - SYS_IPC_FORWARD could turn any call into IPC_M_DATA_READ with an arg0
 *   of the forwarder's choice, so a server could make another one write
 *   into its client's memory. (Forwarding may no longer change a system
 *   method or produce one: EPERM.)
 */
#include <string.h>

#include "ipctest.h"

#define LOSSY_WAIT_NS (2 * NS_PER_SEC)

static void kbug_lost_event(void)
{
	char name[IPC_NAME_MAX + 1];
	task_id_t id;
	int phone, status;
	ipc_msg_t a;

	make_name(name, sizeof(name), "lossy");
	errno_t rc = start_server("lossy", name, NULL, &id, &phone);
	if (!tap_ok(rc == EOK, "regress: lossy server started (%s)", err_str(rc)))
		return;
	ipc_callid_t cid;
	rc = ipc_call_async(phone, ECHO_PING, 1, 0, 0, 0, 0, &cid);
	if (rc == EOK)
		rc = ipc_wait_answer(cid, LOSSY_WAIT_NS, &a);
	tap_ok(rc == EOK || rc == EFAULT,
	       "regress: a call taken by a wait whose buffer faulted is still "
	       "answered (got %s within 2 s)", err_str(rc));
	kill_wait(id, &status);
	if (rc == ETIMEOUT)
		tap_diag("regress: after the kill it was answered %s",
			 err_str(ipc_wait_answer(cid, ANSWER_TIMEOUT_NS, NULL)));
	sys_ipc_hangup(phone);
}

static void kbug_slot_limit(void)
{
	char name[IPC_NAME_MAX + 1];
	ipc_callid_t ids[IPC_PHONE_LIMIT];
	task_id_t sink;
	int phone, phone2 = -1, status, n = 0;

	make_name(name, sizeof(name), "ksink");
	errno_t rc = start_server("sink", name, NULL, &sink, &phone);
	if (!tap_ok(rc == EOK, "regress: sink started (%s)", err_str(rc)))
		return;
	while (n < IPC_PHONE_LIMIT &&
	       ipc_call_async(phone, ECHO_PING, 0, 0, 0, 0, 0, &ids[n]) == EOK)
		n++;
	sys_ipc_hangup(phone);
	rc = service_connect(echo_name(), &phone2);
	errno_t rc2 = rc == EOK ? call(phone2, ECHO_PING, 0, 0, 0, NULL) : rc;
	tap_ok(rc2 == EOK, "regress: a new connection on phone %d (old one hung up "
	       "with %d calls pending on phone %d) takes calls (%s)", phone2, n,
	       phone, err_str(rc2));
	kill_wait(sink, &status);
	for (int i = 0; i < n; i++)
		ipc_wait_answer(ids[i], ANSWER_TIMEOUT_NS, NULL);
	if (phone2 >= 0)
		sys_ipc_hangup(phone2);
}

static void kbug_forward_data(void)
{
	static const char secret[8] = "EVILDATA";
	char name[IPC_NAME_MAX + 1];
	task_id_t fwd;
	int phone, status;

	make_name(name, sizeof(name), "evil");
	errno_t rc = ipc_data_write(echo_phone(), secret, sizeof(secret));
	if (rc == EOK)
		rc = start_server("forward", name, echo_name(), &fwd, &phone);
	if (!tap_ok(rc == EOK, "regress: forwarder started (%s)", err_str(rc)))
		return;
	kbug_victim = 0x1111;
	rc = call(phone, FWD_EVIL, 0, sizeof(secret), 0, NULL);
	uint64_t v = kbug_victim;
	tap_ok(v == 0x1111, "regress: a plain call forwarded as DATA_READ cannot write "
	       "our memory (%s; victim now %#llx)", err_str(rc), (unsigned long long)v);
	kill_wait(fwd, &status);
	sys_ipc_hangup(phone);
}

void test_kbugs(void)
{
	if (!tap_ok(echo_phone() >= 0, "regress: echo server running"))
		return;
	kbug_lost_event();
	kbug_slot_limit();
	kbug_forward_data();
}
