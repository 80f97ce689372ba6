/*
 * Starting programs (Vernier's, not POSIX's posix_spawn).
 *
 * spawn() reads the program through the file service (so it may live
 * anywhere: /bin, /tmp...) and hands the image to the kernel with argv,
 * an environment and permissions. The child inherits the working
 * directory (PWD) and, unless opts says otherwise, the caller's standard
 * descriptors as they were redirected (console by default). Descriptors
 * travel as the environment variables FD0..FD2 (see src/stdfd.c):
 * "r:PATH", "w:PATH", "a:PATH" (append) or "n:" (nothing).
 */
#ifndef _SPAWN_H
#define _SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/task.h>

typedef struct spawn_opts {
	const char *stdio[3];      /* a spec for descriptor n, or NULL: inherit */
	bool set_perms;            /* give perms (else the caller's own) */
	uint32_t perms;
	char *const *envp;         /* NULL: the caller's environment */
	bool stopped;              /* SPAWN_F_STOPPED: start with KBOX_TASK_START */
} spawn_opts_t;

/*
 * Start the program at path (relative paths resolve against the working
 * directory) with argv (argv[0] included) and opts (NULL: defaults). The
 * child's id goes to *id. Returns EOK, ENOENT, EISDIR, ENOEXEC (not a
 * program), EPERM (perms beyond the caller's), E2BIG, ENOMEM, or an error
 * of the file service.
 */
errno_t spawn(const char *path, char *const argv[], const spawn_opts_t *opts,
	      task_id_t *id);

/*
 * The path of command name into out (size bytes): name itself if it
 * contains '/', else /bin/name. Returns EOK, ENOENT (no such program)
 * or ENAMETOOLONG.
 */
errno_t spawn_find(const char *name, char *out, size_t size);

/*
 * Let task id, spawned with opts.stopped by the caller, run: KBOX_TASK_START
 * on its kbox (its parent may connect). Returns EOK, ESRCH, EPERM (not the
 * caller's child) or EINVAL (not stopped).
 */
errno_t spawn_start(task_id_t id);

/*
 * A task's wait status (see abi/task.h) as a shell's 0..255: an exit
 * status as it is; killed by SYS_KILL or Ctrl-C 130, by a fault 139.
 */
int spawn_status_code(int status);

#endif
