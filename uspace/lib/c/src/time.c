/*
 * Clocks, sleeping and calendar conversions. The calendar is the proleptic
 * Gregorian one in UTC, converted with Howard Hinnant's days/civil
 * algorithms (exact for any 64-bit day count).
 */
#include <errno.h>
#include <lib/civil.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <vernier.h>

#include "libc.h"

#define NS_PER_SEC 1000000000L
#define SECS_PER_DAY 86400L

/* ---------------------------------------------------------------- clocks */

int clock_gettime(clockid_t id, struct timespec *ts)
{
	long ns = __libc_syscall1(SYS_CLOCK, id);

	if (ns < 0) {
		errno = (int)-ns;
		return -1;
	}
	ts->tv_sec = ns / NS_PER_SEC;
	ts->tv_nsec = ns % NS_PER_SEC;
	return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
	if (id < CLOCK_MONOTONIC || id > CLOCK_THREAD_CPUTIME_ID) {
		errno = EINVAL;
		return -1;
	}
	if (res) {
		res->tv_sec = 0;
		res->tv_nsec = 1;
	}
	return 0;
}

/* The task's CPU time in CLOCKS_PER_SEC units, (clock_t)-1 on error. */
clock_t clock(void)
{
	long ns = __libc_syscall1(SYS_CLOCK, CLOCK_PROCESS_CPUTIME_ID);

	if (ns < 0)
		return (clock_t)-1;
	return ns / (NS_PER_SEC / CLOCKS_PER_SEC);
}

time_t time(time_t *t)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= NS_PER_SEC) {
		errno = EINVAL;
		return -1;
	}
	uint64_t ns = (uint64_t)req->tv_nsec;
	if ((uint64_t)req->tv_sec >= UINT64_MAX / NS_PER_SEC)
		ns = UINT64_MAX;
	else
		ns += (uint64_t)req->tv_sec * NS_PER_SEC;
	errno_t e = sys_sleep_ns(ns);
	if (rem) {
		rem->tv_sec = 0;
		rem->tv_nsec = 0;
	}
	if (e != EOK) {
		errno = e;
		return -1;
	}
	return 0;
}

double difftime(time_t end, time_t start)
{
	return (double)end - (double)start;
}

/* ---------------------------------------------------------------- calendar */

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

struct tm *gmtime_r(const time_t *t, struct tm *out)
{
	int64_t days = floor_div(*t, SECS_PER_DAY);
	int64_t secs = *t - days * SECS_PER_DAY;
	int64_t year;
	int mon, mday;

	civil_date(days, &year, &mon, &mday);
	if (year - 1900 > INT32_MAX || year - 1900 < INT32_MIN) {
		errno = ERANGE;
		return NULL;
	}
	out->tm_year = (int)(year - 1900);
	out->tm_mon = mon - 1;
	out->tm_mday = mday;
	out->tm_hour = (int)(secs / 3600);
	out->tm_min = (int)(secs / 60 % 60);
	out->tm_sec = (int)(secs % 60);
	out->tm_wday = (int)(days - floor_div(days + 4, 7) * 7 + 4);
	out->tm_yday = (int)(days - civil_days(year, 1, 1));
	out->tm_isdst = 0;
	return out;
}

struct tm *gmtime(const time_t *t)
{
	static struct tm tm;

	return gmtime_r(t, &tm);
}

struct tm *localtime_r(const time_t *t, struct tm *out)
{
	return gmtime_r(t, out);
}

struct tm *localtime(const time_t *t)
{
	return gmtime(t);
}

time_t timegm(struct tm *tm)
{
	int64_t mon = tm->tm_mon;
	int64_t year = (int64_t)tm->tm_year + 1900 + floor_div(mon, 12);

	mon -= floor_div(mon, 12) * 12;
	int64_t days = civil_days(year, (int)mon + 1, 1) + tm->tm_mday - 1;
	time_t t = days * SECS_PER_DAY + (int64_t)tm->tm_hour * 3600 +
		(int64_t)tm->tm_min * 60 + tm->tm_sec;
	gmtime_r(&t, tm);
	return t;
}

time_t mktime(struct tm *tm)
{
	return timegm(tm);
}

char *asctime_r(const struct tm *tm, char *buf)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int wd = tm->tm_wday >= 0 && tm->tm_wday < 7 ? tm->tm_wday : 0;
	int mo = tm->tm_mon >= 0 && tm->tm_mon < 12 ? tm->tm_mon : 0;

	snprintf(buf, 26, "%.3s %.3s%3d %.2d:%.2d:%.2d %d\n", days + 3 * wd,
		 months + 3 * mo, tm->tm_mday, tm->tm_hour, tm->tm_min,
		 tm->tm_sec, 1900 + tm->tm_year);
	return buf;
}
