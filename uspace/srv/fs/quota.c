/*
 * /bin/fs: what each client task and each task tree holds (connections,
 * handles, named pipes), bounded per task and per tree (serve.h's
 * FS_TASK_* and FS_TREE_*; ELIMIT beyond).
 *
 * A task is known by the sender the kernel names in the first call on a
 * connection; its tree is its task_quota_root() (<tasktree.h>), looked up
 * once when the task makes its first connection and kept while it has
 * one, so a task whose parent exits stays charged where it was. Tasks
 * below an orphan (a task whose parent ended) are charged to one shared
 * bucket, FS_TREE_ORPHANS, so that a task cannot make trees of its own by
 * leaving children behind. Records live while their task has a
 * connection with state; at most FS_CLIENTS of each.
 */
#include <string.h>
#include <tasktree.h>
#include <vernier.h>

#include "serve.h"

static fs_task_t tasks[FS_CLIENTS];
static fs_tree_t trees[FS_CLIENTS];

/* The topmost ancestor of t (whose parent is the kernel); 0 if unknown. */
static task_id_t task_top(task_id_t t)
{
	task_info_t info;

	for (int i = 0; i < TASK_TREE_DEPTH; i++) {
		if (sys_task_info(t, &info) != EOK)
			return 0;
		if (info.parent == 0)
			return t;
		t = info.parent;
	}
	return 0;
}

/*
 * The tree charged for sender, whose quota root is root: root, or
 * FS_TREE_ORPHANS when sender's ancestry ends in an orphan. The kernel
 * starts ns, then init, which starts fs: those have the lowest ids and
 * every other task whose parent is the kernel is an orphan.
 */
static task_id_t tree_bucket(task_id_t sender, task_id_t root)
{
	static task_id_t init_id;
	task_id_t top = task_top(sender);

	if (!init_id)
		init_id = task_top(sys_task_id());
	return top == 0 || top > init_id ? FS_TREE_ORPHANS : root;
}

/* The record of bucket id (made if new; never NULL: see FS_CLIENTS). */
static fs_tree_t *tree_get(task_id_t id)
{
	fs_tree_t *free_slot = NULL;

	for (int i = 0; i < FS_CLIENTS; i++) {
		if (trees[i].used && trees[i].root == id)
			return &trees[i];
		if (!trees[i].used && !free_slot)
			free_slot = &trees[i];
	}
	*free_slot = (fs_tree_t){ .used = true, .root = id };
	return free_slot;
}

static fs_task_t *task_find(task_id_t id)
{
	for (int i = 0; i < FS_CLIENTS; i++)
		if (tasks[i].used && tasks[i].id == id)
			return &tasks[i];
	return NULL;
}

/* A new record for task id (a slot is free: fewer than FS_CLIENTS connections). */
static fs_task_t *task_new(task_id_t id)
{
	fs_task_t *t = NULL;

	for (int i = 0; i < FS_CLIENTS && !t; i++)
		if (!tasks[i].used)
			t = &tasks[i];
	task_id_t root = task_quota_root(id);
	*t = (fs_task_t){ .used = true, .id = id, .qroot = root,
			  .tree = tree_get(tree_bucket(id, root)) };
	t->tree->tasks++;
	return t;
}

errno_t fs_quota_conn_new(task_id_t sender, fs_task_t **out)
{
	fs_task_t *t = task_find(sender);

	if (!t)
		t = task_new(sender);
	if (t->conns >= FS_TASK_CONNS || t->tree->conns >= FS_TREE_CONNS) {
		if (t->conns == 0)
			fs_quota_conn_drop(t);  /* a new record: forget it */
		else
			t->tree->refused++;
		return ELIMIT;
	}
	t->conns++;
	t->tree->conns++;
	*out = t;
	return EOK;
}

void fs_quota_conn_drop(fs_task_t *t)
{
	fs_tree_t *tr = t->tree;

	if (t->conns > 0) {
		t->conns--;
		tr->conns--;
	}
	if (t->conns > 0)
		return;
	t->used = false;
	if (--tr->tasks == 0)
		tr->used = false;
}

errno_t fs_quota_handle_check(fs_task_t *t)
{
	if (t->handles < FS_TASK_HANDLES && t->tree->handles < FS_TREE_HANDLES &&
	    fs_handles_open < FS_HANDLES)
		return EOK;
	t->tree->refused++;
	return ELIMIT;
}

void fs_quota_handle_take(fs_task_t *t)
{
	t->handles++;
	t->tree->handles++;
	fs_handles_open++;
}

void fs_quota_handle_give(fs_task_t *t)
{
	t->handles--;
	t->tree->handles--;
	fs_handles_open--;
}

errno_t fs_quota_pipe_take(fs_task_t *t)
{
	if (t->tree->pipes >= FS_TREE_PIPES) {
		t->tree->refused++;
		return ELIMIT;
	}
	t->tree->pipes++;
	return EOK;
}

void fs_quota_pipe_give(fs_tree_t *tr)
{
	tr->pipes--;
}

/* The usage of tree tr as the protocol reports it. */
static void usage_tree(const fs_tree_t *tr, fs_usage_tree_t *u)
{
	*u = (fs_usage_tree_t){ .root = tr->root, .tasks = tr->tasks,
				.conns = tr->conns, .handles = tr->handles,
				.pipes = tr->pipes, .refused = tr->refused };
}

void fs_quota_usage(fs_usage_t *u, uint64_t first)
{
	uint64_t seen = 0;

	for (int i = 0; i < FS_CLIENTS; i++) {
		if (!trees[i].used)
			continue;
		if (seen >= first && u->count < FS_USAGE_TREES)
			usage_tree(&trees[i], &u->tree[u->count++]);
		seen++;
	}
	u->trees = (uint32_t)seen;
}
