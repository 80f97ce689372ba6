/*
 * ns: the naming service. The kernel starts it before init and connects
 * phone 0 (IPC_NS_PHONE) of every later task to it.
 *
 *   IPC_M_CONNECT_TO_ME(name)  register the caller as the server of name:
 *                              ns answers EOK and so gets a phone to it;
 *                              EEXIST if a live task serves name already,
 *                              EINVAL for a malformed name, ELIMIT when full
 *                              or when the caller serves LIMIT_NS_NAMES
 *                              names already
 *   IPC_M_CONNECT_ME_TO(name)  forwarded unchanged to name's server, whose
 *                              EOK answer gives the caller a phone to it;
 *                              ENOENT if nobody serves name, ELIMIT if the
 *                              server's answerbox is full
 *   anything else              ENOTSUP
 *
 * Names are packed into the five argument words as <ipc.h> describes.
 * On each registration's phone ns sends one NS_M_WATCH call that the
 * server leaves unanswered; the kernel answers it EHANGUP when the server
 * dies and ns forgets the server then. Should a server answer it, ns
 * falls back to checking that the task is alive (SYS_TASK_INFO: it has
 * threads) whenever the name is looked up or hung up on.
 *
 * ns never touches client memory (no data transfers), answers every call
 * and keeps no per-client state, so no client can make it fail.
 */
#include <abi/limits.h>
#include <ipc.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define NS_SERVICES (IPC_MAX_PHONES - 1)

typedef struct service {
	char name[IPC_NAME_MAX + 1];
	int phone;                  /* ns's phone to the server; -1: free slot */
	task_id_t task;             /* the server */
	ipc_callid_t watch;         /* the NS_M_WATCH call, 0 if none pending */
} service_t;

static service_t services[NS_SERVICES];
static bool verbose;

static void usage(FILE *out)
{
	fprintf(out, "usage: ns [-h] [-v]\n"
		"  the naming service (started by the kernel)\n"
		"  -v  log registrations and departures\n");
}

static bool task_alive(task_id_t id)
{
	task_info_t info;

	return sys_task_info(id, &info) == EOK && info.threads > 0;
}

static service_t *find_name(const char *name)
{
	for (int i = 0; i < NS_SERVICES; i++)
		if (services[i].phone >= 0 && !strcmp(services[i].name, name))
			return &services[i];
	return NULL;
}

static service_t *find_free(void)
{
	for (int i = 0; i < NS_SERVICES; i++)
		if (services[i].phone < 0)
			return &services[i];
	return NULL;
}

static void forget(service_t *s, const char *why)
{
	if (verbose)
		printf("ns: %s (task %lu) %s\n", s->name, (unsigned long)s->task, why);
	sys_ipc_hangup(s->phone);
	memset(s, 0, sizeof(*s));
	s->phone = -1;
}

/* Names registered by task. */
static int names_of(task_id_t task)
{
	int n = 0;

	for (int i = 0; i < NS_SERVICES; i++)
		n += services[i].phone >= 0 && services[i].task == task;
	return n;
}

/* A registered service that is still there (forgotten if its task died). */
static service_t *lookup(const char *name)
{
	service_t *s = find_name(name);

	if (s && !task_alive(s->task)) {
		forget(s, "is gone");
		s = NULL;
	}
	return s;
}

/* IPC_M_CONNECT_TO_ME: register the caller under the name in the args. */
static void ns_register(const ipc_event_t *ev)
{
	char name[IPC_NAME_MAX + 1];
	service_t *s;
	int phone;

	if (ipc_name_unpack(ev->msg.args, name) != EOK) {
		ipc_answer_0(ev->callid, EINVAL);
		return;
	}
	if (lookup(name)) {
		ipc_answer_0(ev->callid, EEXIST);
		return;
	}
	if (names_of(ev->sender) >= LIMIT_NS_NAMES || !(s = find_free())) {
		ipc_answer_0(ev->callid, ELIMIT);
		return;
	}
	ipc_msg_t ok = { .method = EOK };
	if (sys_ipc_answer(ev->callid, &ok, &phone) != EOK || phone < 0)
		return;                     /* the kernel answered it with the error */
	strcpy(s->name, name);
	s->phone = phone;
	s->task = ev->sender;
	if (ipc_call_async(phone, NS_M_WATCH, 0, 0, 0, 0, 0, &s->watch) != EOK)
		s->watch = 0;
	if (verbose)
		printf("ns: %s registered by task %lu\n", name, (unsigned long)s->task);
}

/* IPC_M_CONNECT_ME_TO: hand the call to the server of the name in the args. */
static void ns_connect(const ipc_event_t *ev)
{
	char name[IPC_NAME_MAX + 1];
	service_t *s;

	if (ipc_name_unpack(ev->msg.args, name) != EOK) {
		ipc_answer_0(ev->callid, EINVAL);
		return;
	}
	if (!(s = lookup(name))) {
		ipc_answer_0(ev->callid, ENOENT);
		return;
	}
	errno_t rc = sys_ipc_forward(ev->callid, s->phone, 0, 0);
	if (rc == ELIMIT) {                 /* its box is full: busy, not gone */
		ipc_answer_0(ev->callid, ELIMIT);
	} else if (rc != EOK) {             /* still ours */
		forget(s, "cannot be reached");
		ipc_answer_0(ev->callid, ENOENT);
	}
}

static void ns_call(const ipc_event_t *ev)
{
	switch (ev->msg.method) {
	case IPC_M_CONNECT_TO_ME:
		ns_register(ev);
		break;
	case IPC_M_CONNECT_ME_TO:
		ns_connect(ev);
		break;
	default:
		ipc_answer_0(ev->callid, ENOTSUP);
	}
}

/* The answer to a watch call: EHANGUP means its server died. */
static void ns_answer(const ipc_event_t *ev)
{
	for (int i = 0; i < NS_SERVICES; i++) {
		service_t *s = &services[i];
		if (s->phone < 0 || s->watch != ev->callid)
			continue;
		s->watch = 0;
		if ((errno_t)ev->msg.method == EHANGUP)
			forget(s, "died");
		return;
	}
}

/* A task hung up on us: if it was a server and is dead, forget it. */
static void ns_hungup(const ipc_event_t *ev)
{
	task_id_t task = ev->msg.args[1];

	for (int i = 0; i < NS_SERVICES; i++)
		if (services[i].phone >= 0 && services[i].task == task &&
		    !task_alive(task))
			forget(&services[i], "hung up and died");
}

static void ns_event(const ipc_event_t *ev)
{
	if (ev->type == IPC_EV_CALL)
		ns_call(ev);
	else if (ev->type == IPC_EV_ANSWER)
		ns_answer(ev);
	else if (ev->type == IPC_EV_NOTIFY && ev->msg.method == IPC_M_PHONE_HUNGUP)
		ns_hungup(ev);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	for (int i = 0; i < NS_SERVICES; i++)
		services[i].phone = -1;
	for (;;) {
		ipc_event_t ev;
		errno_t rc = sys_ipc_wait(&ev, 0, IPC_WAIT_ALL, 0);
		if (rc == EINTR)
			return 0;                   /* killed */
		if (rc == EOK)
			ns_event(&ev);
	}
}
