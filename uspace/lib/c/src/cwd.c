/*
 * The working directory: kept by libc, inherited through the environment
 * variable PWD (src/spawn.c sets it for children), "/" by default.
 * Relative paths of every file call are resolved against it (lexically:
 * see lib/path.h).
 */
#include <errno.h>
#include <fs_proto.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lib/path.h>

#include "fs_client.h"
#include "libc.h"

static char cwd[FS_PATH_MAX] = "/";
static libc_lock_t cwd_lock = LIBC_LOCK_INIT;

void __libc_cwd_init(void)
{
	const char *pwd = getenv("PWD");
	char norm[FS_PATH_MAX];

	if (pwd && pwd[0] == '/' && path_resolve("/", pwd, norm, sizeof(norm)) == EOK)
		strcpy(cwd, norm);
}

errno_t __libc_path_resolve(const char *path, char *out)
{
	__libc_lock(&cwd_lock);
	errno_t rc = path_resolve(cwd, path, out, FS_PATH_MAX);
	__libc_unlock(&cwd_lock);
	return rc;
}

/* The working directory into buf (size bytes); buf, or NULL with errno. */
char *getcwd(char *buf, size_t size)
{
	__libc_lock(&cwd_lock);
	size_t len = strlen(cwd);
	bool fits = buf && len < size;
	if (fits)
		memcpy(buf, cwd, len + 1);
	__libc_unlock(&cwd_lock);
	if (!fits) {
		errno = buf && size ? ERANGE : EINVAL;
		return NULL;
	}
	return buf;
}

/* Make path (a directory) the working directory; 0, or -1 with errno. */
int chdir(const char *path)
{
	char abs[FS_PATH_MAX];
	struct stat st;
	errno_t rc = __libc_path_resolve(path, abs);

	if (rc == EOK && stat(abs, &st) != 0)
		rc = errno;
	else if (rc == EOK && !S_ISDIR(st.st_mode))
		rc = ENOTDIR;
	if (rc != EOK) {
		errno = rc;
		return -1;
	}
	__libc_lock(&cwd_lock);
	strcpy(cwd, abs);
	__libc_unlock(&cwd_lock);
	return 0;
}
