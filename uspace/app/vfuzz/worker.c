/*
 * The vfuzz worker task: one fuzzing thread per CPU (or -t), a heartbeat
 * on the main thread, the per-syscall result table at the end. Also the
 * child mode (-c): the short-lived tasks the workers spawn and kill.
 */
#include <abi/limits.h>
#include <abi/syscall.h>
#include <ipc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>

#include "vfuzz.h"

#define FZ_BEAT_NS 1000000000ull    /* progress line period */
#define FZ_STALL_BEATS 5            /* seconds without a call: failure */

static volatile uint64_t fz_total;   /* calls started, all threads */
static volatile uint32_t fz_go;
static uint64_t fz_limit;
static fz_t *fz_threads[FZ_MAX_THREADS];
static uint64_t fz_tsc_mhz;

static uint64_t fz_seed_of(uint64_t seed, unsigned idx)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + idx * 0xbf58476d1ce4e5b9ull + 1;
	return x ? x : 1;
}

/* Print one call (for unexpected results and stalls). */
static void fz_print_call(const char *what, const fz_t *f, const fz_call_t *c,
			  unsigned tpl, long r)
{
	printf("vfuzz: %s: thread %u call %llu: %s (nr %ld) (%#llx, %#llx, %#llx, %#llx, %#llx, %#llx) = %ld (%s)\n",
	       what, f->idx, (unsigned long long)f->ncalls, fz_tpls[tpl].name, c->nr,
	       (unsigned long long)c->a[0], (unsigned long long)c->a[1],
	       (unsigned long long)c->a[2], (unsigned long long)c->a[3],
	       (unsigned long long)c->a[4], (unsigned long long)c->a[5], r,
	       fz_err_name(fz_err_class(r)));
}

/* One call; false when the result broke the ABI (reported). */
static bool fz_step(fz_t *f)
{
	fz_call_t c;
	unsigned tpl = fz_pick(f);
	long r = fz_run(f, tpl, &c);

	if (fz_check(&fz_tpls[tpl], &c, r))
		return true;
	f->unexpected++;
	fz_print_call("UNEXPECTED", f, &c, tpl, r);
	return false;
}

static long fz_thread(void *arg)
{
	fz_t *f = arg;

	while (!fz_go)
		sys_yield();
	sys_set_affinity(0, 1ull << (f->idx % 64));
	while (__atomic_fetch_add(&fz_total, 1, __ATOMIC_RELAXED) < fz_limit)
		fz_step(f);
	fz_cleanup(f);
	return 0;
}

static fz_t *fz_new(uint64_t seed, unsigned idx, bool child)
{
	fz_t *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->rng = fz_seed_of(seed, idx);
	f->idx = idx;
	f->child = child;
	f->out = malloc(FZ_OUT);
	for (unsigned i = 0; i < FZ_MINIS && !child; i++)
		f->minis[i].stack = malloc(FZ_MINI_STACK);
	return f;
}

/* Answer the naming service's forwarded connection to ourselves (its
 * NS_M_WATCH call stays unanswered, as ns expects). */
static long fz_accept_self(void *arg)
{
	ipc_event_t ev;

	for (unsigned i = 0; i < 8; i++) {
		if (sys_ipc_wait(&ev, 500000000ull, IPC_WAIT_CALLS, 0) != EOK)
			continue;
		if (ev.type == IPC_EV_CALL && ev.msg.method == IPC_M_CONNECT_ME_TO) {
			ipc_answer_0(ev.callid, EOK);
			break;
		}
	}
	return 0;
}

/*
 * A phone to our own answerbox through the naming service (so IPC data
 * transfers, answers and forwards have a user-space peer: us), else a
 * kbox phone. Phones below it are libc's and are never fuzzed.
 */
static void fz_connect_self(void)
{
	char name[IPC_NAME_MAX + 1];
	thread_id_t tid;
	int phone = -1;

	snprintf(name, sizeof(name), "vfuzz.%llu", (unsigned long long)fz_self_task);
	if (service_register(name) == EOK && thread_start(fz_accept_self, NULL, &tid) == EOK) {
		if (service_connect(name, &phone) != EOK)
			phone = -1;
		thread_join(tid, NULL);
	}
	if (phone < 0 && sys_ipc_connect_kbox(fz_self_task, &phone) != EOK)
		phone = 1;
	fz_self_phone = phone;
}

static uint64_t fz_sum_calls(unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += fz_threads[i]->ncalls;
	return s;
}

/*
 * Read every answer (and answer every call) queued for this task. The
 * fuzz threads' calls leave answers nobody reads (their ids are
 * forgotten), and at LIMIT_BOX_ANSWERS every call of the task gets ELIMIT,
 * libc's console writes too: the progress lines and the final report were
 * lost. Only this thread prints (the fuzz threads never take IPC_WAIT_ALL),
 * so no answer a printf waits for is taken here.
 */
static void fz_drain_answers(void)
{
	ipc_event_t ev;

	for (unsigned i = 0; i < 2 * LIMIT_BOX_ANSWERS; i++) {
		if (sys_ipc_wait(&ev, 0, IPC_WAIT_ALL | IPC_WAIT_NONBLOCK, 0) != EOK)
			return;
		if (ev.type == IPC_EV_CALL) {
			ipc_msg_t a = { .method = ENOTSUP };
			sys_ipc_answer(ev.callid, &a, NULL);
		}
	}
}

/* Heartbeat until the threads are done; false after a stall (reported). */
static bool fz_heartbeat(unsigned n, uint64_t calls)
{
	uint64_t last = 0, done;
	unsigned still = 0;

	while ((done = fz_sum_calls(n)) < calls) {
		sys_sleep_ns(FZ_BEAT_NS);
		done = fz_sum_calls(n);
		fz_drain_answers();
		printf("vfuzz: progress %llu/%llu calls\n", (unsigned long long)done,
		       (unsigned long long)calls);
		still = done == last ? still + 1 : 0;
		last = done;
		if (still < FZ_STALL_BEATS)
			continue;
		printf("vfuzz: STALL: no call finished for %u s\n", still);
		for (unsigned i = 0; i < n; i++) {
			fz_call_t c = *(fz_call_t *)&fz_threads[i]->cur;
			static const char *const ph[] = { "between calls", "shaping", "in the call", "after the call" };
			printf("vfuzz: thread %u: %s\n", i, ph[fz_threads[i]->phase & 3]);
			fz_print_call("in progress", fz_threads[i], &c, fz_threads[i]->cur_tpl, 0);
		}
		return false;
	}
	return true;
}

/* The per-syscall table: how many calls ended with each result. */
static void fz_report(unsigned n)
{
	char line[512];

	for (unsigned t = 0; t < fz_ntpls; t++) {
		int len = snprintf(line, sizeof(line), "vfuzz: %-16s", fz_tpls[t].name);
		uint64_t any = 0, cyc = 0;
		for (unsigned i = 0; i < n; i++)
			cyc += fz_threads[i]->cycles[t];
		for (unsigned k = 0; k < FZ_NERR; k++) {
			uint64_t sum = 0;
			for (unsigned i = 0; i < n; i++)
				sum += fz_threads[i]->counts[t][k];
			if (sum && len < (int)sizeof(line) - 40)
				len += snprintf(line + len, sizeof(line) - len, " %s %llu",
						fz_err_name(k), (unsigned long long)sum);
			any += sum;
		}
		if (any)
			printf("%s (%llu us each)\n", line,
			       (unsigned long long)(cyc / any / (fz_tsc_mhz ? fz_tsc_mhz : 1)));
	}
}

/* The worker task (-w): 0 when every result was allowed and nothing stalled. */
int fz_worker(uint64_t seed, uint64_t calls, unsigned nthreads)
{
	uint64_t bad = 0;
	bool alive;

	fz_self_task = sys_task_id();
	printf("vfuzz: worker task %llu: seed %llu, %llu calls, %u threads\n",
	       (unsigned long long)fz_self_task, (unsigned long long)seed,
	       (unsigned long long)calls, nthreads);
	if (fz_pool_init() != EOK) {
		printf("vfuzz: cannot map the buffer pool\n");
		return 1;
	}
	fz_connect_self();
	fz_limit = calls;
	fz_workers[fz_nworkers++] = sys_thread_id();
	for (unsigned i = 0; i < nthreads; i++) {
		thread_id_t tid;
		if (!(fz_threads[i] = fz_new(seed, i, false)) ||
		    thread_start(fz_thread, fz_threads[i], &tid) != EOK) {
			printf("vfuzz: cannot start thread %u\n", i);
			return 1;
		}
		fz_workers[fz_nworkers++] = tid;
	}
	__atomic_store_n(&fz_go, 1, __ATOMIC_RELEASE);
	alive = fz_heartbeat(nthreads, calls);
	if (!alive)
		return 3;
	for (unsigned i = 1; i < fz_nworkers; i++)
		thread_join(fz_workers[i], NULL);
	if (sys_sysinfo_int("system.tsc_hz", &fz_tsc_mhz) == EOK)
		fz_tsc_mhz /= 1000000;
	fz_drain_answers();
	fz_report(nthreads);
	for (unsigned i = 0; i < nthreads; i++)
		bad += fz_threads[i]->unexpected;
	printf("vfuzz: worker done: %llu calls, %llu unexpected results\n",
	       (unsigned long long)fz_sum_calls(nthreads), (unsigned long long)bad);
	return bad ? 1 : 0;
}

/* A child task (-c SEED): a few hundred calls, then SYS_EXIT by template. */
int fz_child(uint64_t seed)
{
	fz_t *f = fz_new(seed, 0, true);

	if (!f || fz_pool_init() != EOK)
		return 1;
	fz_self_task = sys_task_id();
	fz_self_phone = 1;
	for (uint64_t n = fz_below(f, 64); n; n--)
		if (!fz_step(f))
			return 99;
	return (int)fz_below(f, 256);
}
