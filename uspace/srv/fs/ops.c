/* /bin/fs: the file system calls of <fs_proto.h> on the node tree. */
#include <fcntl.h>
#include <string.h>

#include "serve.h"

static const uint8_t empty[1];

static bool wants_write(uint32_t flags)
{
	return (flags & O_ACCMODE) != O_RDONLY;
}

static bool may_read(const handle_t *h)
{
	return (h->flags & O_ACCMODE) != O_WRONLY;
}

/* Can entries be added to or removed from directory dir? */
static errno_t dir_writable(const node_t *dir)
{
	return dir->ro ? EPERM : EOK;
}

static errno_t open_existing(node_t *n, uint32_t flags)
{
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return EEXIST;
	if (n->type == FS_TYPE_DIR)
		return wants_write(flags) || (flags & O_TRUNC) ? EISDIR : EOK;
	if (flags & O_DIRECTORY)
		return ENOTDIR;
	if (wants_write(flags) && n->ro)
		return EPERM;
	if (wants_write(flags) && (flags & O_TRUNC))
		return fs_file_resize(n, 0);
	return EOK;
}

static errno_t open_create(lookup_t *l, uint32_t flags, node_t **n)
{
	if (!l->parent)
		return ENOENT;
	if ((flags & O_DIRECTORY) || l->parent == fs_pipe_dir)
		return EINVAL;             /* pipes come from FS_M_MKPIPE */
	if (dir_writable(l->parent) != EOK)
		return EPERM;
	return fs_node_create(l->parent, l->last, FS_TYPE_FILE, false, n);
}

errno_t fs_op_open(client_t *c, uint32_t flags, uint64_t *h)
{
	char path[FS_PATH_MAX];
	lookup_t l;
	errno_t rc = fs_take_path(c, false, path);

	if (rc != EOK)
		return rc;
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return EINVAL;
	if (fs_quota_handle_check(c->task) != EOK)
		return ELIMIT;
	rc = fs_lookup(path, &l);
	if (rc == EOK && l.node->type == FS_TYPE_PIPE)
		return fs_pipe_open(c, l.node, flags, h);
	if (rc == EOK && l.node->dev != FS_DEV_NONE)
		return fs_kprof_open(c, l.node, flags, h);
	if (rc == EOK)
		rc = open_existing(l.node, flags);
	else if (rc == ENOENT && (flags & O_CREAT))
		rc = open_create(&l, flags, &l.node);
	return rc != EOK ? rc : fs_handle_new(c, l.node, flags, h);
}

errno_t fs_op_mkdir(client_t *c)
{
	char path[FS_PATH_MAX];
	lookup_t l;
	node_t *n;
	errno_t rc = fs_take_path(c, false, path);

	if (rc != EOK)
		return rc;
	rc = fs_lookup(path, &l);
	if (rc == EOK)
		return EEXIST;
	if (rc != ENOENT || !l.parent)
		return rc;
	if (dir_writable(l.parent) != EOK)
		return EPERM;
	return fs_node_create(l.parent, l.last, FS_TYPE_DIR, false, &n);
}

/* unlink (dir false) or rmdir (dir true). */
errno_t fs_op_unlink(client_t *c, bool dir)
{
	char path[FS_PATH_MAX];
	lookup_t l;
	errno_t rc = fs_take_path(c, false, path);

	if (rc == EOK)
		rc = fs_lookup(path, &l);
	if (rc != EOK)
		return rc;
	node_t *n = l.node;
	if (!dir && n->type == FS_TYPE_DIR)
		return EISDIR;
	if (dir && n->type != FS_TYPE_DIR)
		return ENOTDIR;
	if (n->type == FS_TYPE_PIPE)
		return fs_pipe_remove(c, n);   /* the maker's tree may */
	if (n == fs_root || n->ro || dir_writable(n->parent) != EOK)
		return EPERM;
	if (n->children)
		return EEXIST;
	fs_node_unlink(n);
	return EOK;
}

/* Is n dir or somewhere below it? */
static bool is_within(const node_t *n, const node_t *dir)
{
	for (;; n = n->parent) {
		if (n == dir)
			return true;
		if (n == fs_root)
			return false;
	}
}

/* May src replace the existing node dst? */
static errno_t may_replace(const node_t *src, const node_t *dst)
{
	if (dst->type == FS_TYPE_DIR && src->type != FS_TYPE_DIR)
		return EISDIR;
	if (dst->type != FS_TYPE_DIR && src->type == FS_TYPE_DIR)
		return ENOTDIR;
	if (dst->children)
		return EEXIST;
	return dst->ro || dir_writable(dst->parent) != EOK ? EPERM : EOK;
}

/* Where the rename goes: the existing node (or NULL), its directory and name. */
static errno_t rename_target(const char *path, lookup_t *l)
{
	errno_t rc = fs_lookup(path, l);

	if (rc == EOK) {
		l->parent = l->node->parent;
		strcpy(l->last, l->node->name);
		return l->node == fs_root ? EPERM : EOK;
	}
	if (rc != ENOENT || !l->parent)
		return rc;
	return dir_writable(l->parent);
}

errno_t fs_op_rename(client_t *c)
{
	char from[FS_PATH_MAX], to[FS_PATH_MAX];
	lookup_t s, d;
	errno_t rc = fs_take_path(c, false, from);

	if (fs_take_path(c, true, to) != EOK || rc != EOK)
		return EINVAL;
	if ((rc = fs_lookup(from, &s)) != EOK ||
	    (rc = rename_target(to, &d)) != EOK)
		return rc;
	node_t *n = s.node;
	if (n == fs_root || n->ro || dir_writable(n->parent) != EOK)
		return EPERM;
	if (d.node == n)
		return EOK;
	if (is_within(d.parent, n))
		return EINVAL;
	if (d.node && (rc = may_replace(n, d.node)) != EOK)
		return rc;
	if (d.node)
		fs_node_unlink(d.node);
	fs_node_move(n, d.parent, d.last);
	return EOK;
}

/* A handle of c open for writing a file, or the error. */
static errno_t write_handle(client_t *c, uint64_t h, node_t **n)
{
	handle_t *hd = fs_handle_get(c, h);

	if (!hd)
		return EINVAL;
	if (!wants_write(hd->flags) || hd->node->ro)
		return EPERM;
	if (hd->node->type == FS_TYPE_PIPE)
		return EINVAL;             /* a pipe's write end: no truncate */
	if (hd->node->type != FS_TYPE_FILE)
		return EISDIR;
	*n = hd->node;
	return EOK;
}

errno_t fs_op_truncate(client_t *c, uint64_t h, uint64_t size)
{
	node_t *n;
	errno_t rc = write_handle(c, h, &n);

	if (rc != EOK)
		return rc;
	return size > fs_tmp_limit ? ENOSPC : fs_file_resize(n, (size_t)size);
}

/*
 * How many of len (> 0) bytes at off fit in n, reserving them: len, or
 * fewer when the tmpfs is nearly full; 0 when none do. After it,
 * off + the result <= n->cap.
 */
static size_t write_room(node_t *n, uint64_t off, size_t len)
{
	if (off >= fs_tmp_limit)
		return 0;
	if (len > fs_tmp_limit - off)
		len = (size_t)(fs_tmp_limit - off);
	if (off + len <= n->cap || fs_file_reserve(n, off + len) == EOK)
		return len;
	size_t most = n->cap + (fs_tmp_limit - fs_tmp_used);
	if (most <= off || fs_file_reserve(n, most) != EOK)
		return 0;
	return most - off < len ? most - off : len;
}

/* Answer a write of room bytes at off to n (they fit) and grow its size. */
static void dw_answer(node_t *n, const ipc_event_t *ev, uint64_t off, size_t room)
{
	if (room && off > n->size)
		memset(n->data + n->size, 0, (size_t)off - n->size);
	ipc_msg_t m = { .method = EOK, .args = {
		(uint64_t)(uintptr_t)(room ? n->data + off : empty), room,
		off + room } };
	if (sys_ipc_answer(ev->callid, &m, NULL) == EOK && room &&
	    off + room > n->size)
		n->size = (size_t)(off + room);
}

/*
 * FS_DW_FILE to a tmpfs file: as much as fits at the offset (ENOSPC when
 * nothing does, also at or past the tmpfs limit); 0 bytes change nothing.
 */
static void dw_tmpfs(client_t *c, const ipc_event_t *ev)
{
	size_t len = (size_t)ev->msg.args[1];
	node_t *n;
	errno_t rc = write_handle(c, ev->msg.args[3], &n);

	if (rc != EOK) {
		ipc_answer_0(ev->callid, rc);
		return;
	}
	uint64_t off = ev->msg.args[4] == FS_OFF_APPEND ? n->size : ev->msg.args[4];
	size_t room = len ? write_room(n, off, len) : 0;
	if (room == 0 && len > 0) {
		ipc_answer_0(ev->callid, ENOSPC);
		return;
	}
	dw_answer(n, ev, off, room);
}

void fs_dw_file(client_t *c, const ipc_event_t *ev)
{
	handle_t *hd = fs_handle_get(c, ev->msg.args[3]);

	if (hd && hd->node->type == FS_TYPE_PIPE && wants_write(hd->flags))
		fs_pipe_write(hd, ev);
	else if (hd && hd->node->dev == FS_DEV_KPCTL)
		fs_kprof_write(hd, ev);
	else
		dw_tmpfs(c, ev);
}

/* A handle of c open for reading, or NULL after answering ev the error. */
static handle_t *read_handle(client_t *c, const ipc_event_t *ev)
{
	handle_t *hd = fs_handle_get(c, ev->msg.args[3]);

	if (!hd)
		ipc_answer_0(ev->callid, EINVAL);
	else if (!may_read(hd))
		ipc_answer_0(ev->callid, EPERM);
	return hd && may_read(hd) ? hd : NULL;
}

void fs_dr_file(client_t *c, const ipc_event_t *ev)
{
	handle_t *hd = read_handle(c, ev);

	if (!hd)
		return;
	node_t *n = hd->node;
	uint64_t off = ev->msg.args[4];
	if (n->type == FS_TYPE_PIPE) {
		fs_pipe_read(hd, ev);
		return;
	}
	if (n->dev == FS_DEV_KPDATA) {
		fs_kprof_read(ev);
		return;
	}
	if (n->type != FS_TYPE_FILE) {
		ipc_answer_0(ev->callid, EISDIR);
		return;
	}
	size_t avail = off < n->size ? n->size - (size_t)off : 0;
	const uint8_t *src = avail ? fs_file_bytes(n) + off : empty;
	ipc_data_read_answer(ev, src, avail);
}

static void fill_stat(const node_t *n, fs_stat_t *st)
{
	memset(st, 0, sizeof(*st));
	st->size = n->type == FS_TYPE_DIR ? 0 : n->size;
	if (n->dev == FS_DEV_KPDATA)
		st->size = fs_kprof_size();
	st->type = n->type;
	st->mode = n->mode;
	st->ino = n->ino;
	st->nlink = 1;
	st->readonly = n->ro;
}

void fs_dr_stat(client_t *c, const ipc_event_t *ev)
{
	char path[FS_PATH_MAX];
	lookup_t l;
	fs_stat_t st;
	errno_t rc;

	if (ev->msg.args[3] == FS_STAGED) {
		rc = fs_take_path(c, false, path);
		if (rc == EOK)
			rc = fs_lookup(path, &l);
	} else {
		handle_t *hd = fs_handle_get(c, ev->msg.args[3]);
		rc = hd ? EOK : EINVAL;
		l.node = hd ? hd->node : NULL;
	}
	if (rc != EOK) {
		ipc_answer_0(ev->callid, rc);
		return;
	}
	fill_stat(l.node, &st);
	ipc_data_read_answer(ev, &st, sizeof(st));
}

void fs_dr_readdir(client_t *c, const ipc_event_t *ev)
{
	handle_t *hd = read_handle(c, ev);
	fs_dirent_t de;

	if (!hd)
		return;
	if (hd->node->type != FS_TYPE_DIR) {
		ipc_answer_0(ev->callid, ENOTDIR);
		return;
	}
	node_t *n = fs_child_at(hd->node, ev->msg.args[4]);
	if (!n) {
		ipc_answer_0(ev->callid, ENOENT);
		return;
	}
	memset(&de, 0, sizeof(de));
	de.ino = n->ino;
	de.type = n->type;
	strcpy(de.name, n->name);
	ipc_data_read_answer(ev, &de, sizeof(de));
}
