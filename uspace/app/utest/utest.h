/*
 * utest: shared declarations. TAP helpers and small system-call helpers
 * live in utest.c; every other file holds one group of tests, each test a
 * function that reports one or more TAP results.
 */
#ifndef UTEST_H
#define UTEST_H

#include <tap.h>
#include <stdint.h>
#include <vernier.h>

#define NS_PER_MS 1000000ull
#define NS_PER_SEC 1000000000ull
#define KERNEL_ADDR 0xffffffff80000000ul

/* ------------------------------------------------------------ TAP */

/* ------------------------------------------------------------ helpers */
/* The raw system call with up to three arguments (result or -errno). */
long raw3(long n, long a1, long a2, long a3);
long get_thread_stats(thread_id_t id, thread_stats_t *st);
long get_system_stats(system_stats_t *st);
/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);
/* Busy-wait until CLOCK_MONOTONIC reaches deadline; returns iterations. */
uint64_t spin_until(uint64_t deadline);
/* CPU time (user + kernel) of a thread stats record. */
uint64_t stats_cpu_ns(const thread_stats_t *st);
/* Online CPUs (1 if the stats call fails). */
unsigned cpus_online(void);
/*
 * Spawn /bin/argv[0] with argv and perms, wait for it; its status goes to
 * *status. Returns the spawn or wait error.
 */
errno_t run_wait(const char *const *argv, uint32_t perms, int *status);
/* Spawn /bin/hello and check it exits 0 (one TAP result). */
void check_hello(const char *why);
/* A describe-the-status string for diagnostics (static buffer). */
const char *status_str(int status);

/* ------------------------------------------------------------ tests */
void test_thread_join(void);
void test_thread_shared(void);
void test_tester_threads(void);
void test_pin_hop(void);
void test_fair_share(void);
void test_parallel(void);
void test_sleep(void);
void test_clock(void);
void test_cputime(void);
void test_efault(void);
void test_enosys(void);
void test_faults(void);
void test_spawn_reap(void);
void test_spawn_poll(void);
void test_kill(void);
void test_orphans(void);
void test_perms(void);
void test_fpu(void);
void test_regs(void);
void test_map(void);
void test_sysinfo(void);
void test_loadavg(void);
void test_prof(void);
void test_profil(void);
void test_cprof(void);
void test_libc_files(void);
void test_libc_system(void);
void test_pthreads(void);
void test_libc_numbers(void);
void test_calc(void);
void test_limits(void);
void test_bincache(void);
void test_klog(void);
void test_harden(void);

#endif
