/* Unit tests for the shell's lexer and parser (uspace/app/sh/lex.c, parse.c). */
#include "tap.h"

#include <string.h>

#include "../../uspace/app/sh/sh.h"

static sh_lex_t lx;

/* Lex line with $? = status; the error text (or "" on success). */
static const char *lex(const char *line, int status)
{
	static char err[128];

	err[0] = '\0';
	lx.last_status = status;
	if (sh_lex(&lx, line, err, sizeof(err)) != EOK && !err[0])
		strcpy(err, "(failed without a message)");
	return err;
}

/* The words of the lexed line joined by '|' into a static buffer. */
static const char *words(void)
{
	static char buf[512];

	buf[0] = '\0';
	for (size_t i = 0; i < lx.ntoks; i++) {
		if (lx.toks[i].kind != SH_TOK_WORD)
			continue;
		if (buf[0])
			strcat(buf, "|");
		strcat(buf, lx.toks[i].word);
	}
	return buf;
}

static void test_words(void)
{
	is_str(lex("echo hello   world", 0), "", "plain words lex");
	is_str(words(), "echo|hello|world", "split at blanks");
	lex("echo 'a  b' \"c $?\" d\\ e '$?'", 7);
	is_str(words(), "echo|a  b|c 7|d e|$?", "quotes, escapes, $? outside single quotes");
	lex("a\"b\"'c'd", 0);
	is_str(words(), "abcd", "quoted parts join a word");
	lex("echo \"x\\\"y\\\\z\\$\"", 0);
	is_str(words(), "echo|x\"y\\z$", "escapes inside double quotes");
	lex("echo a # a comment", 0);
	is_str(words(), "echo|a", "# starts a comment");
	lex("echo a#b", 0);
	is_str(words(), "echo|a#b", "# inside a word is literal");
	lex("echo ''", 0);
	is_str(words(), "echo|", "'' is an empty word");
	is_str(lex("echo 'open", 0), "unterminated quote", "unterminated single quote");
	is_str(lex("echo \"open", 0), "unterminated quote", "unterminated double quote");
}

static void test_operators(void)
{
	static const sh_tok_kind_t want[] = { SH_TOK_WORD, SH_TOK_IN, SH_TOK_WORD,
		SH_TOK_PIPE, SH_TOK_WORD, SH_TOK_APPEND, SH_TOK_WORD, SH_TOK_OUT,
		SH_TOK_WORD, SH_TOK_AMP, SH_TOK_SEMI, SH_TOK_END };
	bool same = true;

	lex("a<b|c>>d>e&;", 0);
	is_int(lx.ntoks, sizeof(want) / sizeof(want[0]), "operators need no blanks");
	for (size_t i = 0; i < lx.ntoks && i < sizeof(want) / sizeof(want[0]); i++)
		same &= lx.toks[i].kind == want[i];
	ok(same, "< | >> > & ; in order");
}

/* Lex and parse line's first pipeline into *pl; the parse result. */
static errno_t parse1(const char *line, sh_pipeline_t *pl, char *err)
{
	size_t pos = 0;

	lex(line, 0);
	return sh_parse_next(&lx, &pos, pl, err, 128);
}

static void test_parse(void)
{
	sh_pipeline_t pl;
	char err[128];

	ok(parse1("cat < in | grep x > out &", &pl, err) == EOK, "a pipeline parses");
	ok(pl.ncmds == 2 && pl.background, "two commands, in the background");
	ok(pl.cmds[0].argc == 1 && !strcmp(pl.cmds[0].in, "in") && !pl.cmds[0].out,
	   "< goes to the first command");
	ok(pl.cmds[1].argc == 2 && !strcmp(pl.cmds[1].argv[1], "x") &&
	   pl.cmds[1].argv[2] == NULL && !strcmp(pl.cmds[1].out, "out") &&
	   !pl.cmds[1].append, "> goes to the second, argv is NULL-terminated");
	ok(parse1("echo a >> log", &pl, err) == EOK && pl.cmds[0].append, ">> appends");
	ok(parse1("> out echo a", &pl, err) == EOK && pl.cmds[0].argc == 2 &&
	   !strcmp(pl.cmds[0].argv[0], "echo"), "a redirection may come first");
	ok(parse1("   ", &pl, err) == ENOENT, "an empty line has no pipeline");
	ok(parse1("| a", &pl, err) == EINVAL && strstr(err, "'|'"), "| first is an error (%s)", err);
	ok(parse1("a |", &pl, err) == EINVAL && strstr(err, "newline"), "| last is an error (%s)", err);
	ok(parse1("a >", &pl, err) == EINVAL, "> without a file is an error");
	ok(parse1("a | b | c | d | e | f | g | h | i", &pl, err) == EINVAL &&
	   strstr(err, "too many"), "more than 8 commands in a pipeline (%s)", err);
}

static void test_sequence(void)
{
	sh_pipeline_t pl;
	char err[128];
	size_t pos = 0;
	int n = 0;

	lex("a; b & c", 0);
	while (sh_parse_next(&lx, &pos, &pl, err, sizeof(err)) == EOK)
		n++;
	is_int(n, 3, "; and & separate pipelines");
	char line[SH_LINE_MAX];
	line[0] = '\0';
	for (int i = 0; i < 100; i++)
		strcat(line, "a;");
	lex(line, 0);
	pos = 0;
	n = 0;
	while (sh_parse_next(&lx, &pos, &pl, err, sizeof(err)) == EOK)
		n++;
	is_int(n, 100, "a line may hold 100 pipelines");
	char args[SH_LINE_MAX] = "echo";
	for (int i = 0; i < SH_ARGS_MAX; i++)
		strcat(args, " x");
	ok(parse1(args, &pl, err) == EINVAL && strstr(err, "too many arguments"),
	   "more than %d words in a command is an error", SH_ARGS_MAX);
}

int main(void)
{
	test_words();
	test_operators();
	test_parse();
	test_sequence();
	return done_testing();
}
