/*
 * The profiler tools' hosted environment (<profenv.h>): malloc, free,
 * stdio output and whole-file reads behind a prof_env_t. Built into
 * libprof.a for the guest and compiled into the host tools.
 */
#include <profenv.h>
#include <stdlib.h>

#define PROFENV_CHUNK 65536             /* read granularity */

/* malloc(size); ctx unused. */
void *prof_env_malloc(void *ctx, size_t size)
{
	(void)ctx;
	return malloc(size);
}

/* free(p); ctx unused. */
void prof_env_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

/* fwrite of len bytes of s to file. */
void prof_env_fwrite(void *file, const char *s, size_t len)
{
	fwrite(s, 1, len, file);
}

/* fwrite of len bytes of data to file. */
void prof_env_write(void *file, const void *data, size_t len)
{
	fwrite(data, 1, len, file);
}

/* Grow *buf by a chunk (capacity *cap); false (buf freed) without memory. */
static bool read_grow(char **buf, size_t *cap)
{
	char *bigger = realloc(*buf, *cap + PROFENV_CHUNK);

	if (!bigger) {
		free(*buf);
		*buf = NULL;
		return false;
	}
	*buf = bigger;
	*cap += PROFENV_CHUNK;
	return true;
}

/* The whole file path in malloc'd memory. EOK, ENOENT, ENOMEM or EIO. */
errno_t prof_env_read_file(const char *path, void **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, len = 0, n = 0;
	char *buf = NULL;

	if (!f)
		return ENOENT;
	do {
		if (len == cap && !read_grow(&buf, &cap)) {
			fclose(f);
			return ENOMEM;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	errno_t err = ferror(f) ? EIO : EOK;
	fclose(f);
	if (err != EOK) {
		free(buf);
		return err;
	}
	*data = buf;
	*size = len;
	return EOK;
}

/* The stdio environment's loader: s's, or the whole file. */
static errno_t stdio_load(void *ctx, const char *path, void **data, size_t *size)
{
	const prof_stdio_t *s = ctx;

	if (s->load)
		return s->load(s->ctx, path, data, size);
	return prof_env_read_file(path, data, size);
}

/* The stdio environment's text output. */
static void stdio_out(void *ctx, const char *str, size_t len)
{
	const prof_stdio_t *s = ctx;

	fwrite(str, 1, len, s->out ? s->out : stdout);
}

/* The environment of s (s must outlive it). */
prof_env_t prof_env_stdio(const prof_stdio_t *s)
{
	prof_env_t env = { (void *)s, prof_env_malloc, prof_env_free, stdio_load, stdio_out };

	return env;
}
