/*
 * Unit test for kernel/fmt_nofloat.c, the kernel's fmt_float: linked with
 * the shared lib/fmt.c (and not lib/fmt_float.c), a floating-point
 * conversion prints its specification as text, consumes no argument and
 * counts its characters.
 */
#include "tap.h"

#include <string.h>

#include <lib/fmt.h>

/* The point is formats whose arguments do not match. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"

int main(void)
{
	char buf[128];

	is_int(fmt_snprintf(buf, sizeof(buf), "%d %f %d", 1, 2), 6, "length");
	is_str(buf, "1 %f 2", "%%f printed literally, no argument consumed");
	fmt_snprintf(buf, sizeof(buf), "[%-+ #012.3e|%Lg|%*.*a]", 8, 3);
	is_str(buf, "[%-+ #012.3e|%Lg|%8.3a]", "flags, width, precision, length; '*' values substituted");
	fmt_snprintf(buf, sizeof(buf), "%hhG %lF %E %A", 0);
	is_str(buf, "%hhG %lF %E %A", "every conversion and length modifier");
	is_int(fmt_snprintf(NULL, 0, "%.10f"), 5, "counting without a sink");
	fmt_snprintf(buf, 4, "%f");
	is_str(buf, "%f", "truncation through the sink");
	return done_testing();
}
