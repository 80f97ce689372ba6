/*
 * fstest spawn: programs loaded through the file service (from /bin and
 * from /tmp), with the working directory, environment and redirected
 * standard descriptors passed on (libc's spawn(), see <spawn.h>).
 */
#include <spawn.h>
#include <stdlib.h>

#include "fstest.h"

/* Spawn argv[0]'s program with opts and wait; its exit status or -1. */
static int run(const char *path, char *const *argv, const spawn_opts_t *opts)
{
	task_id_t id, waited;
	int status = -1;

	if (spawn(path, argv, opts, &id) != EOK)
		return -1;
	return sys_wait(id, &status, 0, &waited) == EOK ? status : -1;
}

/* Whether file path holds text containing want. */
static bool file_has(const char *path, const char *want)
{
	static char buf[2048];
	ssize_t n = read_file(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, want) != NULL;
}

static void test_env(void)
{
	char *argv[] = { "tester", "env", "a b", NULL };
	char *envp[] = { "COLOR=blue", "PWD=/wrong", NULL };
	spawn_opts_t o = { .stdio = { NULL, "w:/tmp/env.out", NULL },
			   .envp = envp };

	write_file("/tmp/env.out", "", 0, O_TRUNC);
	chdir("/tmp");
	int st = run("/bin/tester", argv, &o);
	chdir("/");
	tap_ok(st == 0 && file_has("/tmp/env.out", "cwd /tmp\n") &&
	       file_has("/tmp/env.out", "arg a b\n") &&
	       file_has("/tmp/env.out", "env COLOR=blue\n") &&
	       file_has("/tmp/env.out", "env FD1=w:/tmp/env.out\n") &&
	       !file_has("/tmp/env.out", "/wrong"),
	       "spawn: the child gets argv, the environment, the working "
	       "directory and its redirected stdout (status %d)", st);
}

static void test_redirect(void)
{
	char *argv[] = { "tester", "copy", NULL };
	spawn_opts_t o = { .stdio = { "r:/etc/motd", "a:/tmp/copy.out",
				      "a:/tmp/copy.err" } };

	write_file("/tmp/copy.out", "first\n", 6, O_TRUNC);
	write_file("/tmp/copy.err", "", 0, O_TRUNC);
	int st = run("/bin/tester", argv, &o);
	tap_ok(st == 0 && file_has("/tmp/copy.out", "first\nWelcome to Vernier.\n") &&
	       file_has("/tmp/copy.err", "copied 20 bytes\n"),
	       "spawn: stdin from a file, stdout appended, stderr to a file");
	spawn_opts_t n = { .stdio = { "n:", "n:", "a:/tmp/copy.err" } };
	st = run("/bin/tester", argv, &n);
	tap_ok(st == 0 && file_has("/tmp/copy.err", "copied 0 bytes\n"),
	       "spawn: \"n:\" gives an empty stdin and a discarding stdout");
	spawn_opts_t bad = { .stdio = { "n:", "a:/tmp/no/such/dir", "a:/tmp/copy.err" } };
	st = run("/bin/tester", argv, &bad);
	tap_ok(st == 0 && file_has("/tmp/copy.err", "cannot open FD1"),
	       "spawn: a stdout that cannot be opened is reported (and is the console)");
	unlink("/tmp/copy.out");
	unlink("/tmp/copy.err");
}

/* Copy /bin/hello to /tmp and run it from there. */
static void test_from_tmp(void)
{
	static char image[256 * 1024];
	char *argv[] = { "hello2", NULL };
	ssize_t n = read_file("/bin/hello", image, sizeof(image));

	bool copied = n > 0 && write_file("/tmp/hello2", image, (size_t)n, O_TRUNC);
	chdir("/tmp");
	int st = copied ? run("hello2", argv, NULL) : -1;
	chdir("/");
	tap_ok(st == 0, "spawn: a program copied to /tmp runs from there "
	       "by a relative path (status %d)", st);
	unlink("/tmp/hello2");
}

static void test_errors_spawn(void)
{
	char *argv[] = { "x", NULL };
	task_id_t id;
	char path[64];

	tap_ok(spawn("/bin/nothing", argv, NULL, &id) == ENOENT &&
	       spawn("/tmp", argv, NULL, &id) == EISDIR &&
	       spawn("/etc/motd", argv, NULL, &id) == ENOEXEC,
	       "spawn: missing is ENOENT, a directory EISDIR, a text file ENOEXEC");
	char *esc[] = { "tester", "perm-escalate", NULL };
	spawn_opts_t o = { .set_perms = true, .perms = 0 };
	int st = run("/bin/tester", esc, &o);
	tap_ok(st == 0, "spawn: set_perms 0 starts a child without permissions, "
	       "which cannot regain them (status %d)", st);
	tap_ok(spawn_find("hello", path, sizeof(path)) == EOK &&
	       !strcmp(path, "/bin/hello") &&
	       spawn_find("nothing", path, sizeof(path)) == ENOENT &&
	       spawn_find("/etc/motd", path, sizeof(path)) == EOK,
	       "spawn: spawn_find looks in /bin for names without a slash");
}

static void test_isatty(void)
{
	int fd = open("/etc/motd", O_RDONLY);
	bool file = fd >= 0 && !isatty(fd) && errno == ENOTTY;
	close(fd);
	bool bad = !isatty(99) && errno == EBADF;
	tap_ok(isatty(1) && file && bad, "spawn: isatty is 1 for the console, "
	       "0 with ENOTTY for a file, 0 with EBADF for no descriptor");
}

void test_spawn(void)
{
	test_isatty();
	test_env();
	test_redirect();
	test_from_tmp();
	test_errors_spawn();
}
