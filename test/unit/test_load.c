/* Unit tests for the load average arithmetic (kernel/sched/load_fold.c). */
#include "tap.h"

#include <math.h>

#include <kernel/load.h>

/* The value of fixed-point v as a double. */
static double val(uint64_t v)
{
	return (double)v / SYSINFO_LOAD_ONE;
}

int main(void)
{
	uint64_t avg[3] = { 0, 0, 0 };

	load_fold(avg, 0);
	ok(avg[0] == 0 && avg[1] == 0 && avg[2] == 0, "idle stays at 0");
	for (int i = 0; i < 12; i++)      /* one minute of 5 s samples */
		load_fold(avg, 3);
	/* After t = 60 s of load 3: 3 * (1 - e^(-t/window)). */
	ok(fabs(val(avg[0]) - 3 * (1 - exp(-1.0))) < 0.05,
	   "1-minute average after 1 min of 3: %.3f ~ %.3f", val(avg[0]),
	   3 * (1 - exp(-1.0)));
	ok(fabs(val(avg[1]) - 3 * (1 - exp(-0.2))) < 0.05,
	   "5-minute average: %.3f ~ %.3f", val(avg[1]), 3 * (1 - exp(-0.2)));
	ok(fabs(val(avg[2]) - 3 * (1 - exp(-1.0 / 15))) < 0.05,
	   "15-minute average: %.3f ~ %.3f", val(avg[2]), 3 * (1 - exp(-1.0 / 15)));
	ok(avg[0] > avg[1] && avg[1] > avg[2], "shorter windows rise faster");
	for (int i = 0; i < 1000; i++)
		load_fold(avg, 3);
	ok(fabs(val(avg[0]) - 3) < 0.01 && fabs(val(avg[2]) - 3) < 0.01,
	   "a steady load of 3 converges to 3 (%.3f, %.3f)", val(avg[0]), val(avg[2]));
	for (int i = 0; i < 12; i++)
		load_fold(avg, 0);
	ok(fabs(val(avg[0]) - 3 * exp(-1.0)) < 0.05,
	   "and decays by e in a minute (%.3f)", val(avg[0]));
	uint64_t big[3] = { 0, 0, 0 };
	for (int i = 0; i < 2000; i++)
		load_fold(big, 100000);
	ok(fabs(val(big[0]) - 100000) < 100, "100000 threads do not overflow (%.1f)",
	   val(big[0]));
	return done_testing();
}
