/*
 * /bin/fs: clients, handles and the calls of <fs_proto.h> (serve.c,
 * ops.c, pipe.c).
 */
#ifndef FS_SERVE_H
#define FS_SERVE_H

#include <ipc.h>

#include "fs.h"

#define FS_CLIENTS 128             /* connections with state */
#define FS_HANDLES 1024            /* open handles of all clients */
#define FS_CLIENT_HANDLES 128      /* per connection */

typedef struct client {
	bool used;
	uint64_t conn;
	unsigned handles;
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

/* pipe.c: FS_M_MKPIPE for c; the new pipe's id goes to *id. */
errno_t fs_pipe_make(client_t *c, uint64_t *id);
/*
 * Open a read (flags O_RDONLY) or write (O_WRONLY) end of pipe n for c;
 * the handle goes to *h. EINVAL for other modes, O_CREAT, O_EXCL, O_TRUNC.
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
