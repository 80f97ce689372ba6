/* sh: splitting a line into words and operators. */
#include <stdio.h>
#include <string.h>

#include "sh.h"

typedef struct lexer {
	sh_lex_t *lx;
	const char *p;
	char *err;
	size_t errlen;
	bool failed;
} lexer_t;

static void lex_fail(lexer_t *l, const char *msg)
{
	if (!l->failed)
		snprintf(l->err, l->errlen, "%s", msg);
	l->failed = true;
}

/* Append byte c to the word being built. */
static void lex_put(lexer_t *l, char c)
{
	if (l->lx->used + 1 >= sizeof(l->lx->arena)) {
		lex_fail(l, "line too long");
		return;
	}
	l->lx->arena[l->lx->used++] = c;
}

static void lex_put_str(lexer_t *l, const char *s)
{
	while (*s)
		lex_put(l, *s++);
}

static void lex_token(lexer_t *l, sh_tok_kind_t kind, char *word)
{
	sh_lex_t *lx = l->lx;

	if (lx->ntoks + 1 >= sizeof(lx->toks) / sizeof(lx->toks[0])) {
		lex_fail(l, "too many words");
		return;
	}
	lx->toks[lx->ntoks++] = (sh_tok_t){ .kind = kind, .word = word };
}

/* "$?" at l->p: put the last status and skip it; false if not there. */
static bool lex_dollar(lexer_t *l)
{
	char num[16];

	if (l->p[0] != '$' || l->p[1] != '?')
		return false;
	snprintf(num, sizeof(num), "%d", l->lx->last_status);
	lex_put_str(l, num);
	l->p += 2;
	return true;
}

/* The inside of '...' (l->p after the quote). */
static void lex_single(lexer_t *l)
{
	while (*l->p && *l->p != '\'')
		lex_put(l, *l->p++);
	if (!*l->p)
		lex_fail(l, "unterminated quote");
	else
		l->p++;
}

/* The inside of "..." : \" \\ \$ escapes and $? (l->p after the quote). */
static void lex_double(lexer_t *l)
{
	while (*l->p && *l->p != '"') {
		if (l->p[0] == '\\' && l->p[1] && strchr("\"\\$", l->p[1])) {
			lex_put(l, l->p[1]);
			l->p += 2;
		} else if (!lex_dollar(l)) {
			lex_put(l, *l->p++);
		}
	}
	if (!*l->p)
		lex_fail(l, "unterminated quote");
	else
		l->p++;
}

static bool lex_is_special(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '<' ||
	       c == '>' || c == '&' || c == ';';
}

/* One word starting at l->p. */
static void lex_word(lexer_t *l)
{
	char *start = l->lx->arena + l->lx->used;

	while (*l->p && !lex_is_special(*l->p) && !l->failed) {
		if (lex_dollar(l))
			continue;
		char c = *l->p++;
		if (c == '\'')
			lex_single(l);
		else if (c == '"')
			lex_double(l);
		else if (c == '\\' && *l->p)
			lex_put(l, *l->p++);
		else
			lex_put(l, c);
	}
	lex_put(l, '\0');
	lex_token(l, SH_TOK_WORD, start);
}

/* An operator at l->p; false if there is none. */
static bool lex_operator(lexer_t *l)
{
	sh_tok_kind_t kind;
	size_t len = 1;

	switch (*l->p) {
	case '|': kind = SH_TOK_PIPE; break;
	case '<': kind = SH_TOK_IN; break;
	case '&': kind = SH_TOK_AMP; break;
	case ';': kind = SH_TOK_SEMI; break;
	case '>':
		kind = l->p[1] == '>' ? SH_TOK_APPEND : SH_TOK_OUT;
		len = kind == SH_TOK_APPEND ? 2 : 1;
		break;
	default: return false;
	}
	lex_token(l, kind, NULL);
	l->p += len;
	return true;
}

errno_t sh_lex(sh_lex_t *lx, const char *line, char *err, size_t errlen)
{
	lexer_t l = { .lx = lx, .p = line, .err = err, .errlen = errlen };

	lx->ntoks = 0;
	lx->used = 0;
	while (*l.p && !l.failed) {
		if (*l.p == ' ' || *l.p == '\t' || *l.p == '\n')
			l.p++;
		else if (*l.p == '#')
			break;              /* a comment to the end of the line */
		else if (!lex_operator(&l))
			lex_word(&l);
	}
	lex_token(&l, SH_TOK_END, NULL);
	return l.failed ? EINVAL : EOK;
}
