/*
 * The node tree: directories and files, the read-only initrd part, the
 * tmpfs under /tmp, whose memory is bounded by fs_tmp_limit, and /pipe,
 * where pipe.c names its pipes (whose rings count as tmpfs memory).
 */
#include <stdlib.h>
#include <string.h>

#include "fs.h"

#define NODE_CHARGE 128            /* tmpfs bytes charged per node */
#define GROW_STEP_MAX (1024 * 1024)
#define PAGE 4096

node_t *fs_root;
node_t *fs_pipe_dir;
node_t *fs_dev_dir;
size_t fs_tmp_used, fs_tmp_limit;
static uint64_t next_ino = 1;

static errno_t charge(size_t n)
{
	if (n > fs_tmp_limit - fs_tmp_used)
		return ENOSPC;
	fs_tmp_used += n;
	return EOK;
}

static void uncharge(size_t n)
{
	fs_tmp_used -= n;
}

static node_t *node_new(const char *name, uint32_t type, bool ro)
{
	if (!ro && charge(NODE_CHARGE) != EOK)
		return NULL;
	node_t *n = calloc(1, sizeof(*n));
	if (!n) {
		if (!ro)
			uncharge(NODE_CHARGE);
		return NULL;
	}
	strncpy(n->name, name, FS_NAME_MAX);
	n->type = type;
	n->ro = ro;
	n->mode = ro ? (type == FS_TYPE_DIR ? 0555 : 0444)
		     : (type == FS_TYPE_DIR ? 0755 : 0644);
	n->ino = next_ino++;
	return n;
}

static void node_free(node_t *n)
{
	if (n->pipe)
		fs_pipe_free(n->pipe);
	if (!n->ro) {
		uncharge(NODE_CHARGE + n->cap);
		free(n->data);
	}
	free(n);
}

/* A read-only file of /dev served by code (dev FS_DEV_*) with mode. */
static errno_t dev_file(const char *name, uint32_t dev, uint32_t mode)
{
	node_t *n;
	errno_t rc = fs_node_create(fs_dev_dir, name, FS_TYPE_FILE, true, &n);

	if (rc == EOK) {
		n->dev = dev;
		n->mode = mode;
	}
	return rc;
}

/* "/dev" and its files. */
static errno_t dev_tree_init(void)
{
	errno_t rc = fs_node_create(fs_root, "dev", FS_TYPE_DIR, true, &fs_dev_dir);

	if (rc == EOK)
		rc = dev_file("kpctl", FS_DEV_KPCTL, 0200);
	if (rc == EOK)
		rc = dev_file("kpdata", FS_DEV_KPDATA, 0444);
	return rc;
}

errno_t fs_tree_init(size_t limit)
{
	node_t *tmp;

	fs_tmp_limit = limit;
	fs_root = node_new("", FS_TYPE_DIR, true);
	if (!fs_root)
		return ENOMEM;
	fs_root->linked = true;
	fs_root->parent = fs_root;
	errno_t rc = fs_node_create(fs_root, "tmp", FS_TYPE_DIR, true, &tmp);
	if (rc == EOK) {
		tmp->ro = false;           /* writable, but never charged or freed */
		tmp->mode = 01777;
	}
	if (rc == EOK)
		rc = fs_node_create(fs_root, FS_PIPE_DIR + 1, FS_TYPE_DIR, true,
				    &fs_pipe_dir);
	if (rc == EOK)
		rc = dev_tree_init();
	return rc;
}

node_t *fs_child(node_t *dir, const char *name)
{
	for (node_t *c = dir->children; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

node_t *fs_child_at(node_t *dir, uint64_t index)
{
	node_t *c = dir->children;

	while (c && index-- > 0)
		c = c->next;
	return c;
}

/* Copy the component at *p into name and advance *p past it. */
static errno_t next_component(const char **p, char *name)
{
	const char *s = *p;
	size_t n = 0;

	while (s[n] && s[n] != '/')
		n++;
	if (n > FS_NAME_MAX)
		return EINVAL;
	memcpy(name, s, n);
	name[n] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return EINVAL;
	*p = s + n;
	return EOK;
}

static const char *skip_slashes(const char *p)
{
	while (*p == '/')
		p++;
	return p;
}

/* Step from l->node to its child named by the component at *p. */
static errno_t lookup_step(lookup_t *l, const char **p)
{
	errno_t rc = next_component(p, l->last);

	if (rc != EOK)
		return rc;
	*p = skip_slashes(*p);
	if (l->node->type != FS_TYPE_DIR)
		return ENOTDIR;
	node_t *c = fs_child(l->node, l->last);
	if (!c) {
		l->parent = **p ? NULL : l->node;
		l->node = NULL;
		return ENOENT;
	}
	l->parent = l->node;
	l->node = c;
	return EOK;
}

errno_t fs_lookup(const char *path, lookup_t *l)
{
	memset(l, 0, sizeof(*l));
	if (path[0] != '/' || strlen(path) >= FS_PATH_MAX)
		return EINVAL;
	const char *p = skip_slashes(path);
	l->node = fs_root;
	while (*p) {
		errno_t rc = lookup_step(l, &p);
		if (rc != EOK)
			return rc;
	}
	return EOK;
}

static void child_add(node_t *dir, node_t *n)
{
	node_t **pp = &dir->children;

	while (*pp)                   /* keep creation order for readdir */
		pp = &(*pp)->next;
	*pp = n;
	n->next = NULL;
	n->parent = dir;
	n->linked = true;
}

static void child_remove(node_t *n)
{
	for (node_t **pp = &n->parent->children; *pp; pp = &(*pp)->next) {
		if (*pp == n) {
			*pp = n->next;
			break;
		}
	}
	n->next = NULL;
}

errno_t fs_node_create(node_t *dir, const char *name, uint32_t type, bool ro,
		       node_t **out)
{
	if (!*name || strlen(name) > FS_NAME_MAX)
		return EINVAL;
	if (fs_child(dir, name))
		return EEXIST;
	node_t *n = node_new(name, type, ro);
	if (!n)
		return ro ? ENOMEM : ENOSPC;
	child_add(dir, n);
	*out = n;
	return EOK;
}

void fs_node_unlink(node_t *n)
{
	child_remove(n);
	n->linked = false;
	if (n->refs == 0)
		node_free(n);
}

void fs_node_move(node_t *n, node_t *dir, const char *name)
{
	child_remove(n);
	strncpy(n->name, name, FS_NAME_MAX);
	n->name[FS_NAME_MAX] = '\0';
	child_add(dir, n);
}

void fs_node_get(node_t *n)
{
	n->refs++;
}

void fs_node_put(node_t *n)
{
	if (--n->refs == 0 && !n->linked)
		node_free(n);
}

/* The capacity to grow to for need bytes: doubling, in bounded steps. */
static size_t grow_target(size_t cap, size_t need)
{
	size_t step = cap < GROW_STEP_MAX ? cap : GROW_STEP_MAX;
	size_t want = cap + step > need ? cap + step : need;

	return (want + PAGE - 1) & ~(size_t)(PAGE - 1);
}

static errno_t realloc_to(node_t *n, size_t cap)
{
	if (charge(cap - n->cap) != EOK)
		return ENOSPC;
	uint8_t *d = realloc(n->data, cap);
	if (!d) {
		uncharge(cap - n->cap);
		return ENOSPC;
	}
	n->data = d;
	n->cap = cap;
	return EOK;
}

errno_t fs_file_reserve(node_t *n, size_t need)
{
	if (need <= n->cap)
		return EOK;
	if (need > fs_tmp_limit)
		return ENOSPC;
	if (realloc_to(n, grow_target(n->cap, need)) == EOK)
		return EOK;
	return realloc_to(n, need);
}

/* Give a file's memory back (it is empty). */
static void release(node_t *n)
{
	uncharge(n->cap);
	free(n->data);
	n->data = NULL;
	n->cap = n->size = 0;
}

errno_t fs_file_resize(node_t *n, size_t size)
{
	if (size == 0) {
		release(n);
		return EOK;
	}
	errno_t rc = fs_file_reserve(n, size);

	if (rc != EOK)
		return rc;
	if (size > n->size)
		memset(n->data + n->size, 0, size - n->size);
	n->size = size;
	return EOK;
}

const uint8_t *fs_file_bytes(const node_t *n)
{
	return n->ro ? n->rodata : n->data;
}
