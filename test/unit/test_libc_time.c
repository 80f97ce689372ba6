/*
 * Unit tests for libc's time functions: gmtime_r, timegm (with field
 * normalization), strftime and asctime_r against the host C library
 * running in UTC, and the clock and sleep calls over the fake kernel.
 */
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "libc_host.h"

static uint64_t rng_state = 0x3c6ef372fe94f82bull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

static void to_host(const struct vl_tm *v, struct tm *h)
{
	memset(h, 0, sizeof(*h));
	h->tm_sec = v->tm_sec;
	h->tm_min = v->tm_min;
	h->tm_hour = v->tm_hour;
	h->tm_mday = v->tm_mday;
	h->tm_mon = v->tm_mon;
	h->tm_year = v->tm_year;
	h->tm_wday = v->tm_wday;
	h->tm_yday = v->tm_yday;
	h->tm_isdst = v->tm_isdst;
}

static bool same_tm(const struct vl_tm *v, const struct tm *h)
{
	return v->tm_sec == h->tm_sec && v->tm_min == h->tm_min &&
		v->tm_hour == h->tm_hour && v->tm_mday == h->tm_mday &&
		v->tm_mon == h->tm_mon && v->tm_year == h->tm_year &&
		v->tm_wday == h->tm_wday && v->tm_yday == h->tm_yday &&
		v->tm_isdst == h->tm_isdst;
}

/* Random times: around now, over millennia, and far out. */
static long random_time(void)
{
	switch (rng() % 4) {
	case 0: return 1700000000L + (long)(rng() % 400000000) - 200000000L;
	case 1: return (long)(rng() % 200000000000ull) - 100000000000L;
	case 2: return (long)(rng() % 4000000000ull) - 2000000000L;
	default: return (long)(rng() % 60000000000000ull) - 30000000000000L;
	}
}

static void test_gmtime(void)
{
	static const long fixed[] = {
		0, -1, 86399, 86400, -86400, -86401, 951782400, 951868800,
		4107542400L, -2208988800L, -62135596800L, -62135596801L,
		253402300799L, 253402300800L, 1700000000, 2147483647L,
		-2147483648L, 68256000L,
	};
	int bad = 0;

	for (int i = 0; i < 20000 + 18; i++) {
		long t = i < 18 ? fixed[i] : random_time();
		struct vl_tm v;
		struct tm h;
		time_t ht = t;
		if (!vl_gmtime_r(&t, &v) || !gmtime_r(&ht, &h) || !same_tm(&v, &h)) {
			if (bad++ < 5)
				diag("gmtime_r(%ld) differs", t);
		}
	}
	is_int(bad, 0, "gmtime_r matches the host on 20018 times (years -900000..)");
	long huge = INT64_MAX;
	struct vl_tm v;
	vl_errno = 0;
	ok(vl_gmtime_r(&huge, &v) == NULL && vl_errno == ERANGE,
	   "a year beyond int fails with ERANGE");
}

static void test_timegm(void)
{
	int bad = 0;

	for (int i = 0; i < 20000; i++) {
		struct vl_tm v = {
			.tm_sec = (int)(rng() % 200) - 70,
			.tm_min = (int)(rng() % 200) - 70,
			.tm_hour = (int)(rng() % 80) - 30,
			.tm_mday = (int)(rng() % 100) - 30,
			.tm_mon = (int)(rng() % 60) - 25,
			.tm_year = (int)(rng() % 400) - 100,
		};
		struct tm h;
		to_host(&v, &h);
		long t1 = vl_timegm(&v);
		long t2 = (long)timegm(&h);
		if (t1 != t2 || !same_tm(&v, &h)) {
			if (bad++ < 5)
				diag("timegm %d-%d-%d %d:%d:%d: %ld vs %ld",
				     h.tm_year, h.tm_mon, h.tm_mday, h.tm_hour,
				     h.tm_min, h.tm_sec, t1, t2);
		}
	}
	is_int(bad, 0, "timegm (with normalization) matches the host");
	struct vl_tm v = { .tm_mday = 1, .tm_year = 70 };
	is_int(vl_mktime(&v), 0, "mktime is timegm (UTC)");
	long t = 1234567890;
	vl_gmtime_r(&t, &v);
	is_int(vl_timegm(&v), t, "timegm inverts gmtime_r");
}

static const char *const strftime_formats[] = {
	"%a %A %b %B %h", "%c", "%C %y %Y", "%d %e %j", "%D %F %T %R %r",
	"%H %I %M %S %p", "%m %n %t %%", "%u %w", "%U %W %V %G %g", "%x %X",
	"%s", "%z", "[%Ey %Od %EY]", "plain text", "", "%Y-%m-%dT%H:%M:%S%z",
};

static void test_strftime(void)
{
	int bad = 0;
	size_t nf = sizeof(strftime_formats) / sizeof(strftime_formats[0]);

	for (int i = 0; i < 5000; i++) {
		long t = (long)(rng() % 300000000000ull) - 62000000000L;
		struct vl_tm v;
		struct tm h;
		vl_gmtime_r(&t, &v);
		to_host(&v, &h);
		for (size_t f = 0; f < nf; f++) {
			char a[256], b[256];
			size_t na = vl_strftime(a, sizeof(a), strftime_formats[f], &v);
			size_t nb = strftime(b, sizeof(b), strftime_formats[f], &h);
			if (na != nb || strcmp(a, b) != 0) {
				if (bad++ < 8)
					diag("strftime(\"%s\") year %d: \"%s\" vs \"%s\"",
					     strftime_formats[f], h.tm_year + 1900, a, b);
			}
		}
	}
	is_int(bad, 0, "strftime matches the host (UTC, C locale) for years 0..9999");

	char buf[16];
	struct vl_tm v;
	long t = 0;
	vl_gmtime_r(&t, &v);
	is_int((int)vl_strftime(buf, sizeof(buf), "%Z", &v), 3, "%%Z length");
	is_str(buf, "UTC", "%%Z is UTC");
	is_int((int)vl_strftime(buf, 5, "%Y-%m", &v), 0, "too small: returns 0");
	is_int((int)vl_strftime(buf, 8, "%Y-%m", &v), 7, "exactly fitting");
	is_str(buf, "1970-01", "exactly fitting output");
}

static void test_asctime(void)
{
	int bad = 0;

	for (int i = 0; i < 1000; i++) {
		long t = (long)(rng() % 250000000000ull);
		struct vl_tm v;
		struct tm h;
		char a[32], b[32];
		vl_gmtime_r(&t, &v);
		to_host(&v, &h);
		vl_asctime_r(&v, a);
		asctime_r(&h, b);
		bad += strcmp(a, b) != 0;
	}
	is_int(bad, 0, "asctime_r matches the host");
}

static void test_clocks(void)
{
	struct vl_timespec ts;

	fake_reset();
	fake.clock_set = true;
	fake.clock[CLOCK_MONOTONIC] = 5123456789ull;
	fake.clock[CLOCK_REALTIME] = 1700000000123456789ull;
	is_int(vl_clock_gettime(CLOCK_MONOTONIC, &ts), 0, "clock_gettime monotonic");
	ok(ts.tv_sec == 5 && ts.tv_nsec == 123456789, "split into sec and nsec");
	vl_clock_gettime(CLOCK_REALTIME, &ts);
	ok(ts.tv_sec == 1700000000 && ts.tv_nsec == 123456789, "realtime");
	vl_errno = 0;
	ok(vl_clock_gettime(9, &ts) == -1 && vl_errno == EINVAL, "bad clock: EINVAL");
	long t = 0;
	is_int(vl_time(&t), 1700000000, "time()");
	is_int(t, 1700000000, "time() stores through its argument");
	is_uint(vl_sys_clock_ns(CLOCK_MONOTONIC), 5123456789ull, "sys_clock_ns");
	is_uint(vl_sys_clock_ns(5), 0, "sys_clock_ns of a bad clock is 0");
	fake.clock[CLOCK_PROCESS_CPUTIME_ID] = 3500000999ull;
	fake.clock[CLOCK_THREAD_CPUTIME_ID] = 1250000000ull;
	is_int(vl_clock(), 3500000, "clock() is the process CPU time in us");
	is_int(fake.last[1], CLOCK_PROCESS_CPUTIME_ID, "from the process clock");
	vl_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	ok(ts.tv_sec == 1 && ts.tv_nsec == 250000000, "thread CPU-time clock");
	ok(vl_clock_getres(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 &&
	   vl_clock_getres(4, &ts) == -1, "clock_getres knows the CPU clocks");
	fake_force(SYS_CLOCK, -EINVAL);
	is_int(vl_clock(), -1, "clock() is (clock_t)-1 when the kernel fails");
	fake_reset();

	struct vl_timespec req = { 1, 500 }, rem = { 9, 9 };
	is_int(vl_nanosleep(&req, &rem), 0, "nanosleep");
	is_uint(fake.slept_ns, 1000000500ull, "slept the requested time");
	ok(rem.tv_sec == 0 && rem.tv_nsec == 0, "no time remains");
	struct vl_timespec badreq = { 0, 1000000000 };
	vl_errno = 0;
	ok(vl_nanosleep(&badreq, NULL) == -1 && vl_errno == EINVAL,
	   "nanosleep rejects tv_nsec >= 1e9");
	fake.slept_ns = 0;
	vl_usleep(1500);
	vl_sleep(2);
	is_uint(fake.slept_ns, 2001500000ull, "usleep and sleep");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_gmtime();
	test_timegm();
	test_strftime();
	test_asctime();
	test_clocks();
	return done_testing();
}
