/*
 * top: the text of numbers (times, sizes, counts, bars; shares and loads
 * are <stats.h>'s) and the parsing of option values. Pure: also built on
 * the host.
 */
#include <stdio.h>
#include <string.h>

#include "top.h"

#define MS_PER_MIN 60000ull
#define MS_PER_HOUR 3600000ull
#define S_PER_DAY 86400ull
#define UNITS "KMGTPE"

typedef unsigned long long ull;

void top_fmt_ms(char *buf, size_t n, uint64_t ms)
{
	uint64_t min = ms / MS_PER_MIN;

	if (min < 1000)
		snprintf(buf, n, "%llu:%02llu.%02llu", (ull)min,
			 (ull)(ms / 1000 % 60), (ull)(ms / 10 % 100));
	else
		snprintf(buf, n, "%lluh%02llu", (ull)(ms / MS_PER_HOUR),
			 (ull)(min % 60));
}

/* v in units of base (K, M, ...): one decimal (rounded) below 100 units. */
static void fmt_scaled(char *buf, size_t n, uint64_t v, uint64_t base)
{
	uint64_t unit = base;
	unsigned u = 0;

	while (u + 1 < strlen(UNITS) && v / unit >= 1000) {
		unit *= base;
		u++;
	}
	uint64_t tenths = (top_muldiv(v, 20, unit) + 1) / 2;
	if (tenths < 1000)
		snprintf(buf, n, "%llu.%llu%c", (ull)(tenths / 10),
			 (ull)(tenths % 10), UNITS[u]);
	else
		snprintf(buf, n, "%llu%c", (ull)(v / unit), UNITS[u]);
}

void top_fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
	if (bytes < 1024)
		snprintf(buf, n, "%lluB", (ull)bytes);
	else
		fmt_scaled(buf, n, bytes, 1024);
}

void top_fmt_count(char *buf, size_t n, uint64_t v)
{
	if (v < 100000)
		snprintf(buf, n, "%llu", (ull)v);
	else
		fmt_scaled(buf, n, v, 1000);
}

void top_fmt_bar(char *buf, size_t n, unsigned pm, unsigned width)
{
	uint64_t full = ((uint64_t)pm * width + 500) / 1000;
	size_t at = 0;

	if (n < (size_t)width + 3) {
		if (n)
			buf[0] = '\0';
		return;
	}
	if (full > width)
		full = width;
	buf[at++] = '[';
	for (unsigned i = 0; i < width; i++)
		buf[at++] = i < full ? '|' : ' ';
	buf[at++] = ']';
	buf[at] = '\0';
}

void top_fmt_clock(char *buf, size_t n, uint64_t realtime_ns)
{
	uint64_t s = realtime_ns / TOP_NS_PER_S % S_PER_DAY;

	snprintf(buf, n, "%02llu:%02llu:%02llu", (ull)(s / 3600),
		 (ull)(s / 60 % 60), (ull)(s % 60));
}

void top_fmt_uptime(char *buf, size_t n, uint64_t uptime_ns)
{
	uint64_t s = uptime_ns / TOP_NS_PER_S, days = s / S_PER_DAY;
	char hms[32];

	s %= S_PER_DAY;
	snprintf(hms, sizeof(hms), "%llu:%02llu:%02llu", (ull)(s / 3600),
		 (ull)(s / 60 % 60), (ull)(s % 60));
	if (days)
		snprintf(buf, n, "%llu day%s, %s", (ull)days,
			 days == 1 ? "" : "s", hms);
	else
		snprintf(buf, n, "%s", hms);
}

/* The letter of a SYSINFO_THREAD_* state. */
static char state_letter(uint64_t state)
{
	static const char letters[] = "rRSZ";

	return state < strlen(letters) ? letters[state] : '?';
}

void top_fmt_cell(char *buf, size_t n, const top_col_t *c,
		  const top_row_t *r, unsigned ci)
{
	uint64_t v = r->v[ci];

	switch (c->kind) {
	case TOP_K_COUNT: top_fmt_count(buf, n, v); break;
	case TOP_K_PERMILLE: stats_fmt_permille(buf, n, (unsigned)v); break;
	case TOP_K_MS: top_fmt_ms(buf, n, v); break;
	case TOP_K_BYTES: top_fmt_bytes(buf, n, v); break;
	case TOP_K_STATE: snprintf(buf, n, "%c", state_letter(v)); break;
	case TOP_K_TEXT: snprintf(buf, n, "%s", r->text); break;
	case TOP_K_WAIT: snprintf(buf, n, "%s", r->wait); break;
	default: snprintf(buf, n, "%llu", (ull)v); break;
	}
}

/* Parse the digits at *p into *v (no overflow); false if there are none. */
static bool parse_digits(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	bool any = s != *p;
	*p = s;
	return any;
}

bool top_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (!s || !parse_digits(&s, &v) || *s || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool top_parse_seconds(const char *s, uint64_t min_ns, uint64_t max_ns,
		       uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = TOP_NS_PER_S / 10;
	bool whole = s && parse_digits(&s, &sec), digits = whole;

	if (!s || (!whole && *s != '.') || sec > max_ns / TOP_NS_PER_S)
		return false;
	if (*s == '.')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, digits = true) {
		frac += (uint64_t)(*s - '0') * scale;
		scale /= 10;
	}
	uint64_t v = sec * TOP_NS_PER_S + frac;
	if (!digits || *s || v < min_ns || v > max_ns)
		return false;
	*ns = v;
	return true;
}
