/*
 * The profiler core's hash map (lib/profcore.h): open addressing with
 * linear probing, a power-of-two capacity grown at 3/4 full. An entry is
 * a used byte (padded to 8), the key, the value. Keys are hashed and
 * compared a word at a time (every key type of the report is a multiple
 * of 8 bytes; a tail goes bytewise): the maps are the hot path of feeding
 * a report. A map of string keys (prof_str_t) hashes and compares the
 * bytes the key points at.
 */
#include <lib/profcore.h>
#include <lib/string.h>

/* A 64-bit hash of len bytes of key. */
uint64_t prof_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		h = (h ^ prof_map_word(p + i)) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static bool map_bytes_eq(const unsigned char *a, const unsigned char *b, size_t len)
{
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		if (prof_map_word(a + i) != prof_map_word(b + i))
			return false;
	}
	for (; i < len; i++) {
		if (a[i] != b[i])
			return false;
	}
	return true;
}

static uint64_t map_key_hash(const prof_map_t *m, const void *key)
{
	const prof_str_t *s = key;

	return m->strkeys ? prof_hash(s->p, s->len) : prof_hash(key, m->ksize);
}

static bool map_key_eq(const prof_map_t *m, const unsigned char *a, const void *b)
{
	prof_str_t sa, sb;

	if (!m->strkeys)
		return map_bytes_eq(a, b, m->ksize);
	memcpy(&sa, a, sizeof(sa));
	memcpy(&sb, b, sizeof(sb));
	return sa.len == sb.len && map_bytes_eq((const void *)sa.p, (const void *)sb.p, sa.len);
}

/* An empty map of ksize-byte keys and vsize-byte values. */
void prof_map_init(prof_map_t *m, size_t ksize, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->ksize = ksize;
	m->vsize = vsize;
	m->esize = (8 + ksize + vsize + 7) & ~(size_t)7;
}

/* An empty map of prof_str_t keys and vsize-byte values. */
void prof_map_init_str(prof_map_t *m, size_t vsize)
{
	prof_map_init(m, sizeof(prof_str_t), vsize);
	m->strkeys = true;
}

/* Slot i's entry: the used byte, the key, the value. */
unsigned char *prof_map_entry(const prof_map_t *m, size_t i)
{
	return m->slots + i * m->esize;
}

/* The entry holding key, or the empty one where it would go. */
unsigned char *prof_map_find(const prof_map_t *m, const void *key)
{
	size_t i = map_key_hash(m, key) & (m->cap - 1);

	for (;;) {
		unsigned char *e = prof_map_entry(m, i);
		if (!e[0] || map_key_eq(m, e + 8, key))
			return e;
		i = (i + 1) & (m->cap - 1);
	}
}

void *prof_map_lookup(const prof_map_t *m, const void *key)
{
	unsigned char *e = m->cap ? prof_map_find(m, key) : NULL;

	return e && e[0] ? e + 8 + m->ksize : NULL;
}

static errno_t map_grow(const prof_env_t *env, prof_map_t *m)
{
	prof_map_t n = *m;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.slots = prof_alloc(env, n.cap * n.esize);
	if (!n.slots)
		return ENOMEM;
	memset(n.slots, 0, n.cap * n.esize);
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *e = prof_map_entry(m, i);
		if (e[0])
			memcpy(prof_map_find(&n, e + 8), e, m->esize);
	}
	prof_release(env, m->slots);
	*m = n;
	return EOK;
}

/* The value of key, inserted zeroed when absent; NULL without memory. */
void *prof_map_get(const prof_env_t *env, prof_map_t *m, const void *key, bool *created)
{
	if ((m->count + 1) * 4 > m->cap * 3 && map_grow(env, m) != EOK)
		return NULL;
	unsigned char *e = prof_map_find(m, key);
	*created = !e[0];
	if (!e[0]) {
		memset(e, 0, m->esize);
		e[0] = 1;
		memcpy(e + 8, key, m->ksize);
		m->count++;
	}
	return e + 8 + m->ksize;
}

/* Slot i's key, or NULL when the slot is empty. */
void *prof_map_key(const prof_map_t *m, size_t i)
{
	unsigned char *e = prof_map_entry(m, i);

	return e[0] ? e + 8 : NULL;
}

/* The value in slot i. */
void *prof_map_value(const prof_map_t *m, size_t i)
{
	return prof_map_entry(m, i) + 8 + m->ksize;
}

/* Release m's slots; m is empty after. */
void prof_map_free(const prof_env_t *env, prof_map_t *m)
{
	prof_release(env, m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
