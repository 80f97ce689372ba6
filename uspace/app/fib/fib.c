/*
 * fib: the test program of the MINIX profil assignment (README "profil").
 *
 *   fib [-h] [DEPTH [LOOP [BITS]]]
 *
 * Computes fib(DEPTH) doubly recursively (default 38), then loop(LOOP)
 * square roots by Newton's method (default 1000, i.e. 1000 x 1000), then
 * overflow(BITS) counts up until a BITS-bit counter would overflow
 * (default 31: where a 32-bit int overflows), and prints the result and
 * the addresses of main, fib, loop, overflow and printf. Smaller numbers
 * keep it short under an emulator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double fib(int n);
void loop(int n);
void overflow(unsigned bits);

__attribute__((noinline)) double fib(int n)
{
	if (n == 0 || n == 1)
		return 1.0;
	return fib(n - 1) + fib(n - 2);
}

/* The square root of x to 0.0001, Newton's method, no library call. */
static double root(double x)
{
	double a = x / 2, d = a * a - x;

	d = d < 0 ? -d : d;
	while (d > .0001) {
		a = (x / a + a) / 2.0;
		d = a * a - x;
		d = d < 0 ? -d : d;
	}
	return a;
}

__attribute__((noinline)) void loop(int n)
{
	volatile double sink = 0;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++)
			sink = root(i < k ? k : i + 1);
	(void)sink;
}

__attribute__((noinline)) void overflow(unsigned bits)
{
	volatile int64_t n = 1;
	int64_t top = (int64_t)1 << bits;

	while (n > 0 && n < top)
		n++;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: fib [-h] [DEPTH [LOOP [BITS]]]\n"
		"  fib(DEPTH) recursively (38), LOOP x LOOP square roots (1000),\n"
		"  count to 2^BITS (31, 1..62); print the functions' addresses\n");
}

/* argv[i] as a number in [lo, hi], or def if absent; -1 if bad. */
static long arg(int argc, char **argv, int i, long def, long lo, long hi)
{
	char *end;

	if (i >= argc)
		return def;
	long v = strtol(argv[i], &end, 10);
	return *argv[i] && !*end && v >= lo && v <= hi ? v : -1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	long n = arg(argc, argv, 1, 38, 0, 60), l = arg(argc, argv, 2, 1000, 0, 100000);
	long bits = arg(argc, argv, 3, 31, 1, 62);
	if (argc > 4 || n < 0 || l < 0 || bits < 0) {
		usage(stderr);
		return 2;
	}
	double x = fib((int)n);
	loop((int)l);
	overflow((unsigned)bits);
	printf("fib(%ld) = %f\n", n, x);
	printf("fib.main: %p\n", (void *)main);
	printf("fib.fib: %p\n", (void *)fib);
	printf("fib.loop: %p\n", (void *)loop);
	printf("fib.overflow: %p\n", (void *)overflow);
	printf("fib.printf: %p\n", (void *)printf);
	return 0;
}
