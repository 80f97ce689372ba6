/* The C locale (see <locale.h>). */
#include <limits.h>
#include <locale.h>
#include <string.h>

static char c_name[] = "C";
static char dot[] = ".";
static char empty[] = "";

static struct lconv c_lconv = {
	.decimal_point = dot,
	.thousands_sep = empty,
	.grouping = empty,
	.int_curr_symbol = empty,
	.currency_symbol = empty,
	.mon_decimal_point = empty,
	.mon_thousands_sep = empty,
	.mon_grouping = empty,
	.positive_sign = empty,
	.negative_sign = empty,
	.int_frac_digits = CHAR_MAX,
	.frac_digits = CHAR_MAX,
	.p_cs_precedes = CHAR_MAX,
	.p_sep_by_space = CHAR_MAX,
	.n_cs_precedes = CHAR_MAX,
	.n_sep_by_space = CHAR_MAX,
	.p_sign_posn = CHAR_MAX,
	.n_sign_posn = CHAR_MAX,
	.int_p_cs_precedes = CHAR_MAX,
	.int_p_sep_by_space = CHAR_MAX,
	.int_n_cs_precedes = CHAR_MAX,
	.int_n_sep_by_space = CHAR_MAX,
	.int_p_sign_posn = CHAR_MAX,
	.int_n_sign_posn = CHAR_MAX,
};

/* "C" for the C locale's names (or a query), NULL for any other. */
char *setlocale(int category, const char *locale)
{
	if (category < LC_CTYPE || category > LC_ALL)
		return NULL;
	if (!locale || !*locale || !strcmp(locale, "C") ||
	    !strcmp(locale, "POSIX"))
		return c_name;
	return NULL;
}

/* The C locale's conventions. */
struct lconv *localeconv(void)
{
	return &c_lconv;
}
