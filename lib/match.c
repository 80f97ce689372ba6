/* A basic regular expression subset: see lib/match.h. */
#include <lib/match.h>

enum { KIND_CHAR, KIND_ANY, KIND_SET };

/* Sets of automaton states: state i waits for item i; state count accepts. */
#define STATE_WORDS ((MATCH_MAX_ITEMS + 1 + 63) / 64)
typedef struct states {
	uint64_t w[STATE_WORDS];
} states_t;

static unsigned char match_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static unsigned char match_upper(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

static bool set_has(const uint8_t *set, unsigned char c)
{
	return (set[c / 8] >> (c % 8)) & 1;
}

static void set_add(uint8_t *set, unsigned char c)
{
	set[c / 8] |= (uint8_t)(1u << (c % 8));
}

static errno_t match_fail(match_t *m, errno_t rc, const char *why)
{
	m->error = why;
	return rc;
}

/* Append an item; ELIMIT when the pattern is full. */
static errno_t match_push(match_t *m, uint8_t kind, uint8_t arg)
{
	if (m->count == MATCH_MAX_ITEMS)
		return match_fail(m, ELIMIT, "pattern too long");
	m->items[m->count++] = (match_item_t){ .kind = kind, .arg = arg };
	return EOK;
}

/* With MATCH_ICASE, a letter in set brings the other case in. */
static void set_fold(uint8_t *set)
{
	for (unsigned c = 'a'; c <= 'z'; c++) {
		unsigned char up = match_upper((unsigned char)c);
		if (set_has(set, (unsigned char)c) || set_has(set, up)) {
			set_add(set, (unsigned char)c);
			set_add(set, up);
		}
	}
}

/*
 * Fill set from the bracket expression body at *pp (past "[" and any "^")
 * up to its "]"; *pp ends past the "]".
 */
static errno_t match_parse_set(match_t *m, const char **pp, uint8_t *set)
{
	const char *p = *pp;
	const char *first = p;

	while (*p != '\0' && (*p != ']' || p == first)) {
		unsigned char lo = (unsigned char)p[0], hi = lo;
		if (lo == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '='))
			return match_fail(m, EINVAL, "[: [. [= not supported");
		if (p[1] == '-' && p[2] != '\0' && p[2] != ']') {
			hi = (unsigned char)p[2];
			p += 3;
		} else {
			p++;
		}
		if (hi < lo)
			return match_fail(m, EINVAL, "invalid range end");
		for (unsigned c = lo; c <= hi; c++)
			set_add(set, (unsigned char)c);
	}
	if (*p != ']')
		return match_fail(m, EINVAL, "unterminated [");
	*pp = p + 1;
	return EOK;
}

/* A bracket expression at *pp (on its "["); *pp ends past it. */
static errno_t match_set(match_t *m, const char **pp)
{
	const char *p = *pp + 1;
	bool negate = *p == '^';

	if (m->nsets == MATCH_MAX_SETS)
		return match_fail(m, ELIMIT, "too many [ ]");
	uint8_t *set = m->sets[m->nsets];
	for (unsigned i = 0; i < 32; i++)
		set[i] = 0;
	p += negate;
	errno_t rc = match_parse_set(m, &p, set);
	if (rc != EOK)
		return rc;
	if (m->icase)
		set_fold(set);
	for (unsigned i = 0; negate && i < 32; i++)
		set[i] = (uint8_t)~set[i];
	*pp = p;
	return match_push(m, KIND_SET, (uint8_t)m->nsets++);
}

/* The item at *pp ("." "[" "\" or a character); *pp ends past it. */
static errno_t match_item(match_t *m, const char **pp)
{
	const char *p = *pp;
	unsigned char c = (unsigned char)*p;

	if (c == '.') {
		*pp = p + 1;
		return match_push(m, KIND_ANY, 0);
	}
	if (c == '[')
		return match_set(m, pp);
	if (c == '\\') {
		if (p[1] == '\0')
			return match_fail(m, EINVAL, "trailing backslash");
		c = (unsigned char)*++p;
	}
	*pp = p + 1;
	return match_push(m, KIND_CHAR, m->icase ? match_lower(c) : c);
}

errno_t match_compile(match_t *m, const char *pattern, unsigned flags)
{
	const char *p = pattern;

	*m = (match_t){ .icase = (flags & MATCH_ICASE) != 0 };
	if (*p == '^') {
		m->anchor_start = true;
		p++;
	}
	while (*p != '\0') {
		if (p[0] == '$' && p[1] == '\0') {
			m->anchor_end = true;
			break;
		}
		if (p[0] == '*' && m->count > 0) {
			m->items[m->count - 1].star = true;
			p++;
			continue;
		}
		errno_t rc = match_item(m, &p);
		if (rc != EOK)
			return rc;
	}
	return EOK;
}

/* Whether item it takes byte c. */
static bool match_takes(const match_t *m, const match_item_t *it,
			unsigned char c)
{
	if (it->kind == KIND_ANY)
		return true;
	if (it->kind == KIND_SET)
		return set_has(m->sets[it->arg], c);
	return (m->icase ? match_lower(c) : c) == it->arg;
}

static bool states_has(const states_t *s, unsigned i)
{
	return (s->w[i / 64] >> (i % 64)) & 1;
}

/*
 * Add state i and those reachable from it by skipping starred items. A
 * state already there brought its followers with it, so stop at one.
 */
static void states_add(const match_t *m, states_t *s, unsigned i)
{
	while (!states_has(s, i)) {
		s->w[i / 64] |= 1ull << (i % 64);
		if (i == m->count || !m->items[i].star)
			return;
		i++;
	}
}

/* The states after byte c from those in cur. Returns whether any. */
static bool match_step(const match_t *m, const states_t *cur,
		       unsigned char c, states_t *next)
{
	bool any = false;

	*next = (states_t){ { 0 } };
	for (unsigned w = 0; w < STATE_WORDS; w++) {
		for (uint64_t bits = cur->w[w]; bits != 0; bits &= bits - 1) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
			const match_item_t *it = &m->items[i];
			if (i == m->count || !match_takes(m, it, c))
				continue;
			states_add(m, next, it->star ? i : i + 1);
			any = true;
		}
	}
	if (!m->anchor_start) {
		states_add(m, next, 0);
		any = true;
	}
	return any;
}

bool match_find(const match_t *m, const char *text, size_t len)
{
	states_t cur = { { 0 } }, next;

	states_add(m, &cur, 0);
	for (size_t pos = 0;; pos++) {
		bool accept = states_has(&cur, m->count);
		if (accept && (!m->anchor_end || pos == len))
			return true;
		if (pos == len)
			return false;
		if (!match_step(m, &cur, (unsigned char)text[pos], &next))
			return false;
		cur = next;
	}
}
