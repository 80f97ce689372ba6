/*
 * utest time: sleeps wake on time (100 ms asked: 100..130 ms measured,
 * the tick being 10 ms); CLOCK_REALTIME is a plausible date and advances
 * with CLOCK_MONOTONIC.
 */
#include <stdio.h>
#include <string.h>

#include "utest.h"

#define SLEEP_NS (100 * NS_PER_MS)
#define SLEEP_SLACK_NS (30 * NS_PER_MS)
#define SLEEP_TRIES 5
#define REALTIME_2020 1577836800ull        /* 2020-01-01 00:00:00 UTC */
#define CLOCK_GAP_NS (200 * NS_PER_MS)
#define CLOCK_SKEW_NS (2 * NS_PER_MS)

void test_sleep(void)
{
	char list[SLEEP_TRIES * 12] = "";
	int good = 0;

	for (int i = 0; i < SLEEP_TRIES; i++) {
		uint64_t t0 = now_ns();
		errno_t rc = sys_sleep_ns(SLEEP_NS);
		uint64_t dt = now_ns() - t0;
		good += rc == EOK && dt >= SLEEP_NS && dt <= SLEEP_NS + SLEEP_SLACK_NS;
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%llu.%llu", i ? " " : "",
			 (unsigned long long)(dt / NS_PER_MS),
			 (unsigned long long)(dt % NS_PER_MS / 100000));
	}
	tap_diag("sleep(100 ms) took: %s ms", list);
	tap_ok(good == SLEEP_TRIES,
	       "time: %d sleeps of 100 ms each took 100..130 ms (%d did)",
	       SLEEP_TRIES, good);
}

void test_clock(void)
{
	uint64_t r0 = sys_clock_ns(CLOCK_REALTIME), m0 = now_ns();

	tap_ok(r0 / NS_PER_SEC > REALTIME_2020,
	       "time: CLOCK_REALTIME (%llu s) is after 2020-01-01",
	       (unsigned long long)(r0 / NS_PER_SEC));
	sys_sleep_ns(CLOCK_GAP_NS);
	uint64_t r1 = sys_clock_ns(CLOCK_REALTIME), m1 = now_ns();
	int64_t skew = (int64_t)(r1 - r0) - (int64_t)(m1 - m0);
	tap_ok(m1 - m0 >= CLOCK_GAP_NS && skew > -(int64_t)CLOCK_SKEW_NS &&
	       skew < (int64_t)CLOCK_SKEW_NS,
	       "time: CLOCK_REALTIME advances with CLOCK_MONOTONIC "
	       "(%llu ms vs %llu ms)",
	       (unsigned long long)((r1 - r0) / NS_PER_MS),
	       (unsigned long long)((m1 - m0) / NS_PER_MS));
	long bad = raw3(SYS_CLOCK, 2, 0, 0);
	tap_ok(bad == -EINVAL, "time: an unknown clock gives EINVAL (%ld)", bad);
}
