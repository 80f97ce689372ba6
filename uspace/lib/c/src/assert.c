/* The failure path of assert(). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "libc.h"

void __assert_fail(const char *expr, const char *file, int line,
		   const char *func)
{
	fprintf(stderr, "%s: %s:%d: %s: Assertion `%s' failed.\n",
		__libc_progname, file, line, func, expr);
	abort();
}
