/*
 * TAP output for the user-space test programs (utest, ipctest, fstest):
 * "ok N - desc" / "not ok N - desc", "# diag" lines, and the plan at the
 * end. Not thread-safe: report from one thread.
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
/* Print the plan ("1..N"); returns the exit status: 0 iff nothing failed. */
int tap_end(void);

#endif
