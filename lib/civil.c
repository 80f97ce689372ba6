/* Proleptic Gregorian dates as days since 1970-01-01 (see lib/civil.h). */
#include <lib/civil.h>

/* a / b rounded toward minus infinity (b > 0). */
static int64_t civil_floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

int64_t civil_days(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = civil_floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void civil_date(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t z = days + 719468;
	int64_t era = civil_floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}
