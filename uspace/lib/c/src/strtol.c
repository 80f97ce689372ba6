/*
 * strtol and friends: one parser producing the magnitude, the sign and
 * whether it overflowed 64 bits; the wrappers clamp to their type.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct parsed {
	unsigned long long mag;
	bool neg;
	bool overflow;
} parsed_t;

/* Value of digit c (any base up to 36), or 36 if it is not one. */
static unsigned digit_value(int c)
{
	if (isdigit(c))
		return (unsigned)(c - '0');
	if (isalpha(c))
		return (unsigned)(tolower(c) - 'a' + 10);
	return 36;
}

/* Skip "0x"/"0X" when a hex digit follows; settle base 0. */
static const char *prefix(const char *p, int *base)
{
	bool hex_prefix = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
		digit_value((unsigned char)p[2]) < 16;

	if ((*base == 0 || *base == 16) && hex_prefix) {
		*base = 16;
		return p + 2;
	}
	if (*base == 0)
		*base = p[0] == '0' ? 8 : 10;
	return p;
}

/* Parse s; returns false (errno EINVAL) for a bad base. */
static bool parse(const char *s, char **end, int base, parsed_t *r)
{
	const char *p = s;

	r->mag = 0;
	r->neg = false;
	r->overflow = false;
	if (end)
		*end = (char *)s;
	if (base < 0 || base == 1 || base > 36) {
		errno = EINVAL;
		return false;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		r->neg = *p++ == '-';
	p = prefix(p, &base);
	const char *digits = p;
	unsigned d;
	while ((d = digit_value((unsigned char)*p)) < (unsigned)base) {
		if (r->mag > (ULLONG_MAX - d) / (unsigned)base)
			r->overflow = true;
		r->mag = r->mag * (unsigned)base + d;
		p++;
	}
	if (end && p != digits)
		*end = (char *)p;
	return true;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	parsed_t r;

	if (!parse(s, end, base, &r))
		return 0;
	if (r.overflow) {
		errno = ERANGE;
		return ULLONG_MAX;
	}
	return r.neg ? 0 - r.mag : r.mag;
}

long long strtoll(const char *s, char **end, int base)
{
	parsed_t r;

	if (!parse(s, end, base, &r))
		return 0;
	unsigned long long limit = r.neg ? (unsigned long long)LLONG_MAX + 1 :
		(unsigned long long)LLONG_MAX;
	if (r.overflow || r.mag > limit) {
		errno = ERANGE;
		return r.neg ? LLONG_MIN : LLONG_MAX;
	}
	return r.neg ? (long long)(0 - r.mag) : (long long)r.mag;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

long strtol(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

intmax_t strtoimax(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

uintmax_t strtoumax(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

long atol(const char *s)
{
	return strtol(s, NULL, 10);
}

long long atoll(const char *s)
{
	return strtoll(s, NULL, 10);
}
