/* Small stdlib functions: absolute values, division, rand. */
#include <inttypes.h>
#include <stdlib.h>

int abs(int v)
{
	return v < 0 ? -v : v;
}

long labs(long v)
{
	return v < 0 ? -v : v;
}

long long llabs(long long v)
{
	return v < 0 ? -v : v;
}

intmax_t imaxabs(intmax_t v)
{
	return v < 0 ? -v : v;
}

div_t div(int num, int den)
{
	return (div_t){ .quot = num / den, .rem = num % den };
}

ldiv_t ldiv(long num, long den)
{
	return (ldiv_t){ .quot = num / den, .rem = num % den };
}

lldiv_t lldiv(long long num, long long den)
{
	return (lldiv_t){ .quot = num / den, .rem = num % den };
}

imaxdiv_t imaxdiv(intmax_t num, intmax_t den)
{
	return (imaxdiv_t){ .quot = num / den, .rem = num % den };
}

static uint64_t rand_state = 1;

/* xorshift64* (state never 0), top 31 bits. Not thread-safe, like C's. */
int rand(void)
{
	uint64_t x = rand_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rand_state = x;
	return (int)((x * 0x2545f4914f6cdd1dull) >> 33);
}

void srand(unsigned seed)
{
	rand_state = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	if (rand_state == 0)
		rand_state = 1;
}
