/*
 * The bits of a double and back, for the math files (private to libc).
 */
#ifndef LIBC_MATH_BITS_H
#define LIBC_MATH_BITS_H

#include <stdint.h>
#include <string.h>

/* The IEEE-754 bits of x. */
static inline uint64_t bits_of(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/* The double whose IEEE-754 bits are b. */
static inline double from_bits(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

#endif
