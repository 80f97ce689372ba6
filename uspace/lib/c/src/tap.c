/* TAP output for test programs: see <tap.h>. */
#include <stdarg.h>
#include <stdio.h>
#include <tap.h>

static int tap_count, tap_failed, tap_planned = -1;

int tap_ok(int cond, const char *fmt, ...)
{
	char desc[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", tap_count, desc);
	return cond;
}

void tap_diag(const char *fmt, ...)
{
	char text[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	printf("# %s\n", text);
}

void tap_skip(const char *desc, const char *why)
{
	tap_count++;
	printf("ok %d - %s # SKIP %s\n", tap_count, desc, why);
}

int tap_tests(void)
{
	return tap_count;
}

int tap_failures(void)
{
	return tap_failed;
}

void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

int tap_group_done(const char *name, int before, int declared)
{
	int ran = tap_count - before;

	if (ran != declared)
		tap_diag("group %s reported %d tests, declares %d", name, ran, declared);
	return ran == declared;
}

int tap_end(void)
{
	if (tap_planned < 0) {
		printf("1..%d\n", tap_count);
		return tap_failed ? 1 : 0;
	}
	if (tap_count != tap_planned)
		tap_diag("planned %d tests, reported %d", tap_planned, tap_count);
	return tap_failed || tap_count != tap_planned ? 1 : 0;
}
