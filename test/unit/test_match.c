/*
 * Host tests for lib/match.c: hand-picked cases, malformed patterns, the
 * size limits, a pathological pattern, and random patterns checked
 * against the host C library's POSIX basic regular expressions (regcomp),
 * with and without case folding.
 */
#include "tap.h"

#include <regex.h>
#include <string.h>

#include <lib/match.h>

#define RANDOM_CASES 20000

typedef struct {
	const char *pattern;
	const char *text;
	unsigned flags;
	bool match;
} match_case_t;

static const match_case_t cases[] = {
	{ "", "", 0, true },
	{ "", "abc", 0, true },
	{ "abc", "xxabcxx", 0, true },
	{ "abc", "abxc", 0, false },
	{ "a.c", "abc", 0, true },
	{ "a.c", "ac", 0, false },
	{ "ab*c", "ac", 0, true },
	{ "ab*c", "abbbbc", 0, true },
	{ "ab*c", "abdc", 0, false },
	{ ".*", "", 0, true },
	{ "a.*z", "a to z", 0, true },
	{ "^abc", "abcd", 0, true },
	{ "^abc", "xabc", 0, false },
	{ "abc$", "xabc", 0, true },
	{ "abc$", "abcx", 0, false },
	{ "^$", "", 0, true },
	{ "^$", "x", 0, false },
	{ "^", "anything", 0, true },
	{ "$", "anything", 0, true },
	{ "a^b", "a^b", 0, true },
	{ "a$b", "a$b", 0, true },
	{ "^^", "^x", 0, true },
	{ "$$", "x$", 0, true },
	{ "*a", "*a", 0, true },
	{ "*a", "a", 0, false },
	{ "^*a", "*a", 0, true },
	{ "a**", "", 0, true },
	{ "[abc]", "xbx", 0, true },
	{ "[abc]", "xyz", 0, false },
	{ "[a-z][0-9]", "A1 b2", 0, true },
	{ "[a-z][0-9]", "A1 B2", 0, false },
	{ "[^a-z]", "abc", 0, false },
	{ "[^a-z]", "abC", 0, true },
	{ "[]]", "]", 0, true },
	{ "[^]]", "]", 0, false },
	{ "[a-]", "-", 0, true },
	{ "[-a]", "-", 0, true },
	{ "[.*]", "x*", 0, true },
	{ "[.*]", "xy", 0, false },
	{ "[\\]", "\\", 0, true },
	{ "x[ab]*y", "xababbay", 0, true },
	{ "x[ab]*y", "xabcy", 0, false },
	{ "\\.", "a.b", 0, true },
	{ "\\.", "ab", 0, false },
	{ "\\*", "*", 0, true },
	{ "\\[", "[", 0, true },
	{ "\\\\", "\\", 0, true },
	{ "\\$", "a$", 0, true },
	{ "\\^", "a^", 0, true },
	{ "a\\**", "a", 0, true },
	{ "hello", "HeLLo world", MATCH_ICASE, true },
	{ "HELLO", "hello", MATCH_ICASE, true },
	{ "hello", "HeLLo world", 0, false },
	{ "[a-c]x", "BX", MATCH_ICASE, true },
	{ "[^a]", "A", MATCH_ICASE, false },
	{ "[^a]", "b", MATCH_ICASE, true },
	/* POSIX: c matches when it or its other case is in the set. */
	{ "[B-b]", "c", MATCH_ICASE, true },
	{ "[B-b]", "c", 0, false },
	{ "^W.*\\.$", "Welcome to Vernier.", 0, true },
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const match_case_t *c = &cases[i];
		match_t m;
		errno_t rc = match_compile(&m, c->pattern, c->flags);
		size_t len = strlen(c->text);
		bool got = rc == EOK && match_find(&m, c->text, len);
		ok(rc == EOK && got == c->match,
		   "'%s'%s %s '%s'", c->pattern,
		   c->flags & MATCH_ICASE ? " (icase)" : "",
		   c->match ? "matches" : "does not match", c->text);
	}
}

static void test_bad_patterns(void)
{
	static const char *const bad[] = {
		"[abc", "[", "[^", "[]", "a\\", "[z-a]", "[[:alpha:]]",
		"[[.a.]]", "[[=a=]]",
	};
	match_t m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno_t rc = match_compile(&m, bad[i], 0);
		ok(rc == EINVAL && m.error != NULL, "'%s' is refused (%s)",
		   bad[i], rc == EINVAL ? m.error : "accepted");
	}
}

static void test_limits(void)
{
	char pat[MATCH_MAX_ITEMS + 2];
	char text[MATCH_MAX_ITEMS + 1];
	match_t m;

	memset(pat, 'a', MATCH_MAX_ITEMS);
	pat[MATCH_MAX_ITEMS] = '\0';
	memset(text, 'a', MATCH_MAX_ITEMS);
	ok(match_compile(&m, pat, 0) == EOK, "%d items compile",
	   MATCH_MAX_ITEMS);
	ok(match_find(&m, text, MATCH_MAX_ITEMS),
	   "... and match that many a's");
	ok(!match_find(&m, text, MATCH_MAX_ITEMS - 1), "... but not one fewer");
	strcpy(pat + MATCH_MAX_ITEMS, "a");
	is_int(match_compile(&m, pat, 0), ELIMIT, "%d items: ELIMIT",
	       MATCH_MAX_ITEMS + 1);

	char sets[4 * (MATCH_MAX_SETS + 1) + 1] = "";
	for (int i = 0; i < MATCH_MAX_SETS; i++)
		strcat(sets, "[a]");
	ok(match_compile(&m, sets, 0) == EOK, "%d sets compile",
	   MATCH_MAX_SETS);
	strcat(sets, "[a]");
	is_int(match_compile(&m, sets, 0), ELIMIT, "%d sets: ELIMIT",
	       MATCH_MAX_SETS + 1);
}

static void test_binary_text(void)
{
	match_t m;
	static const char text[] = { 'x', '\0', 'y', '\n', 'z' };

	match_compile(&m, "x.y.z", 0);
	ok(match_find(&m, text, sizeof(text)),
	   "'.' takes NUL and newline bytes");
	match_compile(&m, "z$", 0);
	ok(match_find(&m, text, sizeof(text)),
	   "the length, not a NUL, ends the text");
}

/* a*a*...a*b against a long run of a's: linear, not exponential. */
static void test_no_backtracking(void)
{
	static char text[100000];
	char pat[64] = "";
	match_t m;

	memset(text, 'a', sizeof(text));
	for (int i = 0; i < 20; i++)
		strcat(pat, "a*");
	strcat(pat, "b");
	match_compile(&m, pat, 0);
	ok(!match_find(&m, text, sizeof(text)),
	   "(a*){20}b against 100000 a's: no match, in linear time");
}

/* xorshift: deterministic random numbers. */
static unsigned long rnd_state = 0x9e3779b97f4a7c15ul;

static unsigned rnd(unsigned n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

/*
 * A random pattern within the subset (no escaped letters: GNU extensions).
 * atoms[STAR] is "*".
 */
#define STAR 5
static void random_pattern(char *out)
{
	static const char *const atoms[] = {
		"a", "b", "A", "B", ".", "*", "^", "$", "-", "[ab]", "[^a]",
		"[a-c]", "[A-C]", "[]a]", "[a-]", "\\.", "\\*", "\\[", "\\$",
		"\\^", "\\\\",
	};
	unsigned n = rnd(7), prev = 0, a;

	out[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		do      /* regcomp refuses "**" (we take it as "*") */
			a = rnd(sizeof(atoms) / sizeof(atoms[0]));
		while (i > 0 && a == STAR && prev == STAR);
		strcat(out, atoms[a]);
		prev = a;
	}
}

static void random_text(char *out)
{
	static const char chars[] = "abcABC.*^$-[]\\";
	unsigned n = rnd(9);

	for (unsigned i = 0; i < n; i++)
		out[i] = chars[rnd(sizeof(chars) - 1)];
	out[n] = '\0';
}

/* Our verdict against regexec's for one pattern and text; false if differ. */
static bool agrees(const char *pat, const char *text, unsigned flags)
{
	int cflags = REG_NOSUB | (flags & MATCH_ICASE ? REG_ICASE : 0);
	regex_t re;
	match_t m;
	bool compiled = match_compile(&m, pat, flags) == EOK;

	if (regcomp(&re, pat, cflags) != 0) {
		if (compiled)
			diag("'%s': compiles, but regcomp refuses it", pat);
		return !compiled;
	}
	bool want = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	if (!compiled) {
		diag("'%s': refused (%s), but regcomp takes it", pat, m.error);
		return false;
	}
	bool got = match_find(&m, text, strlen(text));
	if (got != want)
		diag("'%s' on '%s'%s: got %d, regexec says %d", pat, text,
		     flags & MATCH_ICASE ? " (icase)" : "", got, want);
	return got == want;
}

static void test_random(void)
{
	char pat[64], text[16];
	int differ[2] = { 0, 0 };

	for (int i = 0; i < RANDOM_CASES; i++) {
		random_pattern(pat);
		random_text(text);
		for (unsigned f = 0; f < 2; f++)
			differ[f] += !agrees(pat, text, f ? MATCH_ICASE : 0);
	}
	is_int(differ[0], 0, "%d random patterns and texts agree with regexec",
	       RANDOM_CASES);
	is_int(differ[1], 0, "... and with REG_ICASE / MATCH_ICASE");
}

int main(void)
{
	test_cases();
	test_bad_patterns();
	test_limits();
	test_binary_text();
	test_no_backtracking();
	test_random();
	return done_testing();
}
