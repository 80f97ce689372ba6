/* Lexical path resolution (see lib/path.h). */
#include <lib/path.h>
#include <lib/string.h>

/* Drop the last component of out (length *len, at least "/"). */
static void path_pop(char *out, size_t *len)
{
	while (*len > 1 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 1)
		(*len)--;            /* the '/' before it, unless it is the root */
	out[*len] = '\0';
}

/* Append component c (n bytes) to out; ENAMETOOLONG if it does not fit. */
static errno_t path_push(char *out, size_t *len, size_t size, const char *c, size_t n)
{
	size_t sep = *len > 1;

	if (*len + sep + n + 1 > size)
		return ENAMETOOLONG;
	if (sep)
		out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
	return EOK;
}

/* Apply the components of p to out. */
static errno_t path_walk(char *out, size_t *len, size_t size, const char *p)
{
	while (*p) {
		const char *c = p;
		while (*p && *p != '/')
			p++;
		size_t n = (size_t)(p - c);
		if (n == 2 && c[0] == '.' && c[1] == '.')
			path_pop(out, len);
		else if (n > 0 && !(n == 1 && c[0] == '.')) {
			errno_t rc = path_push(out, len, size, c, n);
			if (rc != EOK)
				return rc;
		}
		while (*p == '/')
			p++;
	}
	return EOK;
}

errno_t path_resolve(const char *cwd, const char *path, char *out, size_t size)
{
	size_t len = 1;

	if (!path[0])
		return ENOENT;
	if (size < 2)
		return ENAMETOOLONG;
	out[0] = '/';
	out[1] = '\0';
	errno_t rc = EOK;
	if (path[0] != '/') {
		if (!cwd || cwd[0] != '/')
			return EINVAL;
		rc = path_walk(out, &len, size, cwd);
	}
	return rc == EOK ? path_walk(out, &len, size, path) : rc;
}

const char *path_basename(const char *p)
{
	const char *base = p;

	for (; *p; p++)
		if (*p == '/')
			base = p + 1;
	return base;
}
