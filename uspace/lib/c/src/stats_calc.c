/*
 * The monitoring library's arithmetic and formatting (see <stats.h>):
 * pure, no system calls, so that it is also built on the host for the
 * tools' unit tests (top's test_top_calc links it).
 */
#include <inttypes.h>
#include <limits.h>
#include <lib/profreport.h>
#include <stats.h>
#include <stdio.h>

/* cycles in 1/unit seconds at hz, rounded down (0 if hz is 0). */
uint64_t stats_cycles_scale(uint64_t cycles, uint64_t hz, uint64_t unit)
{
	if (hz == 0)
		return 0;
	return cycles / hz * unit + cycles % hz * unit / hz;
}

/* cycles in milliseconds at hz. */
uint64_t stats_cycles_ms(uint64_t cycles, uint64_t hz)
{
	return stats_cycles_scale(cycles, hz, 1000);
}

/* part / total in tenths of a percent, rounded (0 if total is 0). */
unsigned stats_permille(uint64_t part, uint64_t total)
{
	if (total == 0)
		return 0;
	unsigned __int128 r = ((unsigned __int128)part * 2000 / total + 1) / 2;
	return r > UINT_MAX ? UINT_MAX : (unsigned)r;
}

/* A counter's growth from prev to cur (0 if it went back). */
static uint64_t stats_delta(uint64_t prev, uint64_t cur)
{
	return cur > prev ? cur - prev : 0;
}

/* cur's busy/idle/irq shares since prev (NULL: since boot). */
void stats_cpu_percent(const sysinfo_cpu_t *prev, const sysinfo_cpu_t *cur,
		       stats_cpu_pct_t *pct)
{
	sysinfo_cpu_t zero = { 0 };

	if (!prev)
		prev = &zero;
	uint64_t busy = stats_delta(prev->busy_cycles, cur->busy_cycles);
	uint64_t idle = stats_delta(prev->idle_cycles, cur->idle_cycles);
	uint64_t irq = stats_delta(prev->irq_cycles, cur->irq_cycles);
	uint64_t total = busy + idle + irq;

	pct->busy = stats_permille(busy, total);
	pct->idle = stats_permille(idle, total);
	pct->irq = stats_permille(irq, total);
}

/* A fixed-point load as "I.FF", rounded to the hundredth. */
char *stats_fmt_load(char *buf, size_t size, uint64_t load)
{
	uint64_t whole = load >> SYSINFO_LOAD_SHIFT;
	uint64_t frac = load & (SYSINFO_LOAD_ONE - 1);
	uint64_t hundredths = (frac * 100 + SYSINFO_LOAD_ONE / 2) >>
		SYSINFO_LOAD_SHIFT;

	if (hundredths == 100) {
		whole++;
		hundredths = 0;
	}
	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, whole, hundredths);
	return buf;
}

/* bytes with a binary unit and one decimal ("512B", "1.5K"). */
char *stats_fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char units[] = "KMGT";
	uint64_t unit = 1024;
	int u = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 "B", bytes);
		return buf;
	}
	for (;;) {
		uint64_t tenths = bytes / unit * 10 +
			(bytes % unit * 10 + unit / 2) / unit;
		if (tenths < 10240 || units[u + 1] == '\0') {
			snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c",
				 tenths / 10, tenths % 10, units[u]);
			return buf;
		}
		unit *= 1024;
		u++;
	}
}

/* seconds as "D day(s), HH:MM:SS". */
char *stats_fmt_uptime(char *buf, size_t size, uint64_t seconds)
{
	uint64_t days = seconds / 86400;
	unsigned rest = (unsigned)(seconds % 86400);

	snprintf(buf, size, "%" PRIu64 " day%s, %02u:%02u:%02u", days,
		 days == 1 ? "" : "s", rest / 3600, rest / 60 % 60, rest % 60);
	return buf;
}

/* cycles at hz as seconds with two decimals ("12.34"). */
char *stats_fmt_seconds(char *buf, size_t size, uint64_t cycles, uint64_t hz)
{
	uint64_t cs = stats_cycles_scale(cycles, hz, 100);

	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, cs / 100, cs % 100);
	return buf;
}

/* Tenths of a percent as "12.3". */
char *stats_fmt_permille(char *buf, size_t size, unsigned permille)
{
	snprintf(buf, size, "%u.%u", permille / 10, permille % 10);
	return buf;
}

/* The name of thread state (a SYSINFO_THREAD_*). */
const char *stats_thread_state(uint32_t state)
{
	static const char *const names[] = {
		[SYSINFO_THREAD_READY] = "ready",
		[SYSINFO_THREAD_RUNNING] = "running",
		[SYSINFO_THREAD_SLEEPING] = "sleeping",
		[SYSINFO_THREAD_ZOMBIE] = "zombie",
	};

	if (state >= sizeof(names) / sizeof(names[0]) || !names[state])
		return "?";
	return names[state];
}

char *stats_fmt_wait(char *buf, size_t size, const sysinfo_thread_t *t, const char *callee)
{
	static const char *const names[] = WAIT_WHY_NAMES;
	char label[48];

	if (t->wait_why == WAIT_WHY_NONE) {
		snprintf(buf, size, "-");
	} else if (t->wait_why == WAIT_WHY_IPC && callee) {
		prof_ipc_label(callee, t->wait_method, label, sizeof(label));
		snprintf(buf, size, "ipc %s", label);
	} else {
		snprintf(buf, size, "%s", names[t->wait_why < WAIT_WHY_COUNT ? t->wait_why
						: WAIT_WHY_COUNT]);
	}
	return buf;
}
