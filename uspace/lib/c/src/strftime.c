/* strftime for the C locale, UTC only (see <time.h> for the conversions). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const day_names[] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
	"Saturday",
};
static const char *const month_names[] = {
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December",
};

typedef struct out {
	char *s;
	size_t max;
	size_t len;
} out_t;

static void put(out_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (o->len < o->max)
			o->s[o->len] = s[i];
		o->len++;
	}
}

static void put_str(out_t *o, const char *s)
{
	put(o, s, strlen(s));
}

/* v in decimal, zero- or space-padded to width. */
static void put_num(out_t *o, long long v, int width, char pad)
{
	char buf[32];
	int n = pad == '0' ? snprintf(buf, sizeof(buf), "%0*lld", width, v) :
		snprintf(buf, sizeof(buf), "%*lld", width, v);

	put(o, buf, (size_t)n);
}

static const char *name(const char *const *names, int i, int count)
{
	return i >= 0 && i < count ? names[i] : "?";
}

static bool leap(long long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* ISO 8601 weeks: 53 when the year starts on a Thursday (or Wednesday in
 * a leap year). jan1 is the weekday (0 = Sunday) of January 1. */
static int iso_weeks(long long year, int jan1)
{
	return jan1 == 4 || (jan1 == 3 && leap(year)) ? 53 : 52;
}

/* ISO week number of tm; its ISO year goes to *iso_year. */
static int iso_week(const struct tm *tm, long long *iso_year)
{
	long long year = tm->tm_year + 1900LL;
	int jan1 = ((tm->tm_wday - tm->tm_yday) % 7 + 7) % 7;
	int week = (tm->tm_yday - (tm->tm_wday + 6) % 7 + 10) / 7;

	*iso_year = year;
	if (week < 1) {
		int prev_jan1 = ((jan1 - (leap(year - 1) ? 366 : 365)) % 7 + 7) % 7;
		*iso_year = year - 1;
		return iso_weeks(year - 1, prev_jan1);
	}
	if (week > iso_weeks(year, jan1)) {
		*iso_year = year + 1;
		return 1;
	}
	return week;
}

static long long floor_div100(long long y)
{
	return y / 100 - (y % 100 < 0);
}

static void conv(out_t *o, char c, const struct tm *tm);

/* Expand a composite conversion such as %T through conv. */
static void compose(out_t *o, const char *fmt, const struct tm *tm)
{
	for (; *fmt != '\0'; fmt++) {
		if (*fmt == '%')
			conv(o, *++fmt, tm);
		else
			put(o, fmt, 1);
	}
}

static void conv_names(out_t *o, char c, const struct tm *tm)
{
	const char *day = name(day_names, tm->tm_wday, 7);
	const char *mon = name(month_names, tm->tm_mon, 12);

	switch (c) {
	case 'a': put(o, day, strnlen(day, 3)); break;
	case 'A': put_str(o, day); break;
	case 'b':
	case 'h': put(o, mon, strnlen(mon, 3)); break;
	case 'B': put_str(o, mon); break;
	case 'p': put_str(o, tm->tm_hour < 12 ? "AM" : "PM"); break;
	default: break;
	}
}

static void conv_year(out_t *o, char c, const struct tm *tm)
{
	long long year = tm->tm_year + 1900LL, iso_year;
	int week = iso_week(tm, &iso_year);

	switch (c) {
	/* Like glibc: no padding for years below 1000 ("9" for 915). */
	case 'C': put_num(o, floor_div100(year), 1, '0'); break;
	case 'y': put_num(o, (year % 100 + 100) % 100, 2, '0'); break;
	case 'Y': put_num(o, year, 1, '0'); break;
	case 'G': put_num(o, iso_year, 1, '0'); break;
	case 'g': put_num(o, (iso_year % 100 + 100) % 100, 2, '0'); break;
	case 'V': put_num(o, week, 2, '0'); break;
	default: break;
	}
}

static void conv_number(out_t *o, char c, const struct tm *tm)
{
	int h12 = tm->tm_hour % 12 == 0 ? 12 : tm->tm_hour % 12;

	switch (c) {
	case 'd': put_num(o, tm->tm_mday, 2, '0'); break;
	case 'e': put_num(o, tm->tm_mday, 2, ' '); break;
	case 'H': put_num(o, tm->tm_hour, 2, '0'); break;
	case 'I': put_num(o, h12, 2, '0'); break;
	case 'j': put_num(o, tm->tm_yday + 1, 3, '0'); break;
	case 'm': put_num(o, tm->tm_mon + 1, 2, '0'); break;
	case 'M': put_num(o, tm->tm_min, 2, '0'); break;
	case 'S': put_num(o, tm->tm_sec, 2, '0'); break;
	case 'u': put_num(o, tm->tm_wday == 0 ? 7 : tm->tm_wday, 1, '0'); break;
	case 'w': put_num(o, tm->tm_wday, 1, '0'); break;
	case 'U': put_num(o, (tm->tm_yday + 7 - tm->tm_wday) / 7, 2, '0'); break;
	case 'W':
		put_num(o, (tm->tm_yday + 7 - (tm->tm_wday + 6) % 7) / 7, 2, '0');
		break;
	default: break;
	}
}

static void conv(out_t *o, char c, const struct tm *tm)
{
	struct tm copy = *tm;

	switch (c) {
	case 'a': case 'A': case 'b': case 'B': case 'h': case 'p':
		conv_names(o, c, tm); break;
	case 'C': case 'y': case 'Y': case 'G': case 'g': case 'V':
		conv_year(o, c, tm); break;
	case 'c': compose(o, "%a %b %e %H:%M:%S %Y", tm); break;
	case 'D': case 'x': compose(o, "%m/%d/%y", tm); break;
	case 'F': compose(o, "%Y-%m-%d", tm); break;
	case 'r': compose(o, "%I:%M:%S %p", tm); break;
	case 'R': compose(o, "%H:%M", tm); break;
	case 'T': case 'X': compose(o, "%H:%M:%S", tm); break;
	case 's': put_num(o, timegm(&copy), 1, '0'); break;
	case 'n': put(o, "\n", 1); break;
	case 't': put(o, "\t", 1); break;
	case 'z': put_str(o, "+0000"); break;
	case 'Z': put_str(o, "UTC"); break;
	case '%': put(o, "%", 1); break;
	default: conv_number(o, c, tm); break;
	}
}

size_t strftime(char *s, size_t max, const char *fmt, const struct tm *tm)
{
	out_t o = { .s = s, .max = max, .len = 0 };

	for (const char *p = fmt; *p != '\0'; p++) {
		if (*p != '%' || p[1] == '\0') {
			put(&o, p, 1);
			continue;
		}
		p++;
		if (*p == 'E' || *p == 'O')
			p++;
		if (*p == '\0')
			break;
		conv(&o, *p, tm);
	}
	if (o.len >= max)
		return 0;
	s[o.len] = '\0';
	return o.len;
}
