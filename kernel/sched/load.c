/*
 * Load average: every LOAD_PERIOD_S seconds a kernel thread counts the
 * ready and running threads and folds the count into three exponentially
 * decaying averages (1, 5 and 15 minutes), in fixed point as in Linux:
 * avg = avg * e + n * (1 - e), e = exp(-5 s / window).
 * "loadavg.fast" on the command line samples ten times as often with the
 * same factors (windows of 6, 30 and 90 s) for tests.
 */
#include <abi/sysinfo.h>
#include <kernel/cmdline.h>
#include <kernel/load.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/sysinfo.h>
#include <kernel/thread.h>

#define LOG_PREFIX "load"

#define LOAD_PERIOD_S 5
#define LOAD_FAST_DIV 10

static uint64_t load_avg[3];
static uint32_t load_last;
static uint64_t load_period_ns = LOAD_PERIOD_S * 1000000000ull;

static void load_thread(void *arg)
{
	for (;;) {
		thread_sleep(load_period_ns);
		uint32_t n = sched_runnable();
		if (n > 0)
			n--;                 /* not this thread itself */
		uint64_t next[3] = { load_avg[0], load_avg[1], load_avg[2] };
		load_fold(next, n);
		uint64_t f = irq_save();     /* readers see all three together */
		load_avg[0] = next[0];
		load_avg[1] = next[1];
		load_avg[2] = next[2];
		load_last = n;
		irq_restore(f);
	}
}

void load_init(void)
{
	if (cmdline_has("loadavg.fast"))
		load_period_ns /= LOAD_FAST_DIV;
	if (thread_create_kernel("loadavg", load_thread, NULL, NULL) != EOK)
		pr_warn("no load average thread");
}

void load_get(sysinfo_load_t *out)
{
	uint64_t f = irq_save();

	out->avg[0] = load_avg[0];
	out->avg[1] = load_avg[1];
	out->avg[2] = load_avg[2];
	out->runnable = load_last;
	irq_restore(f);
	out->period_ms = (uint32_t)(load_period_ns / 1000000ull);
}

/* system.load: a sysinfo_load_t. */
static errno_t load_si_read(si_buf_t *b, uint64_t arg)
{
	sysinfo_load_t r;

	load_get(&r);
	return si_put(b, &r, sizeof(r));
}

SYSINFO_DATA_NODE(load, "system.load", 180, load_si_read);
