/* Host tests for kernel/proc/binquota.c: the program cache's charge per quota tree. */
#include "tap.h"
#include <kernel/binquota.h>

#define LIMIT (4u << 20)
#define ENTRY ((1u << 20) + 8192)    /* an image with 1 MiB of symbols, as kholes.t */

static void test_within_limit(void)
{
	binquota_t q;

	binquota_init(&q, LIMIT);
	is_uint(q.bytes, 0, "a new account holds nothing");
	is_uint(q.refs, 1, "a new account has its root's reference");
	for (int i = 0; i < 3; i++)
		is_int(binquota_charge(&q, ENTRY), EOK, "entry %d of 1 MiB fits", i + 1);
	is_uint(q.bytes, 3 * ENTRY, "three entries charged");
	is_uint(q.entries, 3, "three entries counted");
	is_int(binquota_charge(&q, ENTRY), ELIMIT, "the fourth does not fit: ELIMIT");
	is_uint(q.bytes, 3 * ENTRY, "a refused charge charges nothing");
	is_uint(q.denied, 1, "the refusal is counted");
	ok(binquota_fits(&q, LIMIT - 3 * ENTRY), "exactly the rest fits");
	ok(!binquota_fits(&q, LIMIT - 3 * ENTRY + 1), "one byte more does not");
	binquota_uncharge(&q, ENTRY);
	is_int(binquota_charge(&q, ENTRY), EOK, "after an eviction the entry fits again");
}

static void test_edges(void)
{
	binquota_t q;

	binquota_init(&q, LIMIT);
	is_int(binquota_charge(&q, LIMIT), EOK, "one entry of the whole limit fits");
	is_int(binquota_charge(&q, 1), ELIMIT, "then not a byte more");
	binquota_uncharge(&q, LIMIT);
	is_uint(q.bytes, 0, "uncharged back to zero");
	is_int(binquota_charge(&q, LIMIT + 1), ELIMIT, "an entry above the limit never fits");
	ok(!binquota_fits(&q, SIZE_MAX), "SIZE_MAX does not wrap around into fitting");
	binquota_uncharge(&q, 4096);
	is_uint(q.bytes, 0, "an uncharge never goes below zero");
	is_uint(q.entries, 0, "nor does the entry count");
}

static void test_refs(void)
{
	binquota_t q;

	binquota_init(&q, LIMIT);
	binquota_ref(&q);                       /* a child task */
	binquota_ref(&q);                       /* a grandchild */
	ok(!binquota_unref(&q), "the root task is freed: the account stays");
	ok(!binquota_unref(&q), "the child is freed: it stays for the grandchild");
	ok(binquota_unref(&q), "the grandchild is freed: the last reference");
}

/* Two trees: one at its bound does not change what the other may charge. */
static void test_trees_apart(void)
{
	binquota_t a, b;

	binquota_init(&a, LIMIT);
	binquota_init(&b, LIMIT);
	while (binquota_charge(&a, ENTRY) == EOK)
		;
	is_uint(a.denied, 1, "the attacker tree stops at its bound");
	is_int(binquota_charge(&b, ENTRY), EOK, "another tree still charges its entry");
	is_uint(b.denied, 0, "and is refused nothing");
}

int main(void)
{
	test_within_limit();
	test_edges();
	test_refs();
	test_trees_apart();
	return done_testing();
}
