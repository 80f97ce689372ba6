/*
 * Unit tests for libc's TAP producer (uspace/lib/c/src/tap.c), which the
 * guest suites utest, ipctest and fstest report through: a declared plan
 * is printed first and a run that reports fewer (or more) tests than it
 * declared fails, per group and as a whole; without a plan, the plan
 * comes at the end. Each case runs in a child process (tap.c's counts are
 * process state); the child's console output and exit status come back.
 */
#include "tap.h"

#include <string.h>
#include <unistd.h>

#include "libc_host.h"

int vl_tap_ok(int cond, const char *fmt, ...);
void vl_tap_plan(int n);
int vl_tap_group_done(const char *name, int before, int declared);
int vl_tap_tests(void);
int vl_tap_end(void);
/* <sys/wait.h>'s WAIT_ANY clashes with the ABI's, which libc_host.h brings. */
pid_t waitpid(pid_t pid, int *status, int options);

typedef int (*tap_case_t)(void);

/* Run fn in a child; its console output into out; its return value. */
static int run_case(tap_case_t fn, char *out, size_t size)
{
	int fds[2], status = -1;

	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		fake_reset();
		int r = fn();
		vl_fflush(NULL);
		const char *c = fake_console();
		ssize_t w = write(fds[1], c, strlen(c));
		_exit(w < 0 ? 99 : r);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1;   /* exited: its code */
}

/* Two groups declared 2 + 1, all reported. */
static int case_met(void)
{
	vl_tap_plan(3);
	vl_tap_ok(1, "a");
	vl_tap_ok(1, "b");
	vl_tap_group_done("one", 0, 2);
	vl_tap_ok(1, "c");
	vl_tap_group_done("two", 2, 1);
	return vl_tap_end();
}

/* A group that declares 2 tests but returns after the first. */
static int case_short(void)
{
	vl_tap_plan(3);
	vl_tap_ok(1, "a");
	int g = vl_tap_group_done("early-return", 0, 2);
	vl_tap_ok(1, "c");
	vl_tap_group_done("two", 1, 1);
	return vl_tap_end() * 10 + g;
}

/* No plan: it comes at the end, and only failures fail. */
static int case_unplanned(void)
{
	vl_tap_ok(1, "a");
	vl_tap_ok(1, "b");
	return vl_tap_end();
}

int main(void)
{
	char out[4096];

	is_int(run_case(case_met, out, sizeof(out)), 0, "a plan met: exit status 0");
	is_str(out, "1..3\nok 1 - a\nok 2 - b\nok 3 - c\n",
	       "... the plan comes first, no diagnostics");
	is_int(run_case(case_short, out, sizeof(out)), 10,
	       "a group short of its declared tests: tap_group_done 0, tap_end 1");
	if (!ok(strstr(out, "1..3\n") == out &&
		strstr(out, "# group early-return reported 1 tests, declares 2\n") &&
		strstr(out, "# planned 3 tests, reported 2\n"),
		"... the group and the plan are named in diagnostics"))
		diag("the output was: %s", out);
	is_int(run_case(case_unplanned, out, sizeof(out)), 0, "no plan: exit status 0");
	is_str(out, "ok 1 - a\nok 2 - b\n1..2\n", "... the plan comes last");
	return done_testing();
}
