/* exit, atexit, _Exit, abort and the process globals. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include "libc.h"

#define ATEXIT_MAX 32

char **__libc_environ;
const char *__libc_progname = "?";

static void (*atexit_fns[ATEXIT_MAX])(void);
static int atexit_count;
static libc_lock_t atexit_lock = LIBC_LOCK_INIT;

int atexit(void (*fn)(void))
{
	int r = -1;

	__libc_lock(&atexit_lock);
	if (atexit_count < ATEXIT_MAX) {
		atexit_fns[atexit_count++] = fn;
		r = 0;
	}
	__libc_unlock(&atexit_lock);
	return r;
}

/* Pop and run handlers one by one, so handlers may register more. */
static void run_atexit(void)
{
	for (;;) {
		void (*fn)(void) = NULL;

		__libc_lock(&atexit_lock);
		if (atexit_count > 0)
			fn = atexit_fns[--atexit_count];
		__libc_unlock(&atexit_lock);
		if (!fn)
			return;
		fn();
	}
}

void exit(int status)
{
	run_atexit();
	__libc_stdio_flush_all();
	sys_exit(status);
}

void _Exit(int status)
{
	sys_exit(status);
}

void _exit(int status)
{
	sys_exit(status);
}

void abort(void)
{
	raise(SIGABRT);              /* a handler that returns: end anyway */
	sys_exit(EXIT_ABORT);
}

char *getenv(const char *name)
{
	size_t n = strlen(name);

	for (char **e = __libc_environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
