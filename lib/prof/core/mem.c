/*
 * The profiler core's memory (lib/profcore.h): allocation through a
 * prof_env_t, the growable array and the growable byte buffer.
 */
#include <lib/profcore.h>
#include <lib/string.h>

/* env.alloc of size bytes (at least 1); NULL when out of memory. */
void *prof_alloc(const prof_env_t *env, size_t size)
{
	return env->alloc(env->ctx, size ? size : 1);
}

/* env.release of p; p may be NULL. */
void prof_release(const prof_env_t *env, void *p)
{
	if (p)
		env->release(env->ctx, p);
}

/* Room for element n of *arr (capacity doubled, first 16); EOK or ENOMEM. */
errno_t prof_vec_reserve(const prof_env_t *env, void **arr, size_t *cap, size_t n,
			 size_t size)
{
	if (n < *cap)
		return EOK;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *na = prof_alloc(env, ncap * size);
	if (!na)
		return ENOMEM;
	if (*arr)
		memcpy(na, *arr, n * size);
	prof_release(env, *arr);
	*arr = na;
	*cap = ncap;
	return EOK;
}

/* Grow b to hold len more bytes (doubling, first 256); false: ENOMEM. */
static bool buf_room(prof_buf_t *b, size_t len)
{
	if (b->cap - b->len >= len)
		return true;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap - b->len < len)
		ncap *= 2;
	unsigned char *np = prof_alloc(b->env, ncap);
	if (!np) {
		b->err = ENOMEM;
		return false;
	}
	if (b->p)
		memcpy(np, b->p, b->len);
	prof_release(b->env, b->p);
	b->p = np;
	b->cap = ncap;
	return true;
}

/* Append len bytes of data to b unless it failed before. */
void prof_buf_put(prof_buf_t *b, const void *data, size_t len)
{
	if (b->err || !buf_room(b, len))
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* Release b's bytes and empty it (its env stays). */
void prof_buf_free(prof_buf_t *b)
{
	prof_release(b->env, b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = EOK;
}
