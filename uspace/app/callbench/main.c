/*
 * callbench: a call-heavy benchmark for the call profiler's overhead.
 * /bin/callbench is built as usual, /bin/callbench-cp from this same file
 * with -finstrument-functions (uspace/app/callbench-cp/main.c includes
 * it); `bench cprof` runs both and prints the slowdown.
 *
 *   callbench [-h] [-q] [-r ROUNDS]
 *
 * Three kernels, each a few hundred instructions a call on average, none
 * inlined (every function is a call the hooks see):
 *
 *   expr   a recursive-descent evaluator of generated arithmetic
 *          (+ - * and parentheses over 24..96 digit numbers, modulo a
 *          prime): expr, term, factor, number
 *   sort   a recursive merge sort with insertion-sorted leaves of 24
 *   tree   a binary search tree of 64-byte records: recursive insert by
 *          key, then a recursive walk hashing each record (FNV-1a)
 *
 * Prints "name value unit" lines (callbench.expr, .sort, .tree: cycles
 * of the ROUNDS rounds; callbench.total; callbench.check, a checksum that
 * both builds must agree on). -q prints nothing (for timing from
 * outside). Exit status: 0; 1 out of memory or a bad result; 2 usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tsc.h>

#ifndef CALLBENCH_NAME
#define CALLBENCH_NAME "callbench"     /* callbench-cp: built with its own name */
#endif
#define NOINLINE __attribute__((noinline))
#define ROUNDS_DEFAULT 10
#define ROUNDS_MAX 1000
#define EXPR_TERMS 4000          /* numbers in the generated text */
#define EXPR_TEXT (EXPR_TERMS * 100)
#define EXPR_MOD 1000000007ull
#define SORT_N 20000
#define SORT_LEAF 24
#define TREE_N 3000
#define TREE_DATA 64
#define RND_POOL 512

typedef struct node {
	struct node *left, *right;
	uint64_t key;
	uint8_t data[TREE_DATA];
} node_t;

static uint64_t seed = 88172645463325252ull;

/*
 * Random words from a pool of RND_POOL, refilled by one call (xorshift64:
 * the same sequence in every build); RND() is a macro so that taking a
 * word is not a call of its own.
 */
static uint64_t rnd_pool[RND_POOL];
static unsigned rnd_pos = RND_POOL;

static NOINLINE uint64_t rnd_refill(void)
{
	for (unsigned i = 0; i < RND_POOL; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		rnd_pool[i] = seed;
	}
	rnd_pos = 1;
	return rnd_pool[0];
}

#define RND() (rnd_pos < RND_POOL ? rnd_pool[rnd_pos++] : rnd_refill())

/* ----------------------------------------------------------------- expr */

typedef struct gen {
	char *buf;
	size_t len, cap;
	unsigned left;                 /* numbers still to write */
} gen_t;

/* A number of 24..96 digits (16 from each random word). */
static NOINLINE void gen_number(gen_t *g)
{
	uint64_t r = RND();
	unsigned digits = 24 + (unsigned)(r % 73);

	for (unsigned i = 0; i < digits && g->len < g->cap; i++) {
		if (i % 16 == 0)
			r = RND();
		g->buf[g->len++] = (char)('0' + (i == 0 ? 1 + r % 9 : r % 10));
		r /= 10;
	}
	g->left--;
}

/* An expression of about the numbers left, nested at most depth deep. */
static NOINLINE void gen_expr(gen_t *g, unsigned depth)
{
	unsigned terms = 1 + (unsigned)(RND() % 4);

	for (unsigned i = 0; i < terms && g->left > 0 && g->len + 64 < g->cap; i++) {
		if (i > 0)
			g->buf[g->len++] = "+-*"[RND() % 3];
		if (depth > 0 && RND() % 3 == 0) {
			g->buf[g->len++] = '(';
			gen_expr(g, depth - 1);
			g->buf[g->len++] = ')';
		} else {
			gen_number(g);
		}
	}
}

typedef struct parser {
	const char *p;
} parser_t;

static uint64_t parse_expr(parser_t *ps);

static NOINLINE uint64_t parse_number(parser_t *ps)
{
	uint64_t v = 0;

	while (*ps->p >= '0' && *ps->p <= '9')
		v = (v * 10 + (uint64_t)(*ps->p++ - '0')) % EXPR_MOD;
	return v;
}

static NOINLINE uint64_t parse_factor(parser_t *ps)
{
	if (*ps->p != '(')
		return parse_number(ps);
	ps->p++;
	uint64_t v = parse_expr(ps);
	if (*ps->p == ')')
		ps->p++;
	return v;
}

static NOINLINE uint64_t parse_term(parser_t *ps)
{
	uint64_t v = parse_factor(ps);

	while (*ps->p == '*') {
		ps->p++;
		v = v * parse_factor(ps) % EXPR_MOD;
	}
	return v;
}

static NOINLINE uint64_t parse_expr(parser_t *ps)
{
	uint64_t v = parse_term(ps);

	while (*ps->p == '+' || *ps->p == '-') {
		char op = *ps->p++;
		uint64_t t = parse_term(ps);
		v = op == '+' ? (v + t) % EXPR_MOD : (v + EXPR_MOD - t) % EXPR_MOD;
	}
	return v;
}

/* Generate and evaluate one text; its value, or UINT64_MAX out of memory. */
static NOINLINE uint64_t run_expr(void)
{
	gen_t g = { malloc(EXPR_TEXT + 1), 0, EXPR_TEXT, EXPR_TERMS };
	uint64_t sum = 0;

	if (!g.buf)
		return UINT64_MAX;
	while (g.left > 0 && g.len + 64 < g.cap) {
		size_t start = g.len;
		gen_expr(&g, 4);
		g.buf[g.len] = '\0';
		parser_t ps = { g.buf + start };
		sum = sum * 31 + parse_expr(&ps);
	}
	free(g.buf);
	return sum;
}

/* ----------------------------------------------------------------- sort */

static NOINLINE void insertion_sort(uint32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static NOINLINE void merge(uint32_t *a, size_t mid, size_t n, uint32_t *tmp)
{
	size_t i = 0, j = mid, k = 0;

	while (i < mid && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

static NOINLINE void merge_sort(uint32_t *a, size_t n, uint32_t *tmp)
{
	if (n <= SORT_LEAF) {
		insertion_sort(a, n);
		return;
	}
	merge_sort(a, n / 2, tmp);
	merge_sort(a + n / 2, n - n / 2, tmp);
	merge(a, n / 2, n, tmp);
}

/* Sort random numbers; a checksum of the result, UINT64_MAX if unsorted/no memory. */
static NOINLINE uint64_t run_sort(void)
{
	uint32_t *a = malloc(SORT_N * sizeof(*a)), *tmp = malloc(SORT_N * sizeof(*a));
	uint64_t sum = 0;

	for (size_t i = 0; a && tmp && i < SORT_N; i++)
		a[i] = (uint32_t)RND();
	if (a && tmp)
		merge_sort(a, SORT_N, tmp);
	for (size_t i = 0; a && tmp && i < SORT_N; i++) {
		if (i > 0 && a[i - 1] > a[i])
			sum = UINT64_MAX - 1;
		sum = sum * 3 + a[i];
	}
	if (!a || !tmp || sum >= UINT64_MAX - 1)
		sum = UINT64_MAX;
	free(a);
	free(tmp);
	return sum;
}

/* ----------------------------------------------------------------- tree */

static NOINLINE void tree_insert(node_t **root, node_t *n)
{
	node_t **pp = root;

	while (*pp)
		pp = n->key < (*pp)->key ? &(*pp)->left : &(*pp)->right;
	*pp = n;
}

static NOINLINE uint64_t node_hash(const node_t *n)
{
	uint64_t h = 14695981039346656037ull ^ n->key;

	for (size_t i = 0; i < TREE_DATA; i++)
		h = (h ^ n->data[i]) * 1099511628211ull;
	return h;
}

/* In order: each hash folded into the running value. */
static NOINLINE uint64_t tree_walk(const node_t *t, uint64_t h)
{
	if (t->left)
		h = tree_walk(t->left, h);
	h = h * 131 + node_hash(t);
	return t->right ? tree_walk(t->right, h) : h;
}

/* A record with a random key and data. */
static NOINLINE void node_fill(node_t *n)
{
	memset(n, 0, sizeof(*n));
	n->key = RND();
	for (size_t i = 0; i < TREE_DATA; i += 8) {
		uint64_t r = RND();
		memcpy(n->data + i, &r, 8);
	}
}

static NOINLINE uint64_t run_tree(void)
{
	node_t *nodes = malloc(TREE_N * sizeof(*nodes)), *root = NULL;

	if (!nodes)
		return UINT64_MAX;
	for (size_t i = 0; i < TREE_N; i++) {
		node_fill(&nodes[i]);
		tree_insert(&root, &nodes[i]);
	}
	uint64_t h = tree_walk(root, 0);
	free(nodes);
	return h;
}

/* ----------------------------------------------------------------- main */

typedef struct kernel {
	const char *name;
	uint64_t (*run)(void);
	uint64_t cycles;
} kernel_t;

static void usage(FILE *out)
{
	fprintf(out, "usage: " CALLBENCH_NAME " [-h] [-q] [-r ROUNDS]\n"
		"  run the expr, sort and tree kernels ROUNDS times (default %d),\n"
		"  print their cycles and a checksum (-q: print nothing)\n", ROUNDS_DEFAULT);
}

/* Run every kernel rounds times; the checksum, or UINT64_MAX on a failure. */
static NOINLINE uint64_t run_all(kernel_t *k, size_t nk, unsigned long rounds)
{
	uint64_t check = 0;

	for (unsigned long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nk; i++) {
			uint64_t t0 = tsc_read(), v = k[i].run();
			k[i].cycles += tsc_read() - t0;
			if (v == UINT64_MAX)
				return UINT64_MAX;
			check = check * 1000003 + v;
		}
	}
	return check == UINT64_MAX ? 0 : check;
}

int main(int argc, char **argv)
{
	kernel_t k[] = { { "expr", run_expr, 0 }, { "sort", run_sort, 0 },
			 { "tree", run_tree, 0 } };
	unsigned long rounds = ROUNDS_DEFAULT;
	bool quiet = false;
	char *end;
	int c;

	while ((c = getopt(argc, argv, "hqr:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'q') {
			quiet = true;
			continue;
		}
		if (c != 'r' || *optarg < '1' || *optarg > '9' ||
		    (rounds = strtoul(optarg, &end, 10)) > ROUNDS_MAX || *end) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	uint64_t check = run_all(k, 3, rounds), total = 0;
	if (check == UINT64_MAX) {
		fprintf(stderr, CALLBENCH_NAME ": out of memory or a wrong result\n");
		return 1;
	}
	for (size_t i = 0; i < 3 && !quiet; i++)
		printf("callbench.%s %llu cycles\n", k[i].name, (unsigned long long)k[i].cycles);
	for (size_t i = 0; i < 3; i++)
		total += k[i].cycles;
	if (!quiet)
		printf("callbench.total %llu cycles\ncallbench.check %llu hash\n",
		       (unsigned long long)total, (unsigned long long)check);
	return 0;
}
