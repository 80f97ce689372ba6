/*
 * Path names: joining a relative path to a working directory and
 * normalising the result lexically (there are no symbolic links, so
 * "a/../b" is "b"). Freestanding; used by libc and tested on the host.
 */
#ifndef LIB_PATH_H
#define LIB_PATH_H

#include <stddef.h>
#include <abi/errno.h>

/*
 * Resolve path against cwd (an absolute, normalised directory; ignored
 * when path is absolute) into out (size bytes): one leading '/', no
 * empty, "." or ".." components, no trailing '/' (except the root "/").
 * ".." of the root is the root. Returns EOK, ENOENT for an empty path,
 * EINVAL if cwd is not absolute, or ENAMETOOLONG if the result (with its
 * NUL) does not fit.
 */
errno_t path_resolve(const char *cwd, const char *path, char *out, size_t size);

/* The last component of the normalised absolute path p ("" for "/"). */
const char *path_basename(const char *p);

#endif
