/*
 * Time. Clocks come from SYS_CLOCK: CLOCK_MONOTONIC (since boot),
 * CLOCK_REALTIME (UTC, from the RTC at boot), and the CPU time (user +
 * kernel, from the kernel's cycle accounting at every kernel entry and
 * exit) of the task (CLOCK_PROCESS_CPUTIME_ID, also clock()) or of the
 * calling thread (CLOCK_THREAD_CPUTIME_ID). There are no time zones:
 * local time is UTC.
 */
#ifndef _TIME_H
#define _TIME_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The SYS_CLOCK clocks, as in abi/syscall.h (src/time.c includes both, so
 * a mismatch would not compile).
 */
#define CLOCK_MONOTONIC 0
#define CLOCK_REALTIME 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3

/* clock() counts microseconds of the task's CPU time. */
#define CLOCKS_PER_SEC 1000000L

struct timespec {
	time_t tv_sec;
	long tv_nsec;
};

struct tm {
	int tm_sec;    /* 0..60 */
	int tm_min;    /* 0..59 */
	int tm_hour;   /* 0..23 */
	int tm_mday;   /* 1..31 */
	int tm_mon;    /* 0..11 */
	int tm_year;   /* years since 1900 */
	int tm_wday;   /* 0..6, Sunday = 0 */
	int tm_yday;   /* 0..365 */
	int tm_isdst;  /* always 0 */
};

/* Seconds since 1970-01-01 UTC; also stored in *t when t is not NULL. */
time_t time(time_t *t);
/* Read clock id into *ts: 0, or -1 with errno = EINVAL for a bad clock. */
int clock_gettime(clockid_t id, struct timespec *ts);
/*
 * The task's CPU time (all its threads, user and kernel) in
 * CLOCKS_PER_SEC units; (clock_t)-1 if unavailable.
 */
clock_t clock(void);
/* Resolution of a clock (1 ns): 0, or -1 with errno = EINVAL. */
int clock_getres(clockid_t id, struct timespec *res);
/*
 * Sleep for *req (tv_nsec must be in 0..999999999): 0, or -1 with errno
 * EINVAL. Sleeps are not interrupted, so *rem (if not NULL) is zeroed.
 */
int nanosleep(const struct timespec *req, struct timespec *rem);

/*
 * Break t down to UTC in *out; returns out, or NULL (EOVERFLOW-like:
 * errno = ERANGE) when the year does not fit an int.
 */
struct tm *gmtime_r(const time_t *t, struct tm *out);
/* gmtime_r into a static struct (not thread-safe). */
struct tm *gmtime(const time_t *t);
/* Same as gmtime_r/gmtime: local time is UTC. */
struct tm *localtime_r(const time_t *t, struct tm *out);
struct tm *localtime(const time_t *t);
/*
 * Seconds since the epoch of the UTC time in *tm, whose fields may be out
 * of range (they are normalized, and *tm updated, like mktime does).
 */
time_t timegm(struct tm *tm);
/* Same as timegm (local time is UTC). */
time_t mktime(struct tm *tm);
/* end - start in seconds. */
double difftime(time_t end, time_t start);

/*
 * Format *tm into s (at most max bytes with the NUL); returns the length,
 * or 0 if it did not fit. C-locale conversions: %a %A %b %B %c %C %d %D
 * %e %F %g %G %h %H %I %j %m %M %n %p %r %R %s %S %t %T %u %U %V %w %W %x
 * %X %y %Y %z (+0000) %Z (UTC) %%; E and O modifiers are ignored.
 */
size_t strftime(char *s, size_t max, const char *fmt, const struct tm *tm);
/* "Sun Sep 16 01:03:52 1973\n" into buf (26 bytes); returns buf. */
char *asctime_r(const struct tm *tm, char *buf);

#endif
