/*
 * Unit tests for lib/prof/core/ (lib/profcore.h): the growable array,
 * the byte buffer and its sticky error, the hash map with fixed and
 * string keys (growth keeps every entry), and the sort.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include <lib/profcore.h>

static long budget = -1;                /* allocations left; -1: no limit */

static void *t_alloc(void *ctx, size_t size)
{
	(void)ctx;
	if (budget == 0)
		return NULL;
	if (budget > 0)
		budget--;
	return malloc(size);
}

static void t_release(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const prof_env_t env = { NULL, t_alloc, t_release, NULL, NULL };

static void test_vec(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, n = 0;
	bool good = true;

	for (uint32_t i = 0; i < 1000; i++) {
		if (prof_vec_reserve(&env, (void **)&v, &cap, n, sizeof(*v)) != EOK)
			break;
		v[n++] = i;
	}
	for (uint32_t i = 0; i < n; i++)
		good = good && v[i] == i;
	is_uint(n, 1000, "vector: 1000 elements");
	ok(good && cap >= n, "vector: kept in order, capacity enough");
	budget = 0;
	size_t old = cap;
	is_int(prof_vec_reserve(&env, (void **)&v, &cap, cap, sizeof(*v)), ENOMEM,
	       "vector: ENOMEM when full and no memory");
	budget = -1;
	ok(cap == old && v[999] == 999, "vector: unchanged after ENOMEM");
	prof_release(&env, v);
}

static void test_buf(void)
{
	prof_buf_t b = { &env, NULL, 0, 0, EOK };

	for (int i = 0; i < 100; i++)
		prof_buf_put(&b, "abcd", 4);
	ok(b.len == 400 && !memcmp(b.p + 396, "abcd", 4) && b.err == EOK, "buffer: 400 bytes");
	budget = 0;
	for (int i = 0; i < 1000; i++)
		prof_buf_put(&b, "abcd", 4);
	budget = -1;
	is_int(b.err, ENOMEM, "buffer: ENOMEM is kept");
	size_t len = b.len;
	prof_buf_put(&b, "x", 1);
	is_uint(b.len, len, "buffer: nothing added after an error");
	prof_buf_free(&b);
	ok(b.p == NULL && b.len == 0 && b.err == EOK, "buffer: freed and empty");
}

static void test_map(void)
{
	prof_map_t m;
	bool created, good = true;

	prof_map_init(&m, 2 * sizeof(uint64_t), sizeof(uint64_t));
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t key[2] = { i, i * 7 }, *v = prof_map_get(&env, &m, key, &created);
		good = good && v && created;
		if (v)
			*v = i + 1;
	}
	ok(good && m.count == 5000, "map: 5000 keys added");
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t key[2] = { i, i * 7 }, *v = prof_map_get(&env, &m, key, &created);
		good = good && v && !created && *v == i + 1;
	}
	ok(good && m.count == 5000, "map: each found again with its value after growing");
	size_t used = 0;
	for (size_t i = 0; i < m.cap; i++)
		used += prof_map_key(&m, i) != NULL;
	is_uint(used, 5000, "map: 5000 slots in use");
	uint64_t k7[2] = { 7, 49 }, kno[2] = { 7, 48 };
	const uint64_t *v7 = prof_map_lookup(&m, k7);
	ok(v7 && *v7 == 8 && !prof_map_lookup(&m, kno), "map: lookup finds 7's value, not an absent key");
	prof_map_free(&env, &m);
	ok(!prof_map_lookup(&m, k7), "map: lookup in an empty map (no slots): NULL");

	char a[] = "alpha", b[] = "alpha";
	prof_str_t ka = { a, 5 }, kb = { b, 5 }, kc = { a, 4 };
	prof_map_init_str(&m, sizeof(uint32_t));
	uint32_t *va = prof_map_get(&env, &m, &ka, &created);
	*va = 42;
	uint32_t *vb = prof_map_get(&env, &m, &kb, &created);
	ok(vb == va && !created && *vb == 42, "string map: equal bytes, other pointer: found");
	prof_map_get(&env, &m, &kc, &created);
	ok(created && m.count == 2, "string map: a prefix is another key");
	prof_map_free(&env, &m);
}

static int cmp_u32(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	(void)ctx;
	return x < y ? -1 : x > y;
}

static void test_sort(void)
{
	uint32_t v[500];
	bool good = true;

	for (uint32_t i = 0; i < 500; i++)
		v[i] = (i * 7919u) % 503u;
	prof_sort(v, 500, sizeof(v[0]), cmp_u32, NULL);
	for (size_t i = 1; i < 500; i++)
		good = good && v[i - 1] <= v[i];
	ok(good, "sort: ascending");
	prof_sort(v, 0, sizeof(v[0]), cmp_u32, NULL);
	prof_sort(v, 1, sizeof(v[0]), cmp_u32, NULL);
	ok(true, "sort: 0 and 1 elements");
}

int main(void)
{
	test_vec();
	test_buf();
	test_map();
	test_sort();
	return done_testing();
}
