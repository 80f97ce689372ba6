/*
 * Unit tests for libc's <signal.h> (signal, raise, abort's SIGABRT) and
 * <locale.h> (the C locale), over the fake kernel: a default action ends
 * the task with 128 + the signal, a handler runs and stays installed,
 * SIG_IGN ignores, abort ends the task even when its handler returns.
 */
#include "tap.h"

#include <limits.h>
#include <locale.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "libc_host.h"

static int caught[NSIG];

static void on_signal(int sig)
{
	caught[sig]++;
}

static void test_raise(void)
{
	jmp_buf jb;

	fake_reset();
	fake.exit_jmp = &jb;
	ok(vl_signal(SIGUSR1, on_signal) == (vl_sighandler_t)SIG_DFL,
	   "signal returns the previous handler (SIG_DFL)");
	is_int(vl_raise(SIGUSR1), 0, "raise with a handler returns 0");
	is_int(vl_raise(SIGUSR1), 0, "again: the handler stays installed");
	is_int(caught[SIGUSR1], 2, "the handler ran twice");
	ok(vl_signal(SIGUSR1, (vl_sighandler_t)SIG_IGN) == on_signal,
	   "signal returns the handler it replaces");
	is_int(vl_raise(SIGUSR1), 0, "raise of an ignored signal returns");
	is_int(caught[SIGUSR1], 2, "and runs nothing");
	is_int(fake.calls[SYS_EXIT], 0, "no exit so far");
	is_int(vl_raise(SIGCHLD), 0, "SIGCHLD is ignored by default");
	vl_signal(SIGUSR1, (vl_sighandler_t)SIG_DFL);
	if (setjmp(jb) == 0)
		vl_raise(SIGTERM);
	is_int(fake.exit_status, 128 + SIGTERM, "default action: exit 128+sig");
	if (setjmp(jb) == 0)
		vl_raise(SIGSEGV);
	is_int(fake.exit_status, 128 + SIGSEGV, "SIGSEGV raised: exit 139");
	fake.exit_status = 0;
	vl_signal(SIGABRT, on_signal);
	if (setjmp(jb) == 0)
		vl_abort();
	ok(caught[SIGABRT] == 1 && fake.exit_status == 134,
	   "abort raises SIGABRT, then exits 134 though the handler returned");
	vl_signal(SIGABRT, (vl_sighandler_t)SIG_DFL);
	fake.exit_jmp = NULL;
	vl_errno = 0;
	ok(vl_signal(0, on_signal) == (vl_sighandler_t)SIG_ERR && vl_errno == EINVAL,
	   "signal(0): SIG_ERR, EINVAL");
	ok(vl_signal(SIGKILL, on_signal) == (vl_sighandler_t)SIG_ERR,
	   "SIGKILL cannot be caught");
	ok(vl_signal(NSIG, on_signal) == (vl_sighandler_t)SIG_ERR &&
	   vl_raise(NSIG) == -1 && vl_raise(-1) == -1, "bad numbers refused");
}

static void test_locale(void)
{
	is_str(vl_setlocale(LC_ALL, NULL), "C", "the locale is C");
	is_str(vl_setlocale(LC_ALL, ""), "C", "the environment's choice is C");
	is_str(vl_setlocale(LC_NUMERIC, "POSIX"), "C", "POSIX is C");
	ok(vl_setlocale(LC_ALL, "de_DE.UTF-8") == NULL, "other locales: NULL");
	ok(vl_setlocale(99, "C") == NULL, "bad category: NULL");
	struct lconv *lc = vl_localeconv();
	ok(!strcmp(lc->decimal_point, ".") && !strcmp(lc->thousands_sep, "") &&
	   lc->frac_digits == CHAR_MAX, "localeconv: the C conventions");
}

int main(void)
{
	test_raise();
	test_locale();
	return done_testing();
}
