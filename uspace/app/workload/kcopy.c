/*
 * kcopy's server: threads of workload itself (one per worker, so workers
 * do not queue behind each other) register a service name unique to this
 * task, "workload.ID", with the naming service and accept every
 * IPC_M_DATA_WRITE into a scratch buffer. Each worker connects its own
 * phone and sends 64 KiB writes; the kernel copies the data from the
 * worker's buffer to the server's, which is where kcopy's time goes.
 * A WL_M_STOP call ends one server thread.
 */
#include <ipc.h>
#include <stdio.h>
#include <thread.h>
#include <vernier.h>

#include "workload.h"

#define WL_M_STOP (IPC_M_USER + 1)

static char kcopy_name[IPC_NAME_MAX + 1];
static thread_id_t kcopy_threads[WL_MAX_THREADS];
static unsigned kcopy_count;
static volatile bool kcopy_error;
static uint8_t kcopy_src[IPC_DATA_MAX];   /* what workers send */
static uint8_t kcopy_dst[IPC_DATA_MAX];   /* where servers accept it */

static int kcopy_handler(void *ctx, const ipc_event_t *ev)
{
	(void)ctx;
	if (ev->type != IPC_EV_CALL)
		return 0;
	if (ev->msg.method == IPC_M_DATA_WRITE) {
		/* Threads share kcopy_dst: its contents do not matter. */
		ipc_data_write_accept(ev, kcopy_dst, sizeof(kcopy_dst), NULL);
		return 0;
	}
	ipc_answer_0(ev->callid, EOK);      /* CONNECT_ME_TO and WL_M_STOP */
	return ev->msg.method == WL_M_STOP;
}

static long kcopy_serve(void *arg)
{
	(void)arg;
	return ipc_server_loop(kcopy_handler, NULL) == EOK ? 0 : 1;
}

int kcopy_start(unsigned servers)
{
	errno_t rc;

	snprintf(kcopy_name, sizeof(kcopy_name), "workload.%lu",
		 (unsigned long)sys_task_id());
	rc = service_register(kcopy_name);
	for (; rc == EOK && kcopy_count < servers; kcopy_count++)
		rc = thread_start(kcopy_serve, NULL, &kcopy_threads[kcopy_count]);
	return rc;
}

int kcopy_connect(int *phone)
{
	return service_connect(kcopy_name, phone);
}

void kcopy_stop(void)
{
	int phone;

	if (!kcopy_count || kcopy_connect(&phone) != EOK)
		return;                  /* the threads end with the task */
	for (unsigned i = 0; i < kcopy_count; i++)
		ipc_call_sync(phone, WL_M_STOP, 0, 0, 0, 0, 0, NULL);
	sys_ipc_hangup(phone);
	for (unsigned i = 0; i < kcopy_count; i++)
		thread_join(kcopy_threads[i], NULL);
	kcopy_count = 0;
}

int kcopy_once(int phone)
{
	errno_t rc = ipc_data_write(phone, kcopy_src, sizeof(kcopy_src));

	if (rc != EOK)
		kcopy_error = true;
	return rc;
}

bool kcopy_failed(void)
{
	return kcopy_error;
}
