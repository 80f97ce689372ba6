/*
 * /bin/fs: clients, handles and the calls of <fs_proto.h> (serve.c,
 * ops.c, pipe.c).
 */
#ifndef FS_SERVE_H
#define FS_SERVE_H

#include <ipc.h>

#include "fs.h"

#define FS_CLIENTS 256             /* connections with state, in all */
#define FS_HANDLES 1024            /* open handles of all clients */

/* The usage of a task tree (FS_TREE_ORPHANS: of all orphans' trees). */
typedef struct fs_tree {
	bool used;
	task_id_t root;
	unsigned tasks, conns, handles, pipes;
	unsigned refused;          /* ELIMITs given to its tasks */
} fs_tree_t;

/* A client task: what it holds and the tree that is charged. */
typedef struct fs_task {
	bool used;
	task_id_t id;
	task_id_t qroot;           /* its task_quota_root() when first seen */
	fs_tree_t *tree;
	unsigned conns, handles;
} fs_task_t;

typedef struct client {
	bool used;
	uint64_t conn;
	fs_task_t *task;           /* the task that made the first call */
	bool has_path, has_path2;
	char path[FS_PATH_MAX];
	char path2[FS_PATH_MAX];
} client_t;

typedef struct handle {
	bool used;
	uint64_t conn;
	uint32_t flags;            /* O_* of the open */
	node_t *node;
	char ctl[16];              /* kpctl: a command's bytes so far */
	size_t ctl_len;
} handle_t;

/* The server's settings and counters. */
extern bool fs_verbose;
extern bool fs_have_initrd;
extern unsigned fs_handles_open;
extern unsigned fs_conns_open;     /* connections with state */

/*
 * quota.c (one server thread, no locks). fs_quota_conn_new: charge a new
 * connection of task sender (a client slot must be free); its record
 * goes to *out; ELIMIT beyond FS_TASK_CONNS / FS_TREE_CONNS.
 * fs_quota_conn_drop: a connection of t went (t may be freed).
 */
errno_t fs_quota_conn_new(task_id_t sender, fs_task_t **out);
void fs_quota_conn_drop(fs_task_t *t);
/* EOK if t may open one more handle (per task, tree and in all); ELIMIT. */
errno_t fs_quota_handle_check(fs_task_t *t);
/* A handle of t opened / closed (check first). */
void fs_quota_handle_take(fs_task_t *t);
void fs_quota_handle_give(fs_task_t *t);
/* Charge a new named pipe to t's tree (ELIMIT beyond FS_TREE_PIPES). */
errno_t fs_quota_pipe_take(fs_task_t *t);
/* A named pipe of tree tr lost its name. */
void fs_quota_pipe_give(fs_tree_t *tr);
/* The trees from the first'th on into u->tree (u->count of them). */
void fs_quota_usage(fs_usage_t *u, uint64_t first);

/* The ipc_server_loop handler. */
int fs_handle_event(void *ctx, const ipc_event_t *ev);

/* serve.c: handles of client c. */
handle_t *fs_handle_get(const client_t *c, uint64_t h);
errno_t fs_handle_new(client_t *c, node_t *n, uint32_t flags, uint64_t *h);
/* Close h, a handle of c; calls waiting on it (pipes) end with why. */
void fs_handle_close(client_t *c, handle_t *h, errno_t why);
/* The staged path (path2 if second) of c, used up: EINVAL if none. */
errno_t fs_take_path(client_t *c, bool second, char *out);

/* ops.c: the path and handle calls; results in out[0..]. */
errno_t fs_op_open(client_t *c, uint32_t flags, uint64_t *h);
errno_t fs_op_mkdir(client_t *c);
errno_t fs_op_unlink(client_t *c, bool dir);
errno_t fs_op_rename(client_t *c);
errno_t fs_op_truncate(client_t *c, uint64_t h, uint64_t size);
/* ops.c: the data calls (they answer ev themselves). */
void fs_dw_file(client_t *c, const ipc_event_t *ev);
void fs_dr_file(client_t *c, const ipc_event_t *ev);
void fs_dr_stat(client_t *c, const ipc_event_t *ev);
void fs_dr_readdir(client_t *c, const ipc_event_t *ev);

/* pipe.c: FS_M_MKPIPE for c; the new pipe's id goes to *id (ELIMIT, ENOSPC). */
errno_t fs_pipe_make(client_t *c, uint64_t *id);
/*
 * Open a read (flags O_RDONLY) or write (O_WRONLY) end of pipe n for c;
 * the handle goes to *h. EINVAL for other modes, O_CREAT, O_EXCL, O_TRUNC;
 * EPERM if c is not in the maker's tree; ELIMIT beyond c's quota.
 */
errno_t fs_pipe_open(client_t *c, node_t *n, uint32_t flags, uint64_t *h);
/*
 * FS_DR_FILE / FS_DW_FILE through h, a read / write end: answered now or
 * when data, room, end of file or EPIPE comes (ELIMIT: too many wait).
 */
void fs_pipe_read(handle_t *h, const ipc_event_t *ev);
void fs_pipe_write(handle_t *h, const ipc_event_t *ev);
/* The end h closes (its handle is still there): its waiting calls end with why. */
void fs_pipe_close(handle_t *h, errno_t why);
/* Remove the name of pipe n (which may free it). */
void fs_pipe_unlink(node_t *n);
/* FS_M_UNLINK of pipe n by c: EPERM unless c is in the maker's tree. */
errno_t fs_pipe_remove(const client_t *c, node_t *n);
/* Connection conn hung up: the names of the pipes it made go. */
void fs_pipe_hangup(uint64_t conn);

/* kprof.c: open /dev/kpctl (write only) or /dev/kpdata (read only). */
errno_t fs_kprof_open(client_t *c, node_t *n, uint32_t flags, uint64_t *h);
/* FS_DW_FILE to kpctl: run start, stop or startclr (EINVAL otherwise). */
void fs_kprof_write(handle_t *h, const ipc_event_t *ev);
/* FS_DR_FILE of kpdata at args[4]: the histogram, big-endian. */
void fs_kprof_read(const ipc_event_t *ev);
/* kpdata's size in bytes (0 before the first session's header). */
size_t fs_kprof_size(void);

#endif
