/*
 * TAP output for the user-space test programs (utest, ipctest, fstest):
 * "ok N - desc" / "not ok N - desc", "# diag" lines, and the plan: first
 * (tap_plan) when the program declares its tests, else at the end. Not
 * thread-safe: report from one thread.
 */
#ifndef _TAP_H
#define _TAP_H

/* Report one test; returns cond. */
int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a test that cannot run here, with the reason. */
void tap_skip(const char *desc, const char *why);
/* Tests reported so far, and how many failed. */
int tap_tests(void);
int tap_failures(void);
/*
 * Declare the plan up front: prints "1..n" now, and tap_end() fails unless
 * exactly n tests were reported (a test silently not run is a failure).
 */
void tap_plan(int n);
/*
 * After a group of tests that started when tap_tests() was before: whether
 * it reported the declared number; if not, says so in a diagnostic.
 */
int tap_group_done(const char *name, int before, int declared);
/*
 * Without a plan, print it ("1..N"); with one, check it (a diagnostic if
 * it was not met). Returns the exit status: 0 iff nothing failed and the
 * plan, if declared, was met.
 */
int tap_end(void);

#endif
