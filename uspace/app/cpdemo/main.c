/*
 * cpdemo: the call profiler's test of its overhead elimination (the MINIX
 * thesis's 3.5.5 experiment; always built with -finstrument-functions).
 *
 *   cpdemo [-h] [-n N] [-i IT] [-s MS] [-t THREADS] [-w MS]
 *
 * a, b, c and d run the same loop of IT iterations (default 50000) in
 * their own bodies; a also calls b and c, b calls d. main's run calls a
 * N times (default 1000: about a second under QEMU TCG), so the paths
 * main run a, main run a b, main run a b d and main run a c are each
 * called N times and should each get the same self time: the hooks' own
 * cost is left out. -s MS makes b also sleep MS milliseconds on each
 * call, so that main run a b shows wall time well above its on-CPU time.
 * -t THREADS runs the same in that many more threads (thread_start,
 * paths under worker) at once. -w MS then lingers MS milliseconds,
 * calling linger every LINGER_MS, so that a reset shows on a live table
 * (its next hook clears it). Prints one line: its task id (its table's),
 * what ran and whether the profile was announced to the kernel.
 *
 * Exit status: 0; 1 if a thread could not be started; 2 for usage errors.
 */
#include <cprof.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>

#define N_DEFAULT 1000
#define IT_DEFAULT 50000
#define LINGER_MS 100
#define THREADS_MAX 16
#define NS_PER_MS 1000000ull

/* The same loop in every function: a volatile counter, never removed or merged. */
#define SPIN(n) do { for (volatile unsigned long i_ = 0; i_ < (n); i_++) ; } while (0)

/*
 * The compared functions start on 256-byte boundaries so that none
 * straddles a page: under QEMU TCG a loop whose code crosses a page runs
 * about ten times slower (its translated blocks cannot chain), which
 * would make equal functions' self times differ by layout alone.
 */
#define CPD_FN __attribute__((noinline, aligned(256)))

static unsigned long iterations = IT_DEFAULT;
static unsigned long sleep_ms;

static CPD_FN void d(void)
{
	SPIN(iterations);
}

static CPD_FN void c(void)
{
	SPIN(iterations);
}

static CPD_FN void b(void)
{
	SPIN(iterations);
	if (sleep_ms)
		sys_sleep_ns(sleep_ms * NS_PER_MS);
	d();
}

static CPD_FN void a(void)
{
	SPIN(iterations);
	b();
	c();
}

/* While lingering: one hook pair every LINGER_MS. */
static __attribute__((noinline)) void linger(void)
{
	SPIN(1);
}

/* Linger ms milliseconds (see -w). */
static __attribute__((noinline)) void linger_for(unsigned long ms)
{
	for (unsigned long t = 0; t < ms; t += LINGER_MS) {
		linger();
		sys_sleep_ns(LINGER_MS * NS_PER_MS);
	}
}

/* A thread's body: a, n (arg) times. */
static __attribute__((noinline)) long worker(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		a();
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: cpdemo [-h] [-n N] [-i IT] [-s MS] [-t THREADS] [-w MS]\n"
		"  call a N times (default %d); a, b, c, d each spin IT times (default %d)\n"
		"  a calls b and c, b calls d: their self times should come out equal\n"
		"  -s MS       b also sleeps MS milliseconds a call (wall > on-CPU)\n"
		"  -t THREADS  also run it in THREADS threads at once (at most %d)\n"
		"  -w MS       then linger MS milliseconds (for cprof get)\n",
		N_DEFAULT, IT_DEFAULT, THREADS_MAX);
}

/* A positive number (0 allowed if zero_ok) into *v; false if not one. */
static bool parse_num(const char *s, unsigned long max, bool zero_ok, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	*v = strtoul(s, &end, 10);
	return !*end && *v <= max && (zero_ok || *v > 0);
}

/* Run worker(n) in nthreads threads and in this one; false if a start failed. */
static __attribute__((noinline)) bool run(unsigned long n, unsigned long nthreads)
{
	thread_id_t tid[THREADS_MAX];
	unsigned long started = 0;

	while (started < nthreads &&
	       thread_start(worker, (void *)n, &tid[started]) == EOK)
		started++;
	for (unsigned long i = 0; i < n; i++)
		a();
	for (unsigned long i = 0; i < started; i++)
		thread_join(tid[i], NULL);
	return started == nthreads;
}

int main(int argc, char **argv)
{
	unsigned long n = N_DEFAULT, nthreads = 0, wait_ms = 0;
	int ch;
	bool ok = true;

	while ((ch = getopt(argc, argv, "hn:i:s:t:w:")) != -1 && ok) {
		if (ch == 'h') {
			usage(stdout);
			return 0;
		}
		ok = (ch == 'n' && parse_num(optarg, 100000000, false, &n)) ||
		     (ch == 'i' && parse_num(optarg, 1000000000, false, &iterations)) ||
		     (ch == 's' && parse_num(optarg, 10000, true, &sleep_ms)) ||
		     (ch == 't' && parse_num(optarg, THREADS_MAX, true, &nthreads)) ||
		     (ch == 'w' && parse_num(optarg, 3600000, true, &wait_ms));
	}
	if (!ok || optind != argc) {
		usage(stderr);
		return 2;
	}
	bool started = run(n, nthreads);
	cprof_rt_info_t info;
	cprof_rt_info(&info);
	printf("cpdemo: task %llu: a called %lu times in %lu thread%s, %lu iterations a loop; "
	       "profile %s%s\n", (unsigned long long)sys_task_id(), n, nthreads + 1,
	       nthreads ? "s" : "", iterations,
	       info.announce == EOK ? "announced" : "not announced: ",
	       info.announce == EOK ? "" : strerror(info.announce));
	if (!started)
		fprintf(stderr, "cpdemo: could not start every thread\n");
	linger_for(wait_ms);
	return started ? 0 : 1;
}
