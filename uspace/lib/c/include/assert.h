/*
 * assert(expr): when expr is false, print "PROG: FILE:LINE: FUNC:
 * Assertion `EXPR' failed." on stderr and abort(). Disabled (expr not
 * evaluated) when NDEBUG is defined where <assert.h> is included; like
 * every C library's, this header can be included again to change that.
 */
#undef assert

#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
#define assert(expr) \
	((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))
#endif

#ifndef _ASSERT_H
#define _ASSERT_H

#define static_assert _Static_assert

/* Report a failed assertion and abort. */
__attribute__((noreturn)) void __assert_fail(const char *expr,
					     const char *file, int line,
					     const char *func);

#endif
