/*
 * bench prof: what sampling costs. Figures (one line each, printed by
 * bench_prof(); the loop is a fixed user-mode spin on every CPU):
 *
 *   prof.loop.none            cycles per loop chunk, no profiling
 *   prof.overhead.SRC.HZ      % more cycles per chunk with a whole-system
 *                             session of source SRC at HZ per CPU (timer at
 *                             1000, 10000 and 100000 Hz; rtc-nmi at 8192),
 *                             the stream drained by a reader thread,
 *                             against chunks measured just before it
 *   prof.sample.SRC.HZ        cycles one sample costs the interrupted code:
 *                             the extra cycles per chunk over the samples
 *                             the chunk's CPU took meanwhile
 *   prof.throttled.SRC.HZ     samples the throttle skipped in that run
 *   prof.handler.SRC.HZ       cycles prof_hit spends per sample, measured
 *                             by the kernel (without the NMI or interrupt
 *                             entry and exit around it)
 *   prof.handler.serving.timer.1000  the same with the spin inside an IPC
 *                             call a thread of bench serves (each sample
 *                             carries the call's origin); on 1 CPU every
 *                             sample is of that thread (bench.sh --cpus 1)
 *   prof.lost.timer.10000     samples lost in BENCH_PROF_LOSS_S seconds at
 *                             10 kHz with a spinner on every CPU, and
 *   prof.samples.timer.10000  how many were delivered
 *   prof.symbolize            kernel symbol lookups per second (the
 *                             report's table from /boot/kernel, random
 *                             addresses over its range)
 *
 * `bench prof.throttle` prints only the timer's overhead and throttled
 * figures at 1000, 10000 and 100000 Hz, each the median of
 * PROF_THROTTLE_ROUNDS sessions measured against chunks just before each
 * (with the lowest and highest: the throttle's test on a shared host).
 * `bench prof.path` prints only the overhead, sample, throttled and
 * handler figures of timer at 10000 Hz and rtcnmi at 8192 Hz (the sample
 * path's cost, quick; tools/samplecost.sh counts its NMIs' instructions);
 * `bench prof.path.chain` the same with call chains (PROF_F_CALLCHAIN,
 * the default depth), named timer.chain and rtcnmi.chain.
 *
 * Chunks are measured after the session is up and has run PROF_SETTLE_MS
 * (the throttle judges each CPU over windows of 1/10 s, so the figure is
 * the steady state), median of PROF_CHUNKS.
 * With QEMU's -icount, cycles are instructions times a constant
 * (tools/bench.sh --icount converts).
 */
#include <abi/profile.h>
#include <lib/profsym.h>
#include <abi/sysinfo.h>
#include <ipc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <tsc.h>
#include <unistd.h>
#include <vernier.h>

#include <profenv.h>

#include "bench.h"

#define PROF_CHUNKS 15
#define PROF_CHUNK_ITERS 2000000ul
#define PROF_READ_BUF (512 * 1024)
#define BENCH_PROF_LOSS_S 60
#define PROF_SETTLE_MS 300
#define PROF_THROTTLE_ROUNDS 5

static volatile bool reader_stop;
static volatile bool spin_stop;
static uint64_t prof_tsc_hz;             /* set by bench_prof() */

static __attribute__((noinline)) void prof_spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Median cycles of a chunk on this CPU. */
static uint64_t prof_chunk(void)
{
	uint64_t v[PROF_CHUNKS];

	for (int i = 0; i < PROF_CHUNKS; i++) {
		uint64_t t0 = tsc_read_fast();
		prof_spin(PROF_CHUNK_ITERS);
		v[i] = tsc_read_fast() - t0;
	}
	qsort(v, PROF_CHUNKS, sizeof(v[0]), cmp_u64);
	return v[PROF_CHUNKS / 2];
}

/* Drain the session on phone until it ends (arg: the phone). */
static long prof_reader(void *arg)
{
	int phone = (int)(long)arg;
	uint8_t *buf = malloc(PROF_READ_BUF);
	ipc_msg_t a;

	while (buf && ipc_call_sync(phone, KBOX_PROF_DATA_READ, (uint64_t)buf, PROF_READ_BUF,
				    0, 0, 0, &a) == EOK)
		if (a.args[0] == 0 && a.args[1] == PROF_STATE_ENDED)
			break;
	free(buf);
	return 0;
}

typedef struct prof_run {
	int phone;
	thread_id_t reader;
	prof_status_t st;
} prof_run_t;

/* A whole-system session of src at hz (flags: PROF_F_*, default depth), read by a thread. */
static errno_t prof_begin(prof_run_t *r, unsigned src, unsigned hz, unsigned flags)
{
	ipc_msg_t a;
	errno_t rc = sys_ipc_connect_kbox(sys_task_id(), &r->phone);

	if (rc == EOK)
		rc = ipc_call_sync(r->phone, KBOX_PROF_SYSTEM_BEGIN, src, hz, flags, 0, 0, &a);
	if (rc == EOK)
		rc = thread_start(prof_reader, (void *)(long)r->phone, &r->reader);
	return rc;
}

static void bench_prof_end(prof_run_t *r)
{
	ipc_call_sync(r->phone, KBOX_PROF_STATUS, (uint64_t)&r->st, sizeof(r->st), 0, 0, 0, NULL);
	ipc_call_sync(r->phone, KBOX_PROF_END, 0, 0, 0, 0, 0, NULL);
	thread_join(r->reader, NULL);
	sys_ipc_hangup(r->phone);
}

static prof_run_t offcpu_run, traced_run;

int bench_offcpu_begin(void)
{
	if (prof_begin(&offcpu_run, PROF_SRC_TIMER, 100, PROF_F_OFFCPU) != EOK) {
		printf("# ctxsw.thread.offcpu: cannot begin a session (no PERM_PROFILE?)\n");
		return 1;
	}
	return 0;
}

void bench_offcpu_end(void)
{
	bench_prof_end(&offcpu_run);
	if (offcpu_run.st.offcpu_lost)
		printf("# ctxsw.thread.offcpu: %lu off-CPU records lost\n",
		       offcpu_run.st.offcpu_lost);
}

int bench_traced_begin(const char *figure)
{
	if (prof_begin(&traced_run, PROF_SRC_TIMER, 100, PROF_F_TRACE_SCHED | PROF_F_TRACE_IPC) !=
	    EOK) {
		printf("# %s: cannot begin a session (no PERM_PROFILE?)\n", figure);
		return 1;
	}
	return 0;
}

void bench_traced_end(const char *figure)
{
	bench_prof_end(&traced_run);
	if (traced_run.st.trace_lost)
		printf("# %s: %lu trace records lost\n", figure, traced_run.st.trace_lost);
}

static uint64_t prof_samples_now(void)
{
	sysinfo_profiler_t p;
	size_t got;

	return sys_sysinfo_data("system.profiler", &p, sizeof(p), &got) == EOK ? p.samples : 0;
}

/* Spin PROF_SETTLE_MS so that the throttle has judged a few windows. */
static void prof_settle(void)
{
	uint64_t end = tsc_read_fast() + prof_tsc_hz / 1000 * PROF_SETTLE_MS;

	while (tsc_read_fast() < end)
		prof_spin(10000);
}

/*
 * One overhead figure: source src at hz against the cycles per chunk
 * measured just before the session (a shared host's load drifts).
 */
static void prof_overhead(const char *name, unsigned src, unsigned hz, unsigned flags,
			  unsigned ncpus)
{
	prof_run_t r;
	uint64_t base = prof_chunk();

	if (prof_begin(&r, src, hz, flags) != EOK) {
		printf("# prof.overhead.%s.%u: cannot begin a session (source absent?)\n", name, hz);
		return;
	}
	prof_settle();
	uint64_t s0 = prof_samples_now(), t0 = tsc_read_fast();
	uint64_t with = prof_chunk();
	uint64_t t1 = tsc_read_fast(), s1 = prof_samples_now();
	bench_prof_end(&r);
	/* Samples this CPU took during one chunk: all CPUs' share of the time. */
	double per_chunk = (double)(s1 - s0) / ncpus * (double)with / (double)(t1 - t0);
	double pct = 100.0 * ((double)with - (double)base) / (double)base;
	printf("prof.overhead.%s.%u %.2f %%\n", name, hz, pct);
	if (per_chunk > 0.5 && with > base)
		printf("prof.sample.%s.%u %.0f cycles\n", name, hz,
		       (double)(with - base) / per_chunk);
	printf("prof.throttled.%s.%u %lu samples\n", name, hz, r.st.throttled);
	if (r.st.taken)
		printf("prof.handler.%s.%u %lu cycles\n", name, hz,
		       r.st.sample_cycles / r.st.taken);
}

static long prof_spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		prof_spin(100000);
	return 0;
}

/* Loss at 10 kHz with every CPU busy. */
static void prof_loss(unsigned ncpus)
{
	thread_id_t tids[64];
	prof_run_t r;
	unsigned n = ncpus < 64 ? ncpus : 64;

	if (prof_begin(&r, PROF_SRC_TIMER, 10000, 0) != EOK) {
		printf("# prof.lost: cannot begin a session\n");
		return;
	}
	spin_stop = false;
	for (unsigned i = 0; i < n; i++)
		thread_start(prof_spinner, NULL, &tids[i]);
	sys_sleep_ns(BENCH_PROF_LOSS_S * 1000000000ull);
	spin_stop = true;
	for (unsigned i = 0; i < n; i++)
		thread_join(tids[i], NULL);
	bench_prof_end(&r);
	sysinfo_profiler_t p;
	size_t got;
	if (sys_sysinfo_data("system.profiler", &p, sizeof(p), &got) == EOK)
		printf("prof.lost.rings %lu samples\n", p.lost);
	printf("prof.lost.timer.10000 %lu samples\n", r.st.lost);
	printf("prof.samples.timer.10000 %lu samples\n", r.st.samples);
}

/* Symbol lookups per second in the kernel's table, as the report does them. */
static void prof_symbolize(uint64_t tsc_hz)
{
	profsym_mem_t mem = { NULL, prof_env_malloc, prof_env_free };
	profsym_t ps;
	void *image = NULL;
	size_t size = 0;
	errno_t rc = file_read_all("/boot/kernel", SIZE_MAX, &image, &size);
	uint64_t seed = 0x9e3779b97f4a7c15ull, n = 200000, hits = 0;

	if (rc != EOK || profsym_from_elf(&ps, image, size) != EOK) {
		printf("# prof.symbolize: no symbols in /boot/kernel\n");
		free(image);
		return;
	}
	const elfsym_table_t *t = &ps.table;
	uint64_t lo = t->syms[0].st_value, span = t->syms[t->count - 1].st_value - lo + 1;
	uint64_t t0 = tsc_read_fast();
	for (uint64_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		hits += elfsym_lookup(t, lo + seed % span, NULL) != NULL;
	}
	uint64_t cycles = tsc_read_fast() - t0;
	printf("prof.symbolize %lu lookups/s\n", cycles ? n * tsc_hz / cycles : 0);
	printf("# prof.symbolize: %zu symbols, %lu of %lu found one\n", t->count, hits, n);
	profsym_release(&ps, &mem);
	free(image);
}

/* prof.handler.serving: the handler's cycles for samples of a serving thread. */
static void prof_serving(void)
{
	prof_run_t r;

	if (ipc_rt_thread_setup() != 0) {
		printf("# prof.handler.serving: no server thread\n");
		return;
	}
	if (prof_begin(&r, PROF_SRC_TIMER, 1000, 0) != EOK) {
		printf("# prof.handler.serving: cannot begin a session\n");
		ipc_teardown();
		return;
	}
	for (int i = 0; i < PROF_CHUNKS; i++)
		ipc_serve_spin(PROF_CHUNK_ITERS);
	bench_prof_end(&r);
	ipc_teardown();
	if (r.st.taken)
		printf("prof.handler.serving.timer.1000 %lu cycles\n",
		       r.st.sample_cycles / r.st.taken);
}

int bench_prof(void)
{
	system_stats_t ss;

	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&ss, 0, 0, 0, 0, 0) < 0)
		return -1;
	unsigned ncpus = ss.cpus_online;
	prof_tsc_hz = ss.tsc_hz;
	printf("prof.loop.none %lu cycles\n", prof_chunk());
	prof_overhead("timer", PROF_SRC_TIMER, 1000, 0, ncpus);
	prof_serving();
	prof_overhead("timer", PROF_SRC_TIMER, 10000, 0, ncpus);
	prof_overhead("timer", PROF_SRC_TIMER, 100000, 0, ncpus);
	prof_overhead("rtcnmi", PROF_SRC_RTC_NMI, 8192, 0, ncpus);
	prof_overhead("pmc", PROF_SRC_PMC, 10000, 0, ncpus);
	prof_loss(ncpus);
	prof_symbolize(ss.tsc_hz);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The timer's overhead at hz, PROF_THROTTLE_ROUNDS times, each against
 * chunks measured just before its session: the median, lowest and highest
 * (a shared host's load drifts from one round to the next), and the
 * samples throttled over all rounds.
 */
static void prof_throttle_rounds(unsigned hz)
{
	double pct[PROF_THROTTLE_ROUNDS];
	uint64_t throttled = 0;

	for (int i = 0; i < PROF_THROTTLE_ROUNDS; i++) {
		prof_run_t r;
		uint64_t base = prof_chunk();
		if (prof_begin(&r, PROF_SRC_TIMER, hz, 0) != EOK) {
			printf("# prof.overhead.timer.%u: cannot begin a session\n", hz);
			return;
		}
		prof_settle();
		uint64_t with = prof_chunk();
		bench_prof_end(&r);
		pct[i] = 100.0 * ((double)with - (double)base) / (double)base;
		throttled += r.st.throttled;
	}
	qsort(pct, PROF_THROTTLE_ROUNDS, sizeof(pct[0]), cmp_double);
	printf("prof.overhead.timer.%u %.2f %%\n", hz, pct[PROF_THROTTLE_ROUNDS / 2]);
	printf("prof.overhead.timer.%u.lowest %.2f %%\n", hz, pct[0]);
	printf("prof.overhead.timer.%u.highest %.2f %%\n", hz, pct[PROF_THROTTLE_ROUNDS - 1]);
	printf("prof.throttled.timer.%u %lu samples\n", hz, throttled);
}

int bench_prof_throttle(void)
{
	system_stats_t ss;

	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&ss, 0, 0, 0, 0, 0) < 0)
		return -1;
	prof_tsc_hz = ss.tsc_hz;
	printf("prof.loop.none %lu cycles\n", prof_chunk());
	prof_throttle_rounds(1000);
	prof_throttle_rounds(10000);
	prof_throttle_rounds(100000);
	return 0;
}

/* prof.path's figures, with call chains or not. */
static int prof_path(bool chain)
{
	system_stats_t ss;
	unsigned flags = chain ? PROF_F_CALLCHAIN : 0;

	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&ss, 0, 0, 0, 0, 0) < 0)
		return -1;
	prof_tsc_hz = ss.tsc_hz;
	prof_overhead(chain ? "timer.chain" : "timer", PROF_SRC_TIMER, 10000, flags,
		      ss.cpus_online);
	prof_overhead(chain ? "rtcnmi.chain" : "rtcnmi", PROF_SRC_RTC_NMI, 8192, flags,
		      ss.cpus_online);
	return 0;
}

int bench_prof_path(void)
{
	return prof_path(false);
}

int bench_prof_path_chain(void)
{
	return prof_path(true);
}
