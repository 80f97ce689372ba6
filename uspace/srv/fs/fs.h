/*
 * /bin/fs internals: the node tree (node.c), the initrd loader
 * (initrd.c), pipes (pipe.c), the kprof device /dev/kp* (kprof.c) and
 * the IPC side (main.c, serve.c, ops.c).
 * The protocol is in <fs_proto.h>.
 */
#ifndef FS_H
#define FS_H

#include <fs_proto.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>

struct pipe;

#define FS_DEV_NONE 0
#define FS_DEV_KPCTL 1                /* /dev/kpctl (kprof.c) */
#define FS_DEV_KPDATA 2               /* /dev/kpdata */

typedef struct node {
	char name[FS_NAME_MAX + 1];
	uint32_t type;               /* FS_TYPE_FILE, _DIR or _PIPE */
	uint32_t dev;                /* FS_DEV_*: a /dev file served by code */
	uint32_t mode;
	bool ro;                     /* initrd node (or "/") */
	bool linked;                 /* still in the tree */
	unsigned refs;               /* open handles */
	uint64_t ino;
	struct node *parent;
	struct node *children;       /* directories: first child */
	struct node *next;           /* next sibling */
	uint8_t *data;               /* tmpfs files: cap bytes; pipes: the ring */
	const uint8_t *rodata;       /* initrd files */
	size_t size, cap;            /* pipes: bytes buffered, FS_PIPE_BUF */
	struct pipe *pipe;           /* pipes: the ends and waiting calls */
} node_t;

/* A path looked up: the node, or (ENOENT) the parent and last name. */
typedef struct lookup {
	node_t *node;
	node_t *parent;
	char last[FS_NAME_MAX + 1];
} lookup_t;

/* The tree's root ("/"), read-only, with the tmpfs "/tmp" in it. */
extern node_t *fs_root;
/* "/pipe": read-only, the pipes' names are its children (pipe.c). */
extern node_t *fs_pipe_dir;
/* Bytes the tmpfs holds (capacity of files plus a charge per node). */
extern size_t fs_tmp_used, fs_tmp_limit;

/* "/dev": read-only, the kprof device files (kprof.c). */
extern node_t *fs_dev_dir;

/* Create the root, /tmp, /pipe and /dev with a tmpfs limit of limit bytes. */
errno_t fs_tree_init(size_t limit);
/*
 * Resolve path: EOK with l->node; ENOENT with l->parent set if only the
 * last component is missing (NULL if more is); ENOTDIR, EINVAL.
 */
errno_t fs_lookup(const char *path, lookup_t *l);
/*
 * A new child name of dir (which must be writable unless ro is set; pipe.c
 * puts writable pipes in the read-only /pipe).
 */
errno_t fs_node_create(node_t *dir, const char *name, uint32_t type, bool ro,
		       node_t **out);
/* Take the node out of its directory; freed when no handle holds it. */
void fs_node_unlink(node_t *n);
/* Move n into dir under name (no node of that name may be there). */
void fs_node_move(node_t *n, node_t *dir, const char *name);
/* The index'th child of dir, or NULL. */
node_t *fs_child_at(node_t *dir, uint64_t index);
/* The child of dir called name, or NULL. */
node_t *fs_child(node_t *dir, const char *name);
/* A handle took / dropped n. */
void fs_node_get(node_t *n);
void fs_node_put(node_t *n);
/* Make room for at least need bytes in tmpfs file n (ENOSPC). */
errno_t fs_file_reserve(node_t *n, size_t need);
/* Set the size of tmpfs file n (zero filling when it grows). */
errno_t fs_file_resize(node_t *n, size_t size);
/* The bytes of file n (initrd or tmpfs). */
const uint8_t *fs_file_bytes(const node_t *n);

/* Add the initrd's files under "/"; ENOSYS/ENOENT if there is none. */
errno_t fs_initrd_load(void);

/* Pipes that exist (named or open). */
extern unsigned fs_pipes_alive;
/* Free the state of a pipe whose node goes (no handle holds it). */
void fs_pipe_free(struct pipe *p);

#endif
