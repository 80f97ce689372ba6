/*
 * utest fpu: FPU/SSE state survives context switches. Several threads
 * pinned to one CPU each set their own rounding modes (MXCSR and the x87
 * control word), run a double and long double computation whose result
 * depends on them while yielding and being preempted, and compare it bit
 * for bit with the same computation done beforehand by the main thread.
 * Each also loads all 16 XMM registers with its own pattern, yields many
 * times in a row and checks them. New threads must start with the default
 * MXCSR (0x1f80) and x87 control word (0x037f).
 */
#include <string.h>
#include <thread.h>

#include "utest.h"

#define FPU_THREADS 4
#define FPU_ITERS 100000
#define FPU_YIELD_EVERY 2000
#define XMM_ROUNDS 200
#define MXCSR_DEFAULT 0x1f80u
#define FCW_DEFAULT 0x037fu

typedef struct fpu_result {
	double d;
	long double ld;
} fpu_result_t;

typedef struct fpu_job {
	unsigned seed;
	unsigned mode;              /* rounding mode 0..3 */
	uint64_t cpu_mask;
	fpu_result_t want, got;
	uint32_t mxcsr0, fcw0;      /* as the thread started */
	uint32_t mxcsr1, fcw1;      /* at its end */
	int xmm_bad;
} fpu_job_t;

static inline void raw_yield(void)
{
	long r = SYS_YIELD;

	__asm__ volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
}

static uint32_t get_mxcsr(void)
{
	uint32_t v;

	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static void set_mxcsr(uint32_t v)
{
	__asm__ volatile("ldmxcsr %0" : : "m"(v));
}

static uint32_t get_fcw(void)
{
	uint16_t v;

	__asm__ volatile("fnstcw %0" : "=m"(v));
	return v;
}

static void set_fcw(uint32_t v)
{
	uint16_t w = (uint16_t)v;

	__asm__ volatile("fldcw %0" : : "m"(w));
}

/* Rounding mode m in both units (MXCSR bits 13-14, FCW bits 10-11). */
static void set_rounding(unsigned m)
{
	set_mxcsr((MXCSR_DEFAULT & ~(3u << 13)) | (m << 13));
	set_fcw((FCW_DEFAULT & ~(3u << 10)) | (m << 10));
}

/* A computation whose bits depend on the rounding modes. */
__attribute__((noinline)) static void fpu_work(unsigned seed, int yield,
					       fpu_result_t *out)
{
	double x = 1.0 + seed * 0.001, a = 1.0000001 + seed * 1e-9, b = 0.3 * seed;
	long double y = x;

	for (long i = 0; i < FPU_ITERS; i++) {
		x = x * a + b;
		if (x > 1e6)
			x = x / 3.0 - 7.0;
		y = y * 0.999L + (long double)x / 7.0L;
		if (yield && i % FPU_YIELD_EVERY == 0)
			raw_yield();
	}
	out->d = x;
	out->ld = y;
}

#define XMM_LOAD(n) "movdqu " #n "*16(%[in]), %%xmm" #n "\n\t"
#define XMM_STORE(n) "movdqu %%xmm" #n ", " #n "*16(%[out])\n\t"

/* Load xmm0-15 with a pattern, yield XMM_ROUNDS times, check them. */
static int xmm_survive(unsigned seed)
{
	uint64_t in[32], out[32];
	long rounds = XMM_ROUNDS;

	for (int i = 0; i < 32; i++)
		in[i] = 0x9e3779b97f4a7c15ull * (seed * 32 + i + 1);
	__asm__ volatile(
		XMM_LOAD(0) XMM_LOAD(1) XMM_LOAD(2) XMM_LOAD(3)
		XMM_LOAD(4) XMM_LOAD(5) XMM_LOAD(6) XMM_LOAD(7)
		XMM_LOAD(8) XMM_LOAD(9) XMM_LOAD(10) XMM_LOAD(11)
		XMM_LOAD(12) XMM_LOAD(13) XMM_LOAD(14) XMM_LOAD(15)
		"1:\n\t"
		"mov %[nr], %%eax\n\t"
		"syscall\n\t"
		"dec %[rounds]\n\t"
		"jnz 1b\n\t"
		XMM_STORE(0) XMM_STORE(1) XMM_STORE(2) XMM_STORE(3)
		XMM_STORE(4) XMM_STORE(5) XMM_STORE(6) XMM_STORE(7)
		XMM_STORE(8) XMM_STORE(9) XMM_STORE(10) XMM_STORE(11)
		XMM_STORE(12) XMM_STORE(13) XMM_STORE(14) XMM_STORE(15)
		: [rounds] "+r"(rounds)
		: [in] "r"(in), [out] "r"(out), [nr] "i"(SYS_YIELD)
		: "rax", "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3",
		  "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
		  "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	return memcmp(in, out, sizeof(in)) != 0;
}

static long fpu_thread(void *arg)
{
	fpu_job_t *j = arg;

	j->mxcsr0 = get_mxcsr();
	j->fcw0 = get_fcw();
	sys_set_affinity(0, j->cpu_mask);
	set_rounding(j->mode);
	fpu_work(j->seed, 1, &j->got);
	j->xmm_bad = xmm_survive(j->seed);
	j->mxcsr1 = get_mxcsr();
	j->fcw1 = get_fcw();
	return 0;
}

/* The main thread's reference results, in the same rounding modes. */
static void fpu_references(fpu_job_t *jobs)
{
	uint32_t mxcsr = get_mxcsr(), fcw = get_fcw();

	for (int i = 0; i < FPU_THREADS; i++) {
		set_rounding(jobs[i].mode);
		fpu_work(jobs[i].seed, 0, &jobs[i].want);
	}
	set_mxcsr(mxcsr);
	set_fcw(fcw);
}

static int fpu_check(const fpu_job_t *jobs, int *fresh_ok)
{
	int bad = 0;

	*fresh_ok = 1;
	for (int i = 0; i < FPU_THREADS; i++) {
		const fpu_job_t *j = &jobs[i];
		uint32_t mx = (MXCSR_DEFAULT & ~(3u << 13)) | (j->mode << 13);
		uint32_t cw = (FCW_DEFAULT & ~(3u << 10)) | (j->mode << 10);
		/* Exception flags (MXCSR bits 0-5) may be set by the work. */
		int ok = j->got.d == j->want.d &&
			 !memcmp(&j->got.ld, &j->want.ld, 10) && !j->xmm_bad &&
			 (j->mxcsr1 & ~0x3fu) == mx && j->fcw1 == cw;
		if (!ok)
			tap_diag("fpu thread %d (mode %u): double %a want %a, "
				 "xmm %s, mxcsr %#x want %#x, fcw %#x want %#x", i,
				 j->mode, j->got.d, j->want.d,
				 j->xmm_bad ? "corrupted" : "ok", j->mxcsr1 & ~0x3fu,
				 mx, j->fcw1, cw);
		bad += !ok;
		if (j->mxcsr0 != MXCSR_DEFAULT || j->fcw0 != FCW_DEFAULT) {
			tap_diag("fpu thread %d started with mxcsr %#x fcw %#x", i,
				 j->mxcsr0, j->fcw0);
			*fresh_ok = 0;
		}
	}
	return bad;
}

void test_fpu(void)
{
	static fpu_job_t jobs[FPU_THREADS];
	thread_id_t tids[FPU_THREADS];
	uint64_t mask = 1ull << (cpus_online() - 1);
	int started = 0, fresh_ok;

	for (int i = 0; i < FPU_THREADS; i++)
		jobs[i] = (fpu_job_t){ .seed = (unsigned)i + 1, .mode = (unsigned)i % 4,
				       .cpu_mask = mask };
	fpu_references(jobs);
	/* Dirty the main thread's state: new threads must not inherit it. */
	uint32_t mxcsr = get_mxcsr(), fcw = get_fcw();
	set_rounding(3);
	for (; started < FPU_THREADS; started++)
		if (thread_start(fpu_thread, &jobs[started], &tids[started]) != EOK)
			break;
	for (int i = 0; i < started; i++)
		thread_join(tids[i], NULL);
	set_mxcsr(mxcsr);
	set_fcw(fcw);
	if (!tap_ok(started == FPU_THREADS, "fpu: started %d threads", FPU_THREADS))
		return;
	int bad = fpu_check(jobs, &fresh_ok);
	tap_ok(bad == 0, "fpu: %d threads on one CPU keep their SSE/x87 results, "
	       "rounding modes and XMM registers across switches", FPU_THREADS);
	tap_ok(fresh_ok, "fpu: new threads start with MXCSR %#x and FCW %#x",
	       MXCSR_DEFAULT, FCW_DEFAULT);
}
