/*
 * spawn(): programs read through the file service and started with an
 * environment that carries the working directory and the standard
 * descriptors (see <spawn.h>).
 */
#include <errno.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <ipc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vernier.h>

#include "fs_client.h"
#include "libc.h"

/* The variables spawn() sets itself, dropped from the inherited ones. */
static const char *const spawn_own[] = { "PWD=", "FD0=", "FD1=", "FD2=" };

/* The program at path into a new buffer: as file_read_all, ENOEXEC if empty. */
static errno_t spawn_read_image(const char *path, void **image, size_t *size)
{
	errno_t rc = file_read_all(path, SPAWN_MAX_IMAGE, image, size);

	if (rc == EOK && *size == 0) {
		free(*image);
		rc = ENOEXEC;
	}
	return rc;
}

static bool spawn_is_own(const char *var)
{
	for (size_t i = 0; i < sizeof(spawn_own) / sizeof(spawn_own[0]); i++)
		if (!strncmp(var, spawn_own[i], strlen(spawn_own[i])))
			return true;
	return false;
}

/* "NAME=value" in a new string, or NULL. */
static char *spawn_var(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s;
}

/* The child's FDn spec: opts' or the caller's own (NULL: the console). */
static const char *spawn_stdio(const spawn_opts_t *opts, int fd)
{
	return opts && opts->stdio[fd] ? opts->stdio[fd] : __libc_stdfd_spec(fd);
}

/* Add the working directory and descriptor variables at env[*n...]. */
static errno_t spawn_add_own(char **env, size_t *n, const spawn_opts_t *opts)
{
	static const char *const names[3] = { "FD0", "FD1", "FD2" };
	char cwd[FS_PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)) || !(env[(*n)++] = spawn_var("PWD", cwd)))
		return ENOMEM;
	for (int fd = 0; fd < 3; fd++) {
		const char *spec = spawn_stdio(opts, fd);
		if (spec && !(env[(*n)++] = spawn_var(names[fd], spec)))
			return ENOMEM;
	}
	return EOK;
}

static void spawn_free_env(char **env, size_t from)
{
	for (size_t i = from; env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * The child's environment: the inherited variables (pointers into base)
 * at [0, *nbase), then ours (allocated), NULL-terminated.
 */
static errno_t spawn_build_env(const spawn_opts_t *opts, char ***out, size_t *nbase)
{
	char *const *base = opts && opts->envp ? opts->envp : __libc_environ;
	size_t count = 0, n = 0;

	while (base && base[count])
		count++;
	char **env = calloc(count + 5, sizeof(*env));
	if (!env)
		return ENOMEM;
	for (size_t i = 0; i < count && n < SPAWN_MAX_ARGS - 4; i++)
		if (!spawn_is_own(base[i]))
			env[n++] = base[i];
	*nbase = n;
	errno_t rc = spawn_add_own(env, &n, opts);
	if (rc != EOK) {
		spawn_free_env(env, *nbase);
		return rc;
	}
	*out = env;
	return EOK;
}

/* The caller's own permissions. */
static uint32_t spawn_my_perms(void)
{
	task_info_t info;

	return sys_task_info(0, &info) == EOK ? info.perms : 0;
}

errno_t spawn(const char *path, char *const argv[], const spawn_opts_t *opts,
	      task_id_t *id)
{
	char abs[FS_PATH_MAX];
	void *image = NULL;
	size_t size = 0, nbase = 0;
	char **env = NULL;
	errno_t rc = __libc_path_resolve(path, abs);

	if (rc == EOK)
		rc = spawn_read_image(abs, &image, &size);
	if (rc == EOK)
		rc = spawn_build_env(opts, &env, &nbase);
	if (rc == EOK) {
		spawn_args_t args = {
			.path = abs, .argv = (const char *const *)argv,
			.envp = (const char *const *)env, .image = image,
			.image_size = size,
			.perms = opts && opts->set_perms ? opts->perms
							 : spawn_my_perms(),
			.flags = opts && opts->stopped ? SPAWN_F_STOPPED : 0,
		};
		rc = sys_spawn_args(&args, id);
		spawn_free_env(env, nbase);
	}
	free(image);
	return rc;
}

errno_t spawn_find(const char *name, char *out, size_t size)
{
	struct stat st;
	int n = strchr(name, '/') ? snprintf(out, size, "%s", name)
				  : snprintf(out, size, "/bin/%s", name);

	if (n < 0 || (size_t)n >= size)
		return ENAMETOOLONG;
	if (!name[0] || stat(out, &st) != 0)
		return ENOENT;
	return EOK;
}

errno_t spawn_start(task_id_t id)
{
	int phone;
	errno_t rc = sys_ipc_connect_kbox(id, &phone);

	if (rc != EOK)
		return rc;
	rc = ipc_call_sync(phone, KBOX_TASK_START, 0, 0, 0, 0, 0, NULL);
	sys_ipc_hangup(phone);
	return rc;
}

int spawn_status_code(int status)
{
	if (!(status & TASK_STATUS_KILLED))
		return status & 0xff;
	return (status & 0xff) == KILL_REASON_FAULT ? 139 : 130;
}
