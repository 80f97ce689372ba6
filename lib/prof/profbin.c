/* Symbols of profiled binaries, loaded once (see lib/profbin.h). */
#include <lib/profbin.h>
#include <lib/string.h>

uint64_t profbin_fnv(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static profsym_mem_t profbin_mem(const prof_env_t *env)
{
	profsym_mem_t m = { env->ctx, env->alloc, env->release };

	return m;
}

/* Try path.nm for a binary whose ELF gave no symbols. */
static errno_t profbin_load_nm(const prof_env_t *env, profbin_t *b)
{
	size_t len = strlen(b->path);
	char *nm = env->alloc(env->ctx, len + 4);
	void *data;
	size_t size;

	if (!nm)
		return ENOMEM;
	memcpy(nm, b->path, len);
	memcpy(nm + len, ".nm", 4);
	errno_t err = env->load(env->ctx, nm, &data, &size);
	env->release(env->ctx, nm);
	if (err != EOK)
		return err;
	profsym_mem_t mem = profbin_mem(env);
	err = profsym_from_nm(&b->sym, data, size, &mem);
	env->release(env->ctx, data);
	return err;
}

void profbin_load(const prof_env_t *env, profbin_t *b)
{
	void *data;
	size_t size;

	if (b->tried)
		return;
	b->tried = true;
	if (env->load(env->ctx, b->path, &data, &size) == EOK) {
		b->stale = b->hash != 0 && profbin_fnv(data, size) != b->hash;
		if (profsym_from_elf(&b->sym, data, size) == EOK) {
			b->data = data;
			b->size = size;
			b->ok = true;
			return;
		}
		env->release(env->ctx, data);
	}
	b->ok = profbin_load_nm(env, b) == EOK;
}

const char *profbin_lookup(const prof_env_t *env, profbin_t *b, uint64_t addr,
			   uint64_t *off)
{
	profbin_load(env, b);
	return b->ok ? elfsym_lookup(&b->sym.table, addr, off) : NULL;
}

void profbin_free(const prof_env_t *env, profbin_t *b)
{
	profsym_mem_t mem = profbin_mem(env);

	profsym_release(&b->sym, &mem);
	if (b->data)
		env->release(env->ctx, b->data);
	if (b->path)
		env->release(env->ctx, b->path);
	b->data = NULL;
	b->path = NULL;
}
