/*
 * /bin/fs: the IPC side. Clients are known by connection id; each has a
 * staged path (or two) and handles, all dropped when it hangs up. Each
 * connection is charged to the task that made its first call (quota.c).
 */
#include <stdio.h>
#include <string.h>

#include "serve.h"

bool fs_verbose;
bool fs_have_initrd;
unsigned fs_handles_open;
unsigned fs_conns_open;

static client_t clients[FS_CLIENTS];
static handle_t handles[FS_HANDLES];

/* The state of connection conn, or NULL; a free slot to *free_slot. */
static client_t *client_find(uint64_t conn, client_t **free_slot)
{
	*free_slot = NULL;
	for (int i = 0; i < FS_CLIENTS; i++) {
		if (clients[i].used && clients[i].conn == conn)
			return &clients[i];
		if (!clients[i].used && !*free_slot)
			*free_slot = &clients[i];
	}
	return NULL;
}

/*
 * The state of ev's connection, created on its first call and charged to
 * its sender (NULL with *rc ELIMIT: no slot, or the sender's quota).
 */
static client_t *client_get(const ipc_event_t *ev, errno_t *rc)
{
	client_t *free_slot;
	client_t *c = client_find(ev->conn, &free_slot);
	fs_task_t *t;

	*rc = ELIMIT;
	if (c || !free_slot)
		return c;
	if ((*rc = fs_quota_conn_new(ev->sender, &t)) != EOK)
		return NULL;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->used = true;
	free_slot->conn = ev->conn;
	free_slot->task = t;
	fs_conns_open++;
	return free_slot;
}

/*
 * Connection conn hung up: close its handles (its waiting calls end with
 * EHANGUP), remove the names of its pipes and forget it.
 */
static void client_drop(uint64_t conn)
{
	client_t *free_slot;
	client_t *c = client_find(conn, &free_slot);

	if (!c)
		return;
	for (int i = 0; i < FS_HANDLES; i++)
		if (handles[i].used && handles[i].conn == conn)
			fs_handle_close(c, &handles[i], EHANGUP);
	fs_pipe_hangup(conn);
	if (fs_verbose)
		printf("fs: connection %lu hung up\n", (unsigned long)conn);
	fs_quota_conn_drop(c->task);
	fs_conns_open--;
	c->used = false;
}

handle_t *fs_handle_get(const client_t *c, uint64_t h)
{
	if (h >= FS_HANDLES || !handles[h].used || handles[h].conn != c->conn)
		return NULL;
	return &handles[h];
}

errno_t fs_handle_new(client_t *c, node_t *n, uint32_t flags, uint64_t *h)
{
	errno_t rc = fs_quota_handle_check(c->task);

	if (rc != EOK)
		return rc;
	for (int i = 0; i < FS_HANDLES; i++) {
		if (handles[i].used)
			continue;
		handles[i] = (handle_t){ .used = true, .conn = c->conn,
					 .flags = flags, .node = n };
		fs_node_get(n);
		fs_quota_handle_take(c->task);
		*h = (uint64_t)i;
		return EOK;
	}
	return ELIMIT;
}

void fs_handle_close(client_t *c, handle_t *h, errno_t why)
{
	if (h->node->type == FS_TYPE_PIPE)
		fs_pipe_close(h, why);
	fs_node_put(h->node);
	h->used = false;
	h->node = NULL;
	fs_quota_handle_give(c->task);
}

errno_t fs_take_path(client_t *c, bool second, char *out)
{
	bool *has = second ? &c->has_path2 : &c->has_path;

	if (!*has)
		return EINVAL;
	*has = false;
	strcpy(out, second ? c->path2 : c->path);
	return EOK;
}

/* DATA_WRITE of a path to stage (without its NUL). */
static void stage_path(client_t *c, const ipc_event_t *ev, bool second)
{
	char *buf = second ? c->path2 : c->path;
	bool *has = second ? &c->has_path2 : &c->has_path;
	size_t len = (size_t)ev->msg.args[1], got = 0;

	*has = false;
	if (len == 0 || len >= FS_PATH_MAX) {
		ipc_answer_0(ev->callid, EINVAL);
		return;
	}
	if (ipc_data_write_accept(ev, buf, len, &got) != EOK) {
		ipc_answer_0(ev->callid, EINVAL);  /* harmless if already answered */
		return;
	}
	buf[got] = '\0';
	*has = strlen(buf) == got;             /* a NUL inside: refused later */
}

static void data_write(client_t *c, const ipc_event_t *ev)
{
	switch (ev->msg.args[2]) {
	case FS_DW_PATH:
		stage_path(c, ev, false);
		break;
	case FS_DW_PATH2:
		stage_path(c, ev, true);
		break;
	case FS_DW_FILE:
		fs_dw_file(c, ev);
		break;
	default:
		ipc_answer_0(ev->callid, EINVAL);
	}
}

/* FS_DR_USAGE: the totals, limits and trees from args[4] on. */
static void dr_usage(const ipc_event_t *ev)
{
	static fs_usage_t u;
	size_t len = (size_t)ev->msg.args[1];

	u = (fs_usage_t){ .tmp_used = fs_tmp_used, .tmp_limit = fs_tmp_limit,
		.conns = fs_conns_open, .conns_max = FS_CLIENTS,
		.handles = fs_handles_open, .handles_max = FS_HANDLES,
		.task_conns_max = FS_TASK_CONNS, .tree_conns_max = FS_TREE_CONNS,
		.task_handles_max = FS_TASK_HANDLES,
		.tree_handles_max = FS_TREE_HANDLES,
		.tree_pipes_max = FS_TREE_PIPES, .pipes = fs_pipes_alive };
	fs_quota_usage(&u, ev->msg.args[4]);
	ipc_data_read_answer(ev, &u, len < sizeof(u) ? len : sizeof(u));
}

static void data_read(client_t *c, const ipc_event_t *ev)
{
	switch (ev->msg.args[2]) {
	case FS_DR_FILE:
		fs_dr_file(c, ev);
		break;
	case FS_DR_STAT:
		fs_dr_stat(c, ev);
		break;
	case FS_DR_READDIR:
		fs_dr_readdir(c, ev);
		break;
	case FS_DR_USAGE:
		dr_usage(ev);
		break;
	default:
		ipc_answer_0(ev->callid, EINVAL);
	}
}

static errno_t op_close(client_t *c, uint64_t h)
{
	handle_t *hd = fs_handle_get(c, h);

	if (!hd)
		return EINVAL;
	fs_handle_close(c, hd, EINVAL);
	return EOK;
}

/* The calls answered with a result and up to four words. */
static void simple_call(client_t *c, const ipc_event_t *ev)
{
	const uint64_t *a = ev->msg.args;
	uint64_t out[5] = { 0 };
	errno_t rc;

	switch (ev->msg.method) {
	case FS_M_OPEN: rc = fs_op_open(c, (uint32_t)a[0], &out[0]); break;
	case FS_M_CLOSE: rc = op_close(c, a[0]); break;
	case FS_M_MKDIR: rc = fs_op_mkdir(c); break;
	case FS_M_UNLINK: rc = fs_op_unlink(c, false); break;
	case FS_M_RMDIR: rc = fs_op_unlink(c, true); break;
	case FS_M_RENAME: rc = fs_op_rename(c); break;
	case FS_M_TRUNCATE: rc = fs_op_truncate(c, a[0], a[1]); break;
	case FS_M_MKPIPE: rc = fs_pipe_make(c, &out[0]); break;
	case FS_M_INFO:
		out[0] = fs_tmp_used;
		out[1] = fs_tmp_limit;
		out[2] = fs_handles_open;
		out[3] = fs_have_initrd;
		out[4] = fs_pipes_alive;
		rc = EOK;
		break;
	default: rc = ENOTSUP;
	}
	ipc_answer(ev->callid, rc, out[0], out[1], out[2], out[3], out[4]);
}

static void call(const ipc_event_t *ev)
{
	if (ev->msg.method == IPC_M_CONNECT_ME_TO) {
		ipc_answer_0(ev->callid, EOK);
		return;
	}
	errno_t rc;
	client_t *c = client_get(ev, &rc);
	if (!c) {
		ipc_answer_0(ev->callid, rc);
		return;
	}
	if (ev->msg.method == IPC_M_DATA_WRITE)
		data_write(c, ev);
	else if (ev->msg.method == IPC_M_DATA_READ)
		data_read(c, ev);
	else
		simple_call(c, ev);
}

int fs_handle_event(void *ctx, const ipc_event_t *ev)
{
	(void)ctx;
	if (ev->type == IPC_EV_CALL)
		call(ev);
	else if (ev->type == IPC_EV_NOTIFY &&
		 ev->msg.method == IPC_M_PHONE_HUNGUP)
		client_drop(ev->msg.args[0]);
	return 0;
}
