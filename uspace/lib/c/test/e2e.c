/*
 * A user program for the end-to-end test (test/unit/test_libc_e2e.c): built
 * exactly like a /bin program (crt0, libc.a, uspace/link.ld) and run on the
 * host under vrun. Each line of output checks one piece of libc in the
 * real user-space build; the first argument selects special endings.
 */
#include <assert.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <time.h>
#include <vernier.h>

static int ctor_value;

__attribute__((constructor)) static void ctor(void)
{
	ctor_value = 42;
}

static void bye(void)
{
	printf("[atexit]");
}

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void check_malloc(void)
{
	static char *p[500];
	int bad = 0;

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 500; i++) {
			size_t n = (size_t)(i * 97 % 3000 + round);
			p[i] = malloc(n);
			memset(p[i], i & 0xff, n);
		}
		for (int i = 0; i < 500; i += 2) {
			size_t n = (size_t)(i * 97 % 3000 + round);
			bad += n > 0 && p[i][n - 1] != (char)(i & 0xff);
			free(p[i]);
		}
		for (int i = 1; i < 500; i += 2) {
			p[i] = realloc(p[i], 5000);
			bad += p[i][0] != (char)(i & 0xff) && i * 97 % 3000 + round > 0;
			free(p[i]);
		}
	}
	char *big = malloc(3 << 20);
	memset(big, 1, 3 << 20);
	free(big);
	printf("malloc %s\n", bad ? "BAD" : "ok");
}

static long thread_fn(void *arg)
{
	/* Floating point on the new thread's stack: needs its alignment. */
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", 1.5);
	return strcmp(buf, "1.5") == 0 ? (long)(intptr_t)arg : -1;
}

/* Under vrun thread creation fails (ENOSYS); on Vernier it runs. */
static void check_thread(void)
{
	thread_id_t tid;
	long value = 0;
	errno_t e = thread_start(thread_fn, (void *)123, &tid);

	printf("thread_start %d\n", e);
	if (e != EOK)
		return;
	e = thread_join(tid, &value);
	printf("thread_join %d value %ld\n", e, value);
}

static void check_misc(void)
{
	int v[] = { 5, -3, 9, 0, 5, 2 };
	jmp_buf jb;
	volatile int jumped = 0;

	qsort(v, 6, sizeof(int), cmp);
	printf("qsort %d %d %d %d %d %d\n", v[0], v[1], v[2], v[3], v[4], v[5]);
	if (setjmp(jb) == 0)
		longjmp(jb, 7);
	else
		jumped = 1;
	printf("longjmp %d\n", jumped);
	printf("strtol %ld %lu\n", strtol("-0x1f", NULL, 0), strtoul("0777", NULL, 0));
	printf("sqrt %.17g pow %.17g\n", sqrt(2.0), pow(2.0, 0.5));
	printf("clock %s time %s\n", sys_clock_ns(CLOCK_MONOTONIC) > 0 ? "ok" : "BAD",
	       time(NULL) > 1000000000 ? "ok" : "BAD");
	char buf[64];
	time_t t = 1700000000;
	struct tm tm;
	strftime(buf, sizeof(buf), "%F %T %a", gmtime_r(&t, &tm));
	printf("strftime %s\n", buf);
	check_thread();
}

int main(int argc, char **argv)
{
	printf("ctor %d\n", ctor_value);
	printf("argc %d", argc);
	for (int i = 0; i < argc; i++)
		printf(" [%s]", argv[i]);
	printf(" %s\n", argv[argc] == NULL ? "NULL" : "BAD");
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "abort") == 0) {
		printf("unflushed");
		abort();
	}
	if (strcmp(mode, "assert") == 0)
		assert(argc == 1);
	if (strcmp(mode, "exit") == 0)
		exit(atoi(argv[2]));
	printf("fmt %d %x %s %5.2f %e %g %a\n", -42, 255u, "s", 3.14159, 6.02e23,
	       1e-10, 0.1);
	check_malloc();
	check_misc();
	atexit(bye);
	printf("end");
	return 3;
}
