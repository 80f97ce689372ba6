/*
 * Locales: only the "C" (alias "POSIX") locale exists. setlocale accepts
 * "C", "POSIX" and "" (the environment's choice, which is always "C") for
 * every category and returns "C"; any other name gives NULL. localeconv
 * describes the C locale (decimal point ".", no grouping, no currency).
 */
#ifndef _LOCALE_H
#define _LOCALE_H

#include <stddef.h>

#define LC_CTYPE 0
#define LC_NUMERIC 1
#define LC_TIME 2
#define LC_COLLATE 3
#define LC_MONETARY 4
#define LC_MESSAGES 5
#define LC_ALL 6

struct lconv {
	char *decimal_point;
	char *thousands_sep;
	char *grouping;
	char *int_curr_symbol;
	char *currency_symbol;
	char *mon_decimal_point;
	char *mon_thousands_sep;
	char *mon_grouping;
	char *positive_sign;
	char *negative_sign;
	char int_frac_digits;
	char frac_digits;
	char p_cs_precedes;
	char p_sep_by_space;
	char n_cs_precedes;
	char n_sep_by_space;
	char p_sign_posn;
	char n_sign_posn;
	char int_p_cs_precedes;
	char int_p_sep_by_space;
	char int_n_cs_precedes;
	char int_n_sep_by_space;
	char int_p_sign_posn;
	char int_n_sign_posn;
};

/* Set (locale not NULL) or query category's locale: "C", or NULL. */
char *setlocale(int category, const char *locale);
/* The C locale's conventions (a static, read-only in practice). */
struct lconv *localeconv(void);

#endif
