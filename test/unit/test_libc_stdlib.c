/*
 * Unit tests for libc's qsort/qsort_r/bsearch (sortedness and permutation
 * on random and adversarial inputs, comparison counts), getopt (against
 * glibc's getopt in POSIX mode, "+" optstrings) and rand.
 */
#include "rng.h"
#include "tap.h"

#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "libc_host.h"

static uint64_t rng_state = 0xbb67ae8584caa73bull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

/* ---------------------------------------------------------------- qsort */

static long compares;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	compares++;
	return (x > y) - (x < y);
}

static int cmp_int_r(const void *a, const void *b, void *ctx)
{
	(*(int *)ctx)++;
	return cmp_int(b, a);   /* descending */
}

static int cmp_ull(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* A 20-byte record sorted by key, carrying its original index. */
typedef struct rec {
	int key;
	int index;
	char pad[12];
} rec_t;

static int cmp_rec(const void *a, const void *b)
{
	return cmp_int(&((const rec_t *)a)->key, &((const rec_t *)b)->key);
}

static bool sorted_ints(const int *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return false;
	return true;
}

/* Same multiset: compare with the host's sort of a copy. */
static bool same_multiset(const int *got, const int *orig, size_t n)
{
	int *ref = malloc(n * sizeof(int) + 1);

	memcpy(ref, orig, n * sizeof(int));
	qsort(ref, n, sizeof(int), cmp_int);
	bool same = memcmp(ref, got, n * sizeof(int)) == 0;
	free(ref);
	return same;
}

/* Input shapes: random, sorted, reversed, all equal, few values, organ pipe. */
static int shape_value(int shape, size_t i, size_t n)
{
	switch (shape) {
	case 0: return (int)(rng() % 1000000);
	case 1: return (int)i;
	case 2: return (int)(n - i);
	case 3: return 7;
	case 4: return (int)(rng() % 3);
	default: return (int)(i < n / 2 ? i : n - i);
	}
}

static void test_qsort_shapes(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 5, 12, 13, 14, 100, 1000, 100000 };
	int bad = 0;
	long worst = 0;

	for (int shape = 0; shape < 6; shape++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			int *v = malloc(n * sizeof(int) + 1);
			int *orig = malloc(n * sizeof(int) + 1);
			for (size_t i = 0; i < n; i++)
				v[i] = orig[i] = shape_value(shape, i, n);
			compares = 0;
			vl_qsort(v, n, sizeof(int), cmp_int);
			if (!sorted_ints(v, n) || !same_multiset(v, orig, n))
				bad++;
			if (n == 100000 && compares > worst)
				worst = compares;
			free(v);
			free(orig);
		}
	}
	is_int(bad, 0, "qsort sorts every shape and size (0..100000)");
	ok(worst < 100000L * 17 * 3, "at most 3 n log2 n comparisons (%ld)", worst);
}

/* The classic median-of-three killer sequence. */
static void test_qsort_adversary(void)
{
	enum { N = 1 << 16 };
	static int v[N];

	for (int i = 0; i < N / 2; i++) {
		v[i] = i % 2 == 0 ? i + 1 : N / 2 + i + (i % 2);
		v[N / 2 + i] = 2 * (i + 1);
	}
	compares = 0;
	vl_qsort(v, N, sizeof(int), cmp_int);
	ok(sorted_ints(v, N), "median-of-3 killer input sorted");
	ok(compares < (long)N * 16 * 4, "without quadratic blow-up (%ld compares)",
	   compares);
}

static void test_qsort_records(void)
{
	enum { N = 5000 };
	static rec_t r[N];
	bool good = true;

	for (int i = 0; i < N; i++) {
		r[i].key = (int)(rng() % 100);
		r[i].index = i;
		memset(r[i].pad, i & 0xff, sizeof(r[i].pad));
	}
	vl_qsort(r, N, sizeof(rec_t), cmp_rec);
	for (int i = 0; i < N; i++) {
		good = good && (i == 0 || r[i - 1].key <= r[i].key);
		good = good && r[i].pad[11] == (char)(r[i].index & 0xff);
	}
	ok(good, "20-byte records with many duplicates stay whole and sorted");

	uint64_t big[1000];
	for (int i = 0; i < 1000; i++)
		big[i] = rng();
	vl_qsort(big, 1000, sizeof(big[0]), cmp_ull);
	bool ok64 = true;
	for (int i = 1; i < 1000; i++)
		ok64 = ok64 && big[i - 1] <= big[i];
	ok(ok64, "64-bit elements");

	int d[100], calls = 0;
	for (int i = 0; i < 100; i++)
		d[i] = (int)(rng() % 50);
	vl_qsort_r(d, 100, sizeof(int), cmp_int_r, &calls);
	bool desc = calls > 0;
	for (int i = 1; i < 100; i++)
		desc = desc && d[i - 1] >= d[i];
	ok(desc, "qsort_r passes the context (descending sort, %d calls)", calls);
}

static void test_bsearch(void)
{
	int v[100];
	int bad = 0;

	for (int i = 0; i < 100; i++)
		v[i] = 2 * i;
	for (int k = -1; k < 201; k++) {
		int *p = vl_bsearch(&k, v, 100, sizeof(int), cmp_int);
		if (k >= 0 && k % 2 == 0 && k < 200)
			bad += !p || *p != k;
		else
			bad += p != NULL;
	}
	is_int(bad, 0, "bsearch finds present keys and only those");
	int k = 5;
	ok(vl_bsearch(&k, v, 0, sizeof(int), cmp_int) == NULL, "bsearch of nothing");
}

/* ---------------------------------------------------------------- getopt */

#define MAX_ARGS 10

/* A log of getopt results: "c:arg" per option, then "|optind". */
typedef char log_t[256];

static void log_opt(char *log, int c, const char *arg, int opt)
{
	size_t n = strlen(log);

	snprintf(log + n, sizeof(log_t) - n, "%c%s%s(%d) ", c, arg ? "=" : "",
		 arg ? arg : "", c == '?' || c == ':' ? opt : 0);
}

static void run_vl(const char *opts, int argc, char **argv, char *log)
{
	int c;

	log[0] = '\0';
	vl_optind = 0;
	vl_opterr = 0;
	while ((c = vl_getopt(argc, argv, opts)) != -1)
		log_opt(log, c, vl_optarg, vl_optopt);
	snprintf(log + strlen(log), sizeof(log_t) - strlen(log), "|%d", vl_optind);
}

static void run_host(const char *opts, int argc, char **argv, char *log)
{
	char plus[64];
	int c;

	/* '+': POSIX behaviour, no permutation (':' must stay first). */
	snprintf(plus, sizeof(plus), "+%s", opts);
	log[0] = '\0';
	optind = 0;
	opterr = 0;
	while ((c = getopt(argc, argv, plus)) != -1)
		log_opt(log, c, optarg, optopt);
	snprintf(log + strlen(log), sizeof(log_t) - strlen(log), "|%d", optind);
}

typedef struct getopt_case {
	const char *opts;
	const char *args[MAX_ARGS];
} getopt_case_t;

static const getopt_case_t getopt_cases[] = {
	{ "ab:c", { "prog", "-a", "-b", "arg", "-c", "file", NULL } },
	{ "ab:c", { "prog", "-abfoo", "-c", NULL } },
	{ "ab:c", { "prog", "-ac", "-b", NULL } },
	{ ":ab:c", { "prog", "-ac", "-b", NULL } },
	{ "ab:c", { "prog", "-x", "-a", NULL } },
	{ ":ab:c", { "prog", "-ax", "-c", NULL } },
	{ "ab:c", { "prog", "-a", "--", "-c", NULL } },
	{ "ab:c", { "prog", "-a", "-", "-c", NULL } },
	{ "ab:c", { "prog", "file", "-a", NULL } },
	{ "ab:c", { "prog", NULL } },
	{ "ab:c", { "prog", "-b", "--", "-a", NULL } },
	{ "ab:c", { "prog", "-b", "-a", "-c", NULL } },
	{ "a:", { "prog", "-a", "", "-a", NULL } },
	{ "abc", { "prog", "-abc", "-cba", "--x", NULL } },
	{ "ab::", { "prog", "-bval", "-b", "val", NULL } },
	{ "ab:", { "prog", "-:", "-a", NULL } },
	{ "n:v", { "prog", "-n5", "-vv", "-n", "-v", "rest", NULL } },
};

static void test_getopt_vs_glibc(void)
{
	int bad = 0;

	for (size_t i = 0; i < sizeof(getopt_cases) / sizeof(getopt_cases[0]); i++) {
		const getopt_case_t *t = &getopt_cases[i];
		char *a1[MAX_ARGS], *a2[MAX_ARGS];
		char store[2][MAX_ARGS][32];
		int argc = 0;
		log_t l1, l2;

		for (; t->args[argc]; argc++) {
			a1[argc] = strcpy(store[0][argc], t->args[argc]);
			a2[argc] = strcpy(store[1][argc], t->args[argc]);
		}
		a1[argc] = a2[argc] = NULL;
		run_vl(t->opts, argc, a1, l1);
		run_host(t->opts, argc, a2, l2);
		if (strcmp(l1, l2) != 0) {
			bad++;
			diag("getopt \"%s\" case %zu: got %s expected %s", t->opts, i,
			     l1, l2);
		}
	}
	is_int(bad, 0, "getopt agrees with glibc's POSIX mode on %zu cases",
	       sizeof(getopt_cases) / sizeof(getopt_cases[0]));
}

static void test_getopt_messages(void)
{
	char *argv[] = { "prog", "-x", "-b", NULL };

	fake_reset();
	vl_optind = 1;
	vl_opterr = 1;
	is_int(vl_getopt(3, argv, "ab:"), '?', "unknown option");
	is_int(vl_optopt, 'x', "optopt");
	is_int(vl_getopt(3, argv, "ab:"), '?', "missing argument");
	is_str(fake_console(), "prog: invalid option -- 'x'\n"
	       "prog: option requires an argument -- 'b'\n",
	       "glibc-style messages on stderr");
	is_int(vl_getopt(3, argv, "ab:"), -1, "then the end");
	fake_console_clear();
	vl_optind = 1;
	vl_getopt(3, argv, ":ab:");
	is_str(fake_console(), "", "leading ':' silences messages");
	vl_optind = 1;
	vl_opterr = 0;
	vl_getopt(3, argv, "ab:");
	is_str(fake_console(), "", "opterr = 0 silences messages");
	char *argv2[] = { "prog", "-a", NULL };
	vl_optind = 1;
	is_int(vl_getopt(2, argv2, "ab:"), 'a', "setting optind = 1 restarts");
}

/* getopt_help_only: which stream each usage call got. */
static vl_FILE *usage_to;
static int usage_calls;

static void record_usage(vl_FILE *out)
{
	usage_to = out;
	usage_calls++;
}

/* argc/argv from a NULL-terminated list; getopt_help_only(min, max). */
static int help_only(char **argv, int min, int max)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	usage_to = NULL;
	usage_calls = 0;
	vl_optind = 1;
	vl_opterr = 0;
	return vl_getopt_help_only(argc, argv, record_usage, min, max);
}

static void test_getopt_help_only(void)
{
	char *h[] = { "prog", "-h", "x", NULL }, *x[] = { "prog", "-x", NULL },
	     *none[] = { "prog", NULL }, *two[] = { "prog", "a", "b", NULL },
	     *dd[] = { "prog", "--", "-h", NULL };

	is_int(help_only(h, 0, 0), 0, "-h: 0 (even with too many operands)");
	ok(usage_to == vl_stdout && usage_calls == 1, "-h: usage once, on stdout");
	is_int(help_only(x, 0, 9), 2, "unknown option: 2");
	ok(usage_to == vl_stderr && usage_calls == 1, "unknown option: usage on stderr");
	is_int(help_only(none, 1, 1), 2, "too few operands: 2");
	ok(usage_to == vl_stderr, "too few operands: usage on stderr");
	is_int(help_only(two, 0, 1), 2, "too many operands: 2");
	ok(usage_to == vl_stderr, "too many operands: usage on stderr");
	is_int(help_only(two, 2, 2), -1, "operands in range: -1");
	ok(usage_calls == 0 && vl_optind == 1, "no usage; optind at the first operand");
	is_int(help_only(dd, 1, 1), -1, "after --, -h is an operand");
	is_int(vl_optind, 2, "optind past --");
	is_int(help_only(none, 0, 0), -1, "no options, no operands: -1");
}

/* ---------------------------------------------------------------- rand */

static void test_rand(void)
{
	int seen_hi = 0, in_range = 1;
	int first[5], again[5];

	vl_srand(42);
	for (int i = 0; i < 5; i++)
		first[i] = vl_rand();
	vl_srand(42);
	for (int i = 0; i < 5; i++)
		again[i] = vl_rand();
	ok(memcmp(first, again, sizeof(first)) == 0, "srand makes rand repeatable");
	for (int i = 0; i < 10000; i++) {
		int r = vl_rand();
		in_range &= r >= 0;
		seen_hi |= r > 0x40000000;
	}
	ok(in_range && seen_hi, "rand covers [0, RAND_MAX]");
}

int main(void)
{
	test_qsort_shapes();
	test_qsort_adversary();
	test_qsort_records();
	test_bsearch();
	test_getopt_vs_glibc();
	test_getopt_messages();
	test_getopt_help_only();
	test_rand();
	return done_testing();
}
