/*
 * /bin/fs: anonymous pipes. A pipe is a node named "/pipe/ID" whose data
 * is a ring of FS_PIPE_BUF bytes (charged to the tmpfs like a file's).
 * Reads of an empty pipe and writes to a full one are not answered at
 * once: their events wait in the pipe's queues, and every change that may
 * let one go on (data, room, an end closing, the name going) runs
 * pipe_kick, which answers them in arrival order. A pipe belongs to its
 * maker's task tree: only tasks in it may open or unlink the name, and
 * the name counts against that tree's FS_TREE_PIPES.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tasktree.h>

#include "serve.h"

/* A call waiting for data or room, and the handle it came through. */
typedef struct waiter {
	ipc_event_t ev;
	handle_t *h;
} waiter_t;

typedef struct queue {
	unsigned count;
	waiter_t w[FS_PIPE_WAITING];  /* w[0] came first */
} queue_t;

struct pipe {
	uint64_t owner;               /* the connection that made it */
	task_id_t root;               /* its maker's quota root: who may use it */
	fs_tree_t *tree;              /* charged for the name (while named) */
	size_t head;                  /* ring index of the oldest byte */
	unsigned readers, writers;    /* open ends */
	bool had_reader, had_writer;  /* was one ever opened? */
	queue_t reads, writes;
};

unsigned fs_pipes_alive;
static uint64_t next_id = 1;
/* Data on its way between a caller and a ring (one server thread). */
static uint8_t bounce[FS_PIPE_BUF];

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------ the ring */

/* Copy the len oldest bytes of n into bounce. */
static void ring_peek(const node_t *n, size_t len)
{
	size_t head = n->pipe->head;
	size_t first = min_size(len, n->cap - head);

	memcpy(bounce, n->data + head, first);
	memcpy(bounce + first, n->data, len - first);
}

/* Forget the len oldest bytes of n. */
static void ring_drop(node_t *n, size_t len)
{
	n->pipe->head = (n->pipe->head + len) % n->cap;
	n->size -= len;
}

/* Append len bytes of bounce to n (they fit). */
static void ring_put(node_t *n, size_t len)
{
	size_t tail = (n->pipe->head + n->size) % n->cap;
	size_t first = min_size(len, n->cap - tail);

	memcpy(n->data + tail, bounce, first);
	memcpy(n->data, bounce + first, len - first);
	n->size += len;
}

/* ------------------------------------------------------ waiting calls */

static bool queue_add(queue_t *q, handle_t *h, const ipc_event_t *ev)
{
	if (q->count == FS_PIPE_WAITING)
		return false;
	q->w[q->count++] = (waiter_t){ .ev = *ev, .h = h };
	return true;
}

/* Take out the i'th waiter of q into *w. */
static void queue_take(queue_t *q, unsigned i, waiter_t *w)
{
	*w = q->w[i];
	q->count--;
	memmove(&q->w[i], &q->w[i + 1], (q->count - i) * sizeof(q->w[0]));
}

/* Answer the calls in q that came through h with why. */
static void queue_cancel(queue_t *q, const handle_t *h, errno_t why)
{
	waiter_t w;

	for (unsigned i = 0; i < q->count;) {
		if (q->w[i].h != h) {
			i++;
			continue;
		}
		queue_take(q, i, &w);
		ipc_answer_0(w.ev.callid, why);
	}
}

/* ------------------------------------------------------ reads and writes */

/* Reads get 0 bytes: nothing is buffered and nothing can come. */
static bool at_eof(const node_t *n)
{
	const struct pipe *p = n->pipe;

	return n->size == 0 && p->writers == 0 && (p->had_writer || !n->linked);
}

/* Writes get EPIPE: nobody reads and nobody can come to. */
static bool broken(const node_t *n)
{
	const struct pipe *p = n->pipe;

	return p->readers == 0 && (p->had_reader || !n->linked);
}

/* Answer the read ev with what is buffered, up to what it asks. */
static void serve_read(node_t *n, const ipc_event_t *ev)
{
	size_t len = min_size(n->size, (size_t)ev->msg.args[1]);

	ring_peek(n, len);
	if (ipc_data_read_answer(ev, bounce, len) == EOK)
		ring_drop(n, len);         /* not if the caller's buffer was bad */
}

/* Answer the write ev: as much as there is room for, or EPIPE. */
static void serve_write(node_t *n, const ipc_event_t *ev)
{
	size_t got = 0;

	if (broken(n)) {
		ipc_answer_0(ev->callid, EPIPE);
		return;
	}
	if (ipc_data_write_accept(ev, bounce, n->cap - n->size, &got) == EOK)
		ring_put(n, got);
}

/* Answer the waiting calls of n that can go on now, oldest first. */
static void pipe_kick(node_t *n)
{
	struct pipe *p = n->pipe;
	waiter_t w;

	for (;;) {
		if (p->reads.count && (n->size > 0 || at_eof(n))) {
			queue_take(&p->reads, 0, &w);
			serve_read(n, &w.ev);
		} else if (p->writes.count && (n->size < n->cap || broken(n))) {
			queue_take(&p->writes, 0, &w);
			serve_write(n, &w.ev);
		} else {
			return;
		}
	}
}

void fs_pipe_read(handle_t *h, const ipc_event_t *ev)
{
	node_t *n = h->node;

	if (ev->msg.args[1] == 0)
		serve_read(n, ev);
	else if (!queue_add(&n->pipe->reads, h, ev))
		ipc_answer_0(ev->callid, ELIMIT);
	pipe_kick(n);
}

void fs_pipe_write(handle_t *h, const ipc_event_t *ev)
{
	node_t *n = h->node;

	if (ev->msg.args[1] == 0)
		serve_write(n, ev);
	else if (!queue_add(&n->pipe->writes, h, ev))
		ipc_answer_0(ev->callid, ELIMIT);
	pipe_kick(n);
}

/* ------------------------------------------------------ life */

/* A new node /pipe/ID with its ring, or the error. */
static errno_t pipe_node(node_t **n)
{
	char name[24];

	snprintf(name, sizeof(name), "%lu", (unsigned long)next_id);
	errno_t rc = fs_node_create(fs_pipe_dir, name, FS_TYPE_PIPE, false, n);
	if (rc == EOK && (rc = fs_file_reserve(*n, FS_PIPE_BUF)) != EOK)
		fs_node_unlink(*n);
	return rc;
}

errno_t fs_pipe_make(client_t *c, uint64_t *id)
{
	node_t *n = NULL;
	errno_t rc = fs_quota_pipe_take(c->task);

	if (rc != EOK)
		return rc;
	struct pipe *p = calloc(1, sizeof(*p));
	rc = p ? pipe_node(&n) : ENOSPC;
	if (rc != EOK) {
		free(p);
		fs_quota_pipe_give(c->task->tree);
		return rc;
	}
	p->owner = c->conn;
	p->root = c->task->qroot;
	p->tree = c->task->tree;
	n->pipe = p;
	n->mode = 0660;
	fs_pipes_alive++;
	*id = next_id++;
	return EOK;
}

/* May c use pipe n (c's task is in the tree of n's maker)? EPERM if not. */
static errno_t pipe_may(const client_t *c, const node_t *n)
{
	return task_in_tree(c->task->id, n->pipe->root) ? EOK : EPERM;
}

errno_t fs_pipe_open(client_t *c, node_t *n, uint32_t flags, uint64_t *h)
{
	uint32_t mode = flags & O_ACCMODE;

	if ((flags & (O_CREAT | O_EXCL | O_TRUNC)) ||
	    (mode != O_RDONLY && mode != O_WRONLY))
		return EINVAL;
	if (flags & O_DIRECTORY)
		return ENOTDIR;
	errno_t rc = pipe_may(c, n);
	if (rc == EOK)
		rc = fs_handle_new(c, n, flags, h);
	if (rc != EOK)
		return rc;
	if (mode == O_RDONLY) {
		n->pipe->readers++;
		n->pipe->had_reader = true;
	} else {
		n->pipe->writers++;
		n->pipe->had_writer = true;
	}
	return EOK;
}

void fs_pipe_close(handle_t *h, errno_t why)
{
	node_t *n = h->node;
	struct pipe *p = n->pipe;

	queue_cancel(&p->reads, h, why);
	queue_cancel(&p->writes, h, why);
	if ((h->flags & O_ACCMODE) == O_RDONLY)
		p->readers--;
	else
		p->writers--;
	pipe_kick(n);
}

void fs_pipe_unlink(node_t *n)
{
	bool held = n->refs > 0;

	fs_quota_pipe_give(n->pipe->tree);
	fs_node_unlink(n);                 /* frees n if nothing holds it */
	if (held)
		pipe_kick(n);
}

errno_t fs_pipe_remove(const client_t *c, node_t *n)
{
	errno_t rc = pipe_may(c, n);

	if (rc == EOK)
		fs_pipe_unlink(n);
	return rc;
}

void fs_pipe_hangup(uint64_t conn)
{
	node_t *n = fs_pipe_dir->children, *next;

	for (; n; n = next) {
		next = n->next;
		if (n->pipe && n->pipe->owner == conn)
			fs_pipe_unlink(n);
	}
}

void fs_pipe_free(struct pipe *p)
{
	free(p);
	fs_pipes_alive--;
}
