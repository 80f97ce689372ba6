/*
 * workload: spend time in named functions in proportion to weights.
 *
 *   workload [-h] [-t THREADS] [-d SECONDS] NAME:WEIGHT ...
 *     NAME: alpha, beta, gamma, delta, epsilon (user code), ksyscall
 *     (SYS_NULL in a loop: kernel entry and exit), kcopy (64 KiB IPC data
 *     writes to a server thread: kernel copying); WEIGHT: 1..1000
 *     -t THREADS  worker threads, 1..64 (default 1)
 *     -d SECONDS  how long, a whole or decimal number (default 5)
 *
 * Each worker goes round the names in command-line order, giving NAME
 * WEIGHT slices of WL_SLICE_US microseconds (TSC time) per round, until
 * the time is up. At the end it prints, per name and in total,
 * "workload: NAME N iterations in T ms" (T: TSC time in that name,
 * summed over threads), then "workload: cpu U ms user, K ms kernel": the
 * kernel's exact cycle accounting of the whole task so far (a reference
 * for the profilers' kernel share).
 */
#include <ctype.h>
#include <getopt.h>
#include <ipc.h>
#include <stdio.h>
#include <stats.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>

#include "workload.h"

#define WL_SLICE_US 1000
#define WL_MAX_SECONDS 1000000
#define WL_MAX_SHARES 7            /* the names are distinct */

static wl_share_t wl_shares[WL_MAX_SHARES];
static unsigned wl_nshares;
static uint64_t wl_tsc_hz;
static uint64_t wl_duration;        /* TSC cycles each worker runs */
static bool wl_kcopy;               /* a share needs the kcopy server */

static void usage(FILE *out)
{
	fprintf(out, "usage: workload [-h] [-t THREADS] [-d SECONDS] NAME:WEIGHT ...\n"
		"  spend time in functions in proportion to the weights (1..1000)\n"
		"  NAME: alpha beta gamma delta epsilon (user code), ksyscall\n"
		"  (a cheap system call), kcopy (IPC data copied by the kernel)\n"
		"  -t THREADS  worker threads, 1..64 (default 1)\n"
		"  -d SECONDS  duration, like 5 or 0.5 (default 5)\n");
}

/* Print the usage to stderr; returns 2, the status of a usage error. */
static int usage_error(void)
{
	usage(stderr);
	return 2;
}

/* Parse a decimal number of 1..max into *value; false if s is not one. */
static bool parse_uint(const char *s, unsigned max, unsigned *value)
{
	unsigned long v = 0;

	if (!*s)
		return false;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > max)
			return false;
	*value = (unsigned)v;
	return !*s && v >= 1;
}

/*
 * Parse "5", "0.5" or ".25" seconds into wl_duration (TSC cycles; digits
 * past the ninth decimal are ignored); false unless it is a positive
 * number of at most WL_MAX_SECONDS.
 */
static bool parse_seconds(const char *s)
{
	uint64_t sec = 0, nsec = 0, scale = 100000000;
	bool digits = false;

	for (; isdigit((unsigned char)*s); s++, digits = true)
		if ((sec = sec * 10 + (*s - '0')) > WL_MAX_SECONDS)
			return false;
	if (*s == '.')
		s++;
	for (; isdigit((unsigned char)*s); s++, digits = true) {
		nsec += (*s - '0') * scale;
		scale /= 10;
	}
	wl_duration = sec * wl_tsc_hz + nsec * wl_tsc_hz / 1000000000;
	return digits && !*s && wl_duration > 0;
}

/* Add NAME:WEIGHT to wl_shares; false if it is bad or a duplicate. */
static bool parse_share(const char *arg)
{
	const char *colon = strchr(arg, ':');
	char name[16];
	wl_share_t *sh = &wl_shares[wl_nshares];

	if (!colon || colon - arg >= (long)sizeof(name))
		return false;
	memcpy(name, arg, colon - arg);
	name[colon - arg] = '\0';
	if (!(sh->fn = work_find(name)) ||
	    !parse_uint(colon + 1, WL_MAX_WEIGHT, &sh->weight))
		return false;
	for (unsigned i = 0; i < wl_nshares; i++)
		if (wl_shares[i].fn == sh->fn)
			return false;
	sh->name = strndup(arg, colon - arg);
	wl_kcopy |= work_needs_kcopy(sh->fn);
	wl_nshares++;
	return sh->name != NULL;
}

/* Run share sh for one turn (its weight in slices); adds to its counts. */
static void run_turn(wl_share_t *sh, int phone, uint64_t *iters,
		     uint64_t *cycles)
{
	uint64_t slice = wl_tsc_hz * WL_SLICE_US / 1000000;

	for (unsigned i = 0; i < sh->weight; i++) {
		uint64_t t0 = tsc_read();

		*iters += sh->fn(t0 + slice, phone);
		*cycles += tsc_read() - t0;
	}
}

/* A worker thread: rounds over the shares until its time is up. */
static long worker(void *arg)
{
	uint64_t iters[WL_MAX_SHARES] = { 0 }, cycles[WL_MAX_SHARES] = { 0 };
	uint64_t end = tsc_read() + wl_duration;
	int phone = -1;

	(void)arg;
	if (wl_kcopy && kcopy_connect(&phone) != EOK)
		return 1;
	while (tsc_read() < end)
		for (unsigned i = 0; i < wl_nshares; i++)
			run_turn(&wl_shares[i], phone, &iters[i], &cycles[i]);
	for (unsigned i = 0; i < wl_nshares; i++) {
		__atomic_fetch_add(&wl_shares[i].iterations, iters[i], __ATOMIC_RELAXED);
		__atomic_fetch_add(&wl_shares[i].cycles, cycles[i], __ATOMIC_RELAXED);
	}
	if (phone >= 0)
		sys_ipc_hangup(phone);
	return 0;
}

/* Start threads workers and join them; the number that failed. */
static unsigned run_workers(unsigned threads)
{
	thread_id_t tids[WL_MAX_THREADS];
	unsigned started = 0, failed = 0;
	long value;

	for (; started < threads; started++)
		if (thread_start(worker, NULL, &tids[started]) != EOK)
			break;
	failed = threads - started;
	for (unsigned i = 0; i < started; i++)
		if (thread_join(tids[i], &value) != EOK || value != 0)
			failed++;
	return failed;
}

/* Print the per-name and total lines. */
static void report(void)
{
	uint64_t iters = 0, cycles = 0;

	for (unsigned i = 0; i < wl_nshares; i++) {
		printf("workload: %s %llu iterations in %llu ms\n",
		       wl_shares[i].name,
		       (unsigned long long)wl_shares[i].iterations,
		       (unsigned long long)(wl_shares[i].cycles * 1000 / wl_tsc_hz));
		iters += wl_shares[i].iterations;
		cycles += wl_shares[i].cycles;
	}
	printf("workload: total %llu iterations in %llu ms\n",
	       (unsigned long long)iters,
	       (unsigned long long)(cycles * 1000 / wl_tsc_hz));
}

/* The task's user and kernel time from the kernel's accounting. */
static void report_cpu(void)
{
	sysinfo_task_t t;

	if (stats_task(sys_task_id(), &t) != EOK) {
		fprintf(stderr, "workload: cannot read its own task record\n");
		return;
	}
	printf("workload: cpu %llu ms user, %llu ms kernel\n",
	       (unsigned long long)stats_cycles_ms(t.user_cycles, wl_tsc_hz),
	       (unsigned long long)stats_cycles_ms(t.kernel_cycles, wl_tsc_hz));
}

/* Parse the options and shares; 0 to run, else the exit status. */
static int parse_args(int argc, char **argv, unsigned *threads)
{
	bool seconds_ok = parse_seconds("5");
	int opt;

	while ((opt = getopt(argc, argv, "ht:d:")) != -1) {
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if ((opt == 't' && parse_uint(optarg, WL_MAX_THREADS, threads)) ||
		    (opt == 'd' && (seconds_ok = parse_seconds(optarg))))
			continue;
		return usage_error();
	}
	if (optind == argc || argc - optind > WL_MAX_SHARES || !seconds_ok)
		return usage_error();
	for (int i = optind; i < argc; i++)
		if (!parse_share(argv[i])) {
			fprintf(stderr, "workload: %s: bad NAME:WEIGHT\n", argv[i]);
			return usage_error();
		}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned threads = 1;
	int rc;

	if (sys_sysinfo_int("system.tsc_hz", &wl_tsc_hz) != EOK || !wl_tsc_hz) {
		fprintf(stderr, "workload: no system.tsc_hz\n");
		return 1;
	}
	if ((rc = parse_args(argc, argv, &threads)) != 0)
		return rc;
	if (wl_kcopy && kcopy_start(threads) != EOK) {
		fprintf(stderr, "workload: cannot start the kcopy server\n");
		return 1;
	}
	unsigned failed = run_workers(threads);
	kcopy_stop();
	report();
	report_cpu();
	if (failed || kcopy_failed()) {
		fprintf(stderr, "workload: %u worker(s) failed%s\n", failed,
			kcopy_failed() ? ", a kcopy write failed" : "");
		return 1;
	}
	return 0;
}
