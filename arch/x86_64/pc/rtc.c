/*
 * The CMOS real-time clock, read once at boot for the wall clock, and the
 * CMOS register access the profiler's rtc sources share (see pc.h: only
 * one user at a time, since an index write and a data access are two steps).
 */
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/pc/pc.h>
#include <kernel/printk.h>
#include <kernel/time.h>
#include <lib/civil.h>

#define LOG_PREFIX "rtc"
#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71
#define CMOS_NMI_OFF 0x80

typedef struct rtc_time {
	unsigned sec, min, hour, day, mon, year, century;
} rtc_time_t;

uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
	return inb(CMOS_DATA);
}

void cmos_write(uint8_t reg, uint8_t v)
{
	outb(CMOS_INDEX, CMOS_NMI_OFF | reg);
	outb(CMOS_DATA, v);
}

static void rtc_read_raw(rtc_time_t *t)
{
	while (cmos_read(0x0a) & 0x80)          /* update in progress */
		cpu_relax();
	t->sec = cmos_read(0x00);
	t->min = cmos_read(0x02);
	t->hour = cmos_read(0x04);
	t->day = cmos_read(0x07);
	t->mon = cmos_read(0x08);
	t->year = cmos_read(0x09);
	t->century = acpi.century ? cmos_read(acpi.century) : 0;
}

static unsigned bcd(unsigned v)
{
	return (v & 0x0f) + (v >> 4) * 10;
}

static void rtc_decode(rtc_time_t *t, uint8_t status_b)
{
	bool pm = t->hour & 0x80;

	t->hour &= 0x7f;
	if (!(status_b & 0x04)) {               /* BCD */
		t->sec = bcd(t->sec);
		t->min = bcd(t->min);
		t->hour = bcd(t->hour);
		t->day = bcd(t->day);
		t->mon = bcd(t->mon);
		t->year = bcd(t->year);
		t->century = bcd(t->century);
	}
	if (!(status_b & 0x02) && pm)           /* 12-hour clock */
		t->hour = (t->hour % 12) + 12;
	t->year += (t->century ? t->century : (t->year < 70 ? 20 : 19)) * 100;
}

/* Read the RTC twice, until two reads agree (not across an update). */
static void rtc_read_stable(rtc_time_t *a)
{
	rtc_time_t b;

	do {
		rtc_read_raw(a);
		rtc_read_raw(&b);
	} while (a->sec != b.sec || a->min != b.min || a->hour != b.hour ||
		 a->day != b.day || a->mon != b.mon || a->year != b.year);
	rtc_decode(a, cmos_read(0x0b));
}

static int64_t rtc_seconds(const rtc_time_t *t)
{
	return civil_days(t->year, (int)t->mon, (int)t->day) * 86400 +
	       t->hour * 3600 + t->min * 60 + t->sec;
}

int64_t rtc_read_seconds(void)
{
	rtc_time_t t;

	rtc_read_stable(&t);
	return rtc_seconds(&t);
}

/* Read the RTC and set the wall clock (boot only: see cmos_read()). */
void rtc_init(void)
{
	rtc_time_t a;

	rtc_read_stable(&a);
	time_set_wall(rtc_seconds(&a));
	pr_info("%04u-%02u-%02u %02u:%02u:%02u UTC", a.year, a.mon, a.day,
		a.hour, a.min, a.sec);
}
