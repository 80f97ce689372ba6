/*
 * ns: the naming service. The kernel starts it before init and connects
 * phone 0 (IPC_NS_PHONE) of every later task to it.
 *
 *   IPC_M_CONNECT_TO_ME(name)  register the caller as the server of name:
 *                              ns answers EOK and so gets a phone to it;
 *                              EEXIST if a live task serves name already,
 *                              EINVAL for a malformed name, ELIMIT when full
 *                              or when the caller serves LIMIT_NS_NAMES
 *                              names already, or its tree holds
 *                              LIMIT_NS_TREE_NAMES (see below)
 *   IPC_M_CONNECT_ME_TO(name)  forwarded unchanged to name's server, whose
 *                              EOK answer gives the caller a phone to it;
 *                              ENOENT if nobody serves name, ELIMIT if the
 *                              server's answerbox is full
 *   NS_M_RELEASE(name)         the caller gives up its registration of
 *                              name: EOK, or ENOENT if it is not the server
 *   NS_M_STATUS(task)          usage (task 0: the caller): args[0] slots
 *                              taken, [1] names task serves, [2] names of
 *                              its tree, [3] the tree's root, [4] slots its
 *                              tree may still take
 *   anything else              ENOTSUP
 *
 * Names are packed into the five argument words as <ipc.h> describes.
 * On each registration's phone ns sends one NS_M_WATCH call that the
 * server leaves unanswered; the kernel answers it EHANGUP when the server
 * dies and ns forgets the server then. Should a server answer it, ns
 * falls back to checking that the task is alive (SYS_TASK_INFO: it has
 * threads) whenever the name is looked up or hung up on.
 *
 * A server that dies without releasing its name leaves it held: nobody
 * can connect to it, and only a task that may stand in for the dead
 * server (spawned by the same parent with at least its permissions, or
 * holding PERM_SYSTEM) can register it again (else EPERM), so no other
 * task can take over a dead server's clients. A parent's dead children
 * hold at most LIMIT_NS_NAMES names (older ones are let go), and the
 * names held for a dead parent's children are let go when ns is full.
 *
 * Quotas per task tree (issue 27): names are charged to the tree of
 * their server (task_quota_root, recorded at registration, so held names
 * count too). The trees of init's children (the system servers, the
 * shell and what it runs with its own permissions) are system trees; any
 * other tree (a restricted program and its children, an orphan) holds at
 * most LIMIT_NS_TREE_NAMES names, and all of them together leave
 * LIMIT_NS_RESERVED slots free for the system trees, so fs and the
 * console always find room. Beyond: ELIMIT for that registration.
 *
 * ns never touches client memory (no data transfers), answers every call
 * and keeps no per-client state, so no client can make it fail.
 */
#include <abi/limits.h>
#include <ipc.h>
#include <stdio.h>
#include <string.h>
#include <tasktree.h>
#include <vernier.h>

#define NS_SERVICES (IPC_MAX_PHONES - 1)

typedef struct service {
	char name[IPC_NAME_MAX + 1];
	int phone;                  /* ns's phone to the server; -1: free slot */
	task_id_t task;             /* the server */
	ipc_callid_t watch;         /* the NS_M_WATCH call, 0 if none pending */
	bool held;                  /* its server died: reserved, phone -1 */
	task_id_t parent;           /* the server's parent */
	uint32_t perms;             /* the server's permissions */
	uint64_t order;             /* registration order (oldest held goes first) */
	task_id_t tree;             /* the tree it is charged to (task_quota_root) */
} service_t;

static service_t services[NS_SERVICES];
static bool verbose;
static uint64_t next_order = 1;

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

static service_t *find_held(const char *name)
{
	for (int i = 0; i < NS_SERVICES; i++)
		if (services[i].held && !strcmp(services[i].name, name))
			return &services[i];
	return NULL;
}

static void clear(service_t *s)
{
	memset(s, 0, sizeof(*s));
	s->phone = -1;
}

/* The oldest name held for a dead server whose parent is parent (0: any dead parent). */
static service_t *oldest_held(task_id_t parent, int *count)
{
	service_t *old = NULL;

	*count = 0;
	for (int i = 0; i < NS_SERVICES; i++) {
		service_t *s = &services[i];
		if (!s->held || (parent ? s->parent != parent : task_alive(s->parent)))
			continue;
		(*count)++;
		if (!old || s->order < old->order)
			old = s;
	}
	return old;
}

/* Slots taken (registered or held). */
static int slots_used(void)
{
	int n = 0;

	for (int i = 0; i < NS_SERVICES; i++)
		n += services[i].phone >= 0 || services[i].held;
	return n;
}

/* Is tree a system tree (its root's parent is init, which the kernel started)? */
static bool tree_is_system(task_id_t tree)
{
	task_info_t info;

	if (sys_task_info(tree, &info) != EOK || info.parent == 0)
		return false;
	return sys_task_info(info.parent, &info) == EOK && info.parent == 0;
}

/* Slots tree may take: all for a system tree, less the reserve for others. */
static int slots_for(task_id_t tree)
{
	return tree_is_system(tree) ? NS_SERVICES : NS_SERVICES - LIMIT_NS_RESERVED;
}

/*
 * A free slot within tree's share; when there is none, one held for a dead
 * parent's child.
 */
static service_t *find_free(task_id_t tree)
{
	int n;

	if (slots_used() < slots_for(tree))
		for (int i = 0; i < NS_SERVICES; i++)
			if (services[i].phone < 0 && !services[i].held)
				return &services[i];
	service_t *s = oldest_held(0, &n);
	if (s)
		clear(s);
	return s;
}

/* Its server is gone: keep the name held (its parent's oldest beyond the cap goes). */
static void forget(service_t *s, const char *why)
{
	int n;

	if (verbose)
		printf("ns: %s (task %lu) %s\n", s->name, (unsigned long)s->task, why);
	sys_ipc_hangup(s->phone);
	s->phone = -1;
	s->watch = 0;
	service_t *old = oldest_held(s->parent, &n);
	if (n >= LIMIT_NS_NAMES && old)
		clear(old);
	s->held = true;
}

/* May task (info) register the name s holds for its dead server? */
static bool may_take(const service_t *s, const task_info_t *info)
{
	if (info->perms & PERM_SYSTEM)
		return true;
	return info->parent == s->parent && (info->perms & s->perms) == s->perms;
}

/* Names registered by task. */
static int names_of(task_id_t task)
{
	int n = 0;

	for (int i = 0; i < NS_SERVICES; i++)
		n += services[i].phone >= 0 && services[i].task == task;
	return n;
}

/* Names (registered or held) charged to tree. */
static int names_of_tree(task_id_t tree)
{
	int n = 0;

	for (int i = 0; i < NS_SERVICES; i++)
		n += (services[i].phone >= 0 || services[i].held) && services[i].tree == tree;
	return n;
}

/* May tree take one more name (a held slot of its own: held true)? */
static bool tree_has_room(task_id_t tree, bool held)
{
	return held || tree_is_system(tree) || names_of_tree(tree) < LIMIT_NS_TREE_NAMES;
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
	task_info_t info;
	if (sys_task_info(ev->sender, &info) != EOK) {
		ipc_answer_0(ev->callid, ESRCH);
		return;
	}
	service_t *held = find_held(name);
	if (held && !may_take(held, &info)) {
		ipc_answer_0(ev->callid, EPERM);
		return;
	}
	task_id_t tree = task_quota_root(ev->sender);
	if (names_of(ev->sender) >= LIMIT_NS_NAMES || !tree_has_room(tree, held) ||
	    !(s = held ? held : find_free(tree))) {
		ipc_answer_0(ev->callid, ELIMIT);
		return;
	}
	ipc_msg_t ok = { .method = EOK };
	if (sys_ipc_answer(ev->callid, &ok, &phone) != EOK || phone < 0)
		return;                     /* the kernel answered it with the error */
	clear(s);
	strcpy(s->name, name);
	s->phone = phone;
	s->task = ev->sender;
	s->parent = info.parent;
	s->perms = info.perms;
	s->order = next_order++;
	s->tree = tree;
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

/* NS_M_RELEASE: the server gives its name up. */
static void ns_release(const ipc_event_t *ev)
{
	char name[IPC_NAME_MAX + 1];
	service_t *s;

	if (ipc_name_unpack(ev->msg.args, name) != EOK) {
		ipc_answer_0(ev->callid, EINVAL);
		return;
	}
	if (!(s = find_name(name)) || s->task != ev->sender) {
		ipc_answer_0(ev->callid, ENOENT);
		return;
	}
	if (verbose)
		printf("ns: %s released by task %lu\n", name, (unsigned long)s->task);
	sys_ipc_hangup(s->phone);
	clear(s);
	ipc_answer_0(ev->callid, EOK);
}

/* NS_M_STATUS(task): usage as task sees it. */
static void ns_status_call(const ipc_event_t *ev)
{
	task_id_t task = ev->msg.args[0] ? ev->msg.args[0] : ev->sender;
	task_id_t tree = task_quota_root(task);
	int used = slots_used(), share = slots_for(tree), mine = names_of_tree(tree);
	int room = share > used ? share - used : 0;

	if (!tree_is_system(tree) && LIMIT_NS_TREE_NAMES - mine < room)
		room = mine < LIMIT_NS_TREE_NAMES ? LIMIT_NS_TREE_NAMES - mine : 0;
	ipc_answer(ev->callid, EOK, used, names_of(task), mine, tree, room);
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
	case NS_M_RELEASE:
		ns_release(ev);
		break;
	case NS_M_STATUS:
		ns_status_call(ev);
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
