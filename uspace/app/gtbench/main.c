/*
 * gtbench: deterministic work in functions of different shapes, the
 * profiler's ground truth against callgrind (test/gtcallgrind.t).
 *
 *   gtbench [-h] [-l] [ROUNDS [TURNS]]
 *   gtbench -t THREADS [ROUNDS]
 *   gtbench -p PAGES [TURNS [PASSES]]
 *
 * Runs ROUNDS (default 100) identical rounds of work.c and prints
 * "gtbench ROUNDS rounds checksum 0xHEX"; the host build of work.c prints
 * the same checksum for the same ROUNDS. -l runs ROUNDS rounds of loop.c's
 * tight loop instead (100,000 turns each, gt_big's inner loop TURNS turns,
 * default 5, at most 64) and prints "gtbench -l ...". -t runs THREADS
 * (1..16) threads, thread i pinned to CPU i % CPUs and running ROUNDS
 * rounds of job i % GT_JOBS (smp.c), all of them started together and
 * spinning in smp_wait until the last one is done, so that every CPU stays
 * busy for the whole run; prints each job's CPU time by the kernel's
 * accounting ("gtbench: thread I job J on cpu C: N us of CPU"), then
 * "gtbench -t THREADS ROUNDS rounds checksum 0xHEX", the host build's
 * line for the same jobs (test/gtsmp.t). -p, PASSES times (default 1),
 * maps PAGES fresh pages, touches each once (pages.c; TURNS turns of work
 * between pages, default 200) and unmaps them; prints "gtbench -p PAGES
 * TURNS PASSES checksum 0xHEX", the host build's line, then its thread's
 * user and kernel time by the kernel's accounting (test/gtfault.t).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "gtbench.h"

#define SMP_THREADS_MAX 16

typedef struct smp_run {
	uint32_t threads, rounds, cpus;
	uint32_t started, done;         /* threads past each barrier */
	uint32_t sums[SMP_THREADS_MAX];
	uint64_t job_ns[SMP_THREADS_MAX];   /* each job's CPU time (the kernel's accounting) */
	uint32_t job_cpu[SMP_THREADS_MAX];
} smp_run_t;

static smp_run_t smp;

static void usage(FILE *f)
{
	fprintf(f, "usage: gtbench [-h] [ROUNDS]\n"
		"       gtbench -l [ROUNDS [TURNS]]\n"
		"       gtbench -t THREADS [ROUNDS]\n"
		"       gtbench -p PAGES [TURNS [PASSES]]\n"
		"  ROUNDS (default 100) rounds of different work, or with -l of a\n"
		"  tight loop of three calls (TURNS 0..64, default 5: the inner\n"
		"  turns of one of them), or with -t in THREADS (1..16) threads\n"
		"  of different jobs, one per CPU in turn, or with -p touch PAGES\n"
		"  (1..65536) fresh pages once each, TURNS (default 200) turns of\n"
		"  work between pages, PASSES (default 1) times; prints a checksum\n");
}

/* Count this thread past a barrier, then spin until all are. */
static void smp_wait(uint32_t *count)
{
	__atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < smp.threads)
		;
}

/* This thread's CPU time so far (ns; 0 if the call fails) and its CPU. */
static uint64_t smp_cpu_ns(uint32_t *cpu)
{
	thread_stats_t st;

	if (__vernier_syscall(SYS_THREAD_STATS, 0, (long)&st, 0, 0, 0, 0) < 0)
		return 0;
	*cpu = st.cpu;
	return st.user_ns + st.kernel_ns;
}

/* Thread i: pinned to its CPU, job i between the two barriers, timed. */
static void *smp_thread(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;

	sys_set_affinity(0, 1ull << (i % smp.cpus));
	smp_wait(&smp.started);
	uint64_t t0 = smp_cpu_ns(&smp.job_cpu[i]);
	smp.sums[i] = gt_job(i, smp.rounds);
	smp.job_ns[i] = smp_cpu_ns(&smp.job_cpu[i]) - t0;
	smp_wait(&smp.done);
	return NULL;
}

/* gtbench -t: the threads' checksum (as the host's), or 1 if one failed to start. */
static int smp_main(uint32_t threads, uint32_t rounds)
{
	pthread_t t[SMP_THREADS_MAX];
	uint32_t sum = 0, made = 0;

	smp.threads = threads;
	smp.rounds = rounds;
	smp.cpus = sys_cpus_online();
	gt_init();
	while (made < threads &&
	       pthread_create(&t[made], NULL, smp_thread, (void *)(uintptr_t)made) == 0)
		made++;
	smp.threads = made;     /* the ones started do not wait for the others */
	for (uint32_t i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	if (made < threads) {
		fprintf(stderr, "gtbench: only %u of %u threads started\n", made, threads);
		return 1;
	}
	for (uint32_t i = 0; i < threads; i++) {
		sum = sum * 31u + smp.sums[i];
		printf("gtbench: thread %u job %u on cpu %u: %llu us of CPU\n", i, i % GT_JOBS,
		       smp.job_cpu[i], (unsigned long long)(smp.job_ns[i] / 1000));
	}
	printf("gtbench -t %u %u rounds checksum 0x%08x\n", threads, rounds, (unsigned)sum);
	return 0;
}

/* A number in 0..max from arg (NULL: def); -1 if it is not one. */
static long gtbench_num(const char *arg, long def, long max)
{
	char *end;
	unsigned long v;

	if (!arg)
		return def;
	v = strtoul(arg, &end, 10);
	return *end || !*arg || v > (unsigned long)max ? -1 : (long)v;
}

/* gtbench -t THREADS [ROUNDS] (args: what follows -t). */
static int smp_cmd(char **args, int n)
{
	long threads = gtbench_num(n > 0 ? args[0] : NULL, 0, SMP_THREADS_MAX);
	long rounds = gtbench_num(n > 1 ? args[1] : NULL, 100, 1000000);

	if (n < 1 || n > 2 || threads <= 0 || rounds <= 0) {
		usage(stderr);
		return 2;
	}
	return smp_main((uint32_t)threads, (uint32_t)rounds);
}

/* One pass of -p: map pages fresh pages, touch them, unmap; 0 or an error. */
static errno_t pages_pass(uint32_t pages, uint32_t turns, uint32_t *sum)
{
	void *buf;
	errno_t rc = sys_map(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, &buf);

	if (rc != EOK)
		return rc;
	*sum = *sum * 31u + gt_pages_run(buf, pages, turns);
	return sys_unmap(buf, (size_t)pages * 4096);
}

/* gtbench -p PAGES [TURNS [PASSES]] (args: what follows -p). */
static int pages_cmd(char **args, int n)
{
	long pages = gtbench_num(n > 0 ? args[0] : NULL, 0, GT_PAGES_MAX);
	long turns = gtbench_num(n > 1 ? args[1] : NULL, 200, 1000000);
	long passes = gtbench_num(n > 2 ? args[2] : NULL, 1, 1000);
	thread_stats_t st;
	uint32_t sum = 0;

	if (n < 1 || n > 3 || pages <= 0 || turns < 0 || passes <= 0) {
		usage(stderr);
		return 2;
	}
	for (long i = 0; i < passes; i++) {
		errno_t rc = pages_pass((uint32_t)pages, (uint32_t)turns, &sum);
		if (rc != EOK) {
			fprintf(stderr, "gtbench: %ld pages: %s\n", pages, strerror(rc));
			return 1;
		}
	}
	printf("gtbench -p %ld %ld %ld checksum 0x%08x\n", pages, turns, passes, (unsigned)sum);
	if (__vernier_syscall(SYS_THREAD_STATS, 0, (long)&st, 0, 0, 0, 0) == 0)
		printf("gtbench: user %llu us, kernel %llu us\n",
		       (unsigned long long)(st.user_ns / 1000),
		       (unsigned long long)(st.kernel_ns / 1000));
	return 0;
}

int main(int argc, char **argv)
{
	int loop = argc > 1 && !strcmp(argv[1], "-l");
	char **arg = argv + 1 + loop;
	int nargs = argc - 1 - loop;
	long rounds, turns;

	if (argc > 1 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-t"))
		return smp_cmd(argv + 2, argc - 2);
	if (argc > 1 && !strcmp(argv[1], "-p"))
		return pages_cmd(argv + 2, argc - 2);
	rounds = gtbench_num(nargs > 0 ? arg[0] : NULL, 100, 1000000);
	turns = gtbench_num(nargs > 1 ? arg[1] : NULL, 5, 64);
	if (nargs > 1 + loop || rounds <= 0 || turns < 0) {
		usage(stderr);
		return 2;
	}
	gt_turns = (uint32_t)turns;
	if (loop)
		printf("gtbench -l %ld rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_loop_run((uint32_t)rounds));
	else
		printf("gtbench %ld rounds checksum 0x%08x\n", rounds,
		       (unsigned)gt_run((uint32_t)rounds));
	return 0;
}
