/* sh: grouping tokens into pipelines of commands with redirections. */
#include <stdio.h>

#include "sh.h"

typedef struct parser {
	const sh_tok_t *t;
	char *err;
	size_t errlen;
} parser_t;

static const char *tok_text(sh_tok_kind_t k)
{
	switch (k) {
	case SH_TOK_PIPE: return "|";
	case SH_TOK_IN: return "<";
	case SH_TOK_OUT: return ">";
	case SH_TOK_APPEND: return ">>";
	case SH_TOK_AMP: return "&";
	case SH_TOK_SEMI: return ";";
	case SH_TOK_END: return "newline";
	default: return "word";
	}
}

/* Record the error: what, or the token at hand when what is NULL. */
static errno_t parse_fail(parser_t *p, const char *what)
{
	if (what)
		snprintf(p->err, p->errlen, "syntax error: %s", what);
	else
		snprintf(p->err, p->errlen, "syntax error near '%s'",
			 tok_text(p->t->kind));
	return EINVAL;
}

/* A redirection at p->t into c. */
static errno_t parse_redir(parser_t *p, sh_cmd_t *c)
{
	sh_tok_kind_t k = p->t->kind;

	p->t++;
	if (p->t->kind != SH_TOK_WORD)
		return parse_fail(p, NULL);
	if (k == SH_TOK_IN) {
		c->in = p->t->word;
	} else {
		c->out = p->t->word;
		c->append = k == SH_TOK_APPEND;
	}
	p->t++;
	return EOK;
}

/* One command: words and redirections up to | & ; or the end. */
static errno_t parse_cmd(parser_t *p, sh_cmd_t *c)
{
	*c = (sh_cmd_t){ .argc = 0 };
	for (;;) {
		sh_tok_kind_t k = p->t->kind;
		if (k == SH_TOK_WORD) {
			if (c->argc == SH_ARGS_MAX)
				return parse_fail(p, "too many arguments");
			c->argv[c->argc++] = p->t->word;
			p->t++;
		} else if (k == SH_TOK_IN || k == SH_TOK_OUT || k == SH_TOK_APPEND) {
			if (parse_redir(p, c) != EOK)
				return EINVAL;
		} else {
			break;
		}
	}
	c->argv[c->argc] = NULL;
	return c->argc > 0 ? EOK : parse_fail(p, NULL);
}

/* A pipeline: commands joined by |, ended by & ; or the end. */
static errno_t parse_pipeline(parser_t *p, sh_pipeline_t *pl)
{
	pl->ncmds = 0;
	pl->background = false;
	for (;;) {
		if (pl->ncmds == SH_CMDS_MAX)
			return parse_fail(p, "too many commands in a pipeline");
		if (parse_cmd(p, &pl->cmds[pl->ncmds++]) != EOK)
			return EINVAL;
		if (p->t->kind != SH_TOK_PIPE)
			break;
		p->t++;
	}
	if (p->t->kind == SH_TOK_AMP || p->t->kind == SH_TOK_SEMI) {
		pl->background = p->t->kind == SH_TOK_AMP;
		p->t++;
	}
	return EOK;
}

errno_t sh_parse_next(const sh_lex_t *lx, size_t *pos, sh_pipeline_t *out,
		      char *err, size_t errlen)
{
	parser_t p = { .t = lx->toks + *pos, .err = err, .errlen = errlen };

	if (p.t->kind == SH_TOK_END)
		return ENOENT;
	errno_t rc = parse_pipeline(&p, out);
	*pos = (size_t)(p.t - lx->toks);
	return rc;
}
