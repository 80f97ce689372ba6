/*
 * lib/civil.h - days since 1970-01-01 of proleptic Gregorian dates and
 * back (Howard Hinnant's days_from_civil / civil_from_days), for the
 * kernel's wall clock (the CMOS RTC) and libc's gmtime and timegm.
 */
#ifndef LIB_CIVIL_H
#define LIB_CIVIL_H

#include <stdint.h>

/* Days since 1970-01-01 of y-m-d (m 1..12, d 1..31; earlier dates negative). */
int64_t civil_days(int64_t y, int m, int d);

/* The date (month 1..12) of days since 1970-01-01. */
void civil_date(int64_t days, int64_t *y, int *m, int *d);

#endif
