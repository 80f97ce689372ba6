/*
 * The statistical profiler's client side (see <prof.h>): each function
 * is one synchronous kbox call.
 */
#include <ipc.h>
#include <prof.h>
#include <string.h>

errno_t prof_connect(task_id_t task, int *phone)
{
	return sys_ipc_connect_kbox(task, phone);
}

errno_t prof_disconnect(int phone)
{
	return sys_ipc_hangup(phone);
}

/* A BEGIN method with p's arguments; the answer's source and rate. */
static errno_t begin(int phone, uint64_t method, const prof_params_t *p,
		     unsigned *source, unsigned *hz)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(phone, method, p->source, p->hz, p->flags,
				   p->depth, 0, &a);

	if (rc == EOK && source)
		*source = (unsigned)a.args[0];
	if (rc == EOK && hz)
		*hz = (unsigned)a.args[1];
	return rc;
}

errno_t prof_task_begin(int phone, const prof_params_t *p, unsigned *source,
			unsigned *hz)
{
	return begin(phone, KBOX_PROF_TASK_BEGIN, p, source, hz);
}

errno_t prof_system_begin(int phone, const prof_params_t *p, unsigned *source,
			  unsigned *hz)
{
	return begin(phone, KBOX_PROF_SYSTEM_BEGIN, p, source, hz);
}

errno_t prof_end(int phone)
{
	return ipc_call_sync(phone, KBOX_PROF_END, 0, 0, 0, 0, 0, NULL);
}

errno_t prof_pause(int phone)
{
	return ipc_call_sync(phone, KBOX_PROF_PAUSE, 0, 0, 0, 0, 0, NULL);
}

errno_t prof_resume(int phone)
{
	return ipc_call_sync(phone, KBOX_PROF_RESUME, 0, 0, 0, 0, 0, NULL);
}

errno_t prof_read(int phone, void *buf, size_t size, size_t *got,
		  unsigned *state)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(phone, KBOX_PROF_DATA_READ, (uint64_t)buf,
				   size, 0, 0, 0, &a);

	if (got)
		*got = rc == EOK ? (size_t)a.args[0] : 0;
	if (state && rc == EOK)
		*state = (unsigned)a.args[1];
	return rc;
}

errno_t prof_status(int phone, prof_status_t *st)
{
	memset(st, 0, sizeof(*st));
	return ipc_call_sync(phone, KBOX_PROF_STATUS, (uint64_t)st, sizeof(*st),
			     0, 0, 0, NULL);
}

errno_t prof_task_start(int phone)
{
	return ipc_call_sync(phone, KBOX_TASK_START, 0, 0, 0, 0, 0, NULL);
}
