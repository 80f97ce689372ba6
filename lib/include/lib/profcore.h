/*
 * The profiler tools' core (lib/prof/core/): the few containers every
 * report, diff and export is built from, all drawing memory from a
 * prof_env_t. A growable array (prof_vec_reserve), a growable byte
 * buffer with a sticky error (prof_buf_t), an open-addressing hash map of
 * fixed-size keys and values (prof_map_t; keys may also be byte strings,
 * prof_str_t, hashed and compared by content) and a heapsort with a
 * context (prof_sort). Nothing recurses; nothing allocates but env.alloc.
 */
#ifndef LIB_PROFCORE_H
#define LIB_PROFCORE_H

#include <abi/errno.h>
#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* env.alloc of size bytes (at least 1); NULL when out of memory. */
void *prof_alloc(const prof_env_t *env, size_t size);

/* env.release of p; p may be NULL. */
void prof_release(const prof_env_t *env, void *p);

/*
 * Make room for element n (n + 1 elements of size bytes) in *arr of
 * capacity *cap, doubling it (first 16) and copying the n elements.
 * EOK, or ENOMEM with *arr and *cap untouched.
 */
errno_t prof_vec_reserve(const prof_env_t *env, void **arr, size_t *cap, size_t n,
			 size_t size);

/* A growable byte buffer; err is sticky (ENOMEM: later puts do nothing). */
typedef struct prof_buf {
	const prof_env_t *env;
	unsigned char *p;
	size_t len, cap;
	errno_t err;
} prof_buf_t;

/* Append len bytes of data to b (b->env gives the memory). */
void prof_buf_put(prof_buf_t *b, const void *data, size_t len);

/* Release b's bytes and empty it (its env stays). */
void prof_buf_free(prof_buf_t *b);

/* A 64-bit hash of len bytes of key (a word at a time: the hot path). */
uint64_t prof_hash(const void *key, size_t len);

/* A byte string key of a map with strkeys (bytes owned by the caller). */
typedef struct prof_str {
	const char *p;
	size_t len;
} prof_str_t;

/* An open-addressing hash map of fixed-size keys and values. */
typedef struct prof_map {
	unsigned char *slots;
	size_t cap, count, ksize, vsize, esize;
	bool strkeys;                   /* keys are prof_str_t, by content */
} prof_map_t;

/* An empty map of ksize-byte keys and vsize-byte values (no memory yet). */
void prof_map_init(prof_map_t *m, size_t ksize, size_t vsize);

/* An empty map of prof_str_t keys and vsize-byte values. */
void prof_map_init_str(prof_map_t *m, size_t vsize);

/*
 * The value of key, inserted (zeroed) when absent; *created says which.
 * NULL when out of memory. A string key's bytes are the caller's: it
 * replaces them (prof_map_key) with a lasting copy when *created.
 */
void *prof_map_get(const prof_env_t *env, prof_map_t *m, const void *key, bool *created);

/*
 * Slot i's entry (i < m->cap): a used byte padded to 8 (0: empty), the
 * key (ksize bytes), the value (vsize bytes).
 */
unsigned char *prof_map_entry(const prof_map_t *m, size_t i);

/* The entry holding key, or the empty one where it would go (m->cap > 0). */
unsigned char *prof_map_find(const prof_map_t *m, const void *key);

/* The value of key, or NULL when m does not hold it (any m, even empty). */
void *prof_map_lookup(const prof_map_t *m, const void *key);

/* The 64-bit word at p (unaligned; inlined: no call). */
static inline uint64_t prof_map_word(const unsigned char *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, 8);
	return w;
}

/* Slot i's key, or NULL when slot i (< m->cap) is empty. */
void *prof_map_key(const prof_map_t *m, size_t i);

/* The value of the key in slot i (which must be in use). */
void *prof_map_value(const prof_map_t *m, size_t i);

/* Release m's slots; m is empty after. */
void prof_map_free(const prof_env_t *env, prof_map_t *m);

/* Ascending order of a and b (negative, 0, positive). */
typedef int (*prof_cmp_t)(const void *a, const void *b, void *ctx);

/* Heapsort n elements of size bytes ascending by cmp (no recursion, no memory). */
void prof_sort(void *base, size_t n, size_t size, prof_cmp_t cmp, void *ctx);

#endif
