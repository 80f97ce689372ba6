/* Unit tests for lib/path.c: lexical resolution against a directory. */
#include "tap.h"

#include <string.h>

#include <lib/path.h>

/* Resolve path against cwd and compare with want (NULL: expect error e). */
static void check(const char *cwd, const char *path, const char *want, errno_t e)
{
	char out[64];
	errno_t rc = path_resolve(cwd, path, out, sizeof(out));

	if (want)
		ok(rc == EOK && !strcmp(out, want), "'%s' in '%s' is '%s' (got '%s', %d)",
		   path, cwd ? cwd : "(null)", want, rc == EOK ? out : "", rc);
	else
		ok(rc == e, "'%s' in '%s' fails with %d (got %d)", path,
		   cwd ? cwd : "(null)", e, rc);
}

static void test_absolute(void)
{
	check("/tmp", "/", "/", 0);
	check("/tmp", "/bin/ls", "/bin/ls", 0);
	check("/tmp", "//bin///ls//", "/bin/ls", 0);
	check("/tmp", "/bin/./ls", "/bin/ls", 0);
	check("/tmp", "/bin/../etc/motd", "/etc/motd", 0);
	check("/tmp", "/..", "/", 0);
	check("/tmp", "/../../a", "/a", 0);
	check(NULL, "/etc", "/etc", 0);
}

static void test_relative(void)
{
	check("/", "bin", "/bin", 0);
	check("/tmp", "a/b", "/tmp/a/b", 0);
	check("/tmp", ".", "/tmp", 0);
	check("/tmp", "./", "/tmp", 0);
	check("/tmp", "..", "/", 0);
	check("/tmp/a", "../b/./c/..", "/tmp/b", 0);
	check("/tmp", "../../../..", "/", 0);
	check("/", "a/../../b", "/b", 0);
}

static void test_errors(void)
{
	char out[8];

	check("/tmp", "", NULL, ENOENT);
	check("tmp", "a", NULL, EINVAL);
	check(NULL, "a", NULL, EINVAL);
	ok(path_resolve("/", "/abcdef", out, sizeof(out)) == EOK &&
	   !strcmp(out, "/abcdef"), "a result of exactly size-1 bytes fits");
	ok(path_resolve("/", "/abcdefg", out, sizeof(out)) == ENAMETOOLONG,
	   "one byte more is ENAMETOOLONG");
	ok(path_resolve("/abc", "defg", out, sizeof(out)) == ENAMETOOLONG,
	   "the joined length counts");
	ok(path_resolve("/", "/", out, 1) == ENAMETOOLONG, "size 1 cannot hold /");
}

static void test_basename(void)
{
	ok(!strcmp(path_basename("/bin/ls"), "ls"), "basename of /bin/ls");
	ok(!strcmp(path_basename("/"), ""), "basename of / is empty");
	ok(!strcmp(path_basename("/tmp"), "tmp"), "basename of /tmp");
}

int main(void)
{
	test_absolute();
	test_relative();
	test_errors();
	test_basename();
	return done_testing();
}
