/*
 * End-to-end test of libc as built for user space: the program
 * uspace/lib/c/test/e2e.c, linked like any /bin program (crt0.asm, libc.a,
 * uspace/link.ld, no sanitizers, -O2), runs on the host under vrun, which
 * serves its system calls. Checks the process entry (argc/argv, stack
 * alignment for SSE code, constructors), the real syscall path, malloc
 * over SYS_MAP, formatted output, and exit/abort/assert behaviour.
 * Skipped when ptrace is not permitted; a program that cannot be executed
 * (missing, not executable) is a failure, not a skip.
 */
#include "tap.h"

#include <math.h>
#include <string.h>

#include "vrun.h"

#ifndef LIBC_E2E_PROG
#error "LIBC_E2E_PROG: path of the e2e program (set by uspace/lib/c/host.mk)"
#endif

static vrun_result_t res;

static bool run(const char *a1, const char *a2)
{
	char *argv[] = { "e2e", (char *)a1, (char *)a2, NULL };

	if (!a1)
		argv[1] = NULL;
	else if (!a2)
		argv[2] = NULL;
	return vrun(LIBC_E2E_PROG, argv, &res);
}

static void test_normal_run(void)
{
	char expect[2048], fmt[256];

	ok(run(NULL, NULL), "program ran under vrun");
	snprintf(fmt, sizeof(fmt), "fmt %d %x %s %5.2f %e %g %a\n", -42, 255u, "s",
		 3.14159, 6.02e23, 1e-10, 0.1);
	snprintf(expect, sizeof(expect),
		 "ctor 42\n"
		 "argc 1 [e2e] NULL\n"
		 "%s"
		 "malloc ok\n"
		 "qsort -3 0 2 5 5 9\n"
		 "longjmp 1\n"
		 "strtol -31 511\n"
		 "sqrt %.17g pow %.17g\n"
		 "clock ok time ok\n"
		 "strftime 2023-11-14 22:13:20 Tue\n"
		 "thread_start %d\n"
		 "end[atexit]",
		 fmt, sqrt(2.0), pow(2.0, 0.5), 38 /* ENOSYS from vrun */);
	is_str(res.out, expect, "the program's whole output");
	is_int(res.status, 3, "main's return value is the exit status");
	is_int(res.signal, 0, "no signal");
	ok(res.syscalls > 10, "system calls served (%lu)", res.syscalls);
	is_int((int)res.unknown, 1, "only SYS_THREAD_CREATE was unknown to vrun");
}

static void test_arguments(void)
{
	ok(run("exit", "17"), "ran with arguments");
	is_str(res.out, "ctor 42\nargc 3 [e2e] [exit] [17] NULL\n",
	       "argv reaches main; exit() flushes");
	is_int(res.status, 17, "exit(17)");
}

static void test_abort_and_assert(void)
{
	ok(run("abort", NULL), "ran abort mode");
	is_int(res.status, 134, "abort exits with 134");
	ok(strstr(res.out, "unflushed") == NULL, "abort does not flush stdout");
	ok(run("assert", NULL), "ran assert mode");
	ok(strstr(res.out, "e2e: uspace/lib/c/test/e2e.c:") != NULL &&
	   strstr(res.out, "main: Assertion `argc == 1' failed.\n") != NULL,
	   "assert message names program, file, function and expression");
	is_int(res.status, 134, "failed assert aborts");
}

int main(void)
{
	if (!run(NULL, NULL) && res.start_error == VRUN_NO_PTRACE) {
		printf("1..0 # SKIP cannot run programs under ptrace here\n");
		return 0;
	}
	if (res.start_error) {
		ok(0, "%s started under vrun (%s)", LIBC_E2E_PROG,
		   res.start_error == VRUN_NO_EXEC ? "it cannot be executed" :
		   res.start_error == VRUN_NO_FORK ? "fork failed" :
		   "it did not stop at exec");
		return done_testing();
	}
	test_normal_run();
	test_arguments();
	test_abort_and_assert();
	return done_testing();
}
