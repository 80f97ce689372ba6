/*
 * utest prof: the profiler's kbox interface (abi/profile.h) driven by raw
 * IPC calls, independent of the profiling tools: argument checks, a
 * whole-system session whose stream is parsed record by record (header,
 * task and program records for ourselves, samples of our spinning thread
 * in user mode, an END record last), one system session at a time,
 * sysinfo system.profiler going back to idle with no memory held after
 * the phone is hung up, a task session on a child spawned stopped
 * that ends by itself when the child exits, and off-CPU records
 * (PROF_F_OFFCPU) of a sleeping thread.
 */
#include <abi/profile.h>
#include <abi/sysinfo.h>
#include <ipc.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#include "utest.h"

#define PROF_BUF (64 * 1024)

typedef struct stream_stats {
	bool header_ok, task_ok, load_ok, end_last, exit_seen, foreign;
	uint32_t end_reason;
	uint64_t samples, mine_user, records, bad;
	uint64_t cpu_mask;                /* CPUs that contributed samples */
	uint64_t throttle_recs, end_throttled;
	uint64_t tsc_hz;                  /* the header's */
	uint64_t offcpu, off_foreign;     /* off-CPU records; of other tasks */
	uint64_t sleep_cycles, sleep_chained;  /* WAIT_WHY_SLEEP: cycles; with kernel and user frames */
	uint64_t off_ipc;                 /* WAIT_WHY_IPC records */
} stream_stats_t;

static uint64_t prof_source(void)
{
	sysinfo_profiler_t p;
	size_t got;

	if (sys_sysinfo_data("system.profiler", &p, sizeof(p), &got) != EOK)
		return PROF_SRC_DEFAULT;
	return (p.available & (1u << PROF_SRC_RTC_NMI)) ? PROF_SRC_RTC_NMI : PROF_SRC_TIMER;
}

static void parse_offcpu(const prof_rec_offcpu_t *r, task_id_t me, stream_stats_t *st)
{
	st->offcpu++;
	st->off_foreign += r->task != me;
	st->off_ipc += r->why == WAIT_WHY_IPC;
	if (r->why != WAIT_WHY_SLEEP)
		return;
	st->sleep_cycles += r->cycles;
	st->sleep_chained += r->nkernel > 0 && r->nchain > r->nkernel;
}

static void parse_rec(const prof_rec_t *h, task_id_t me, stream_stats_t *st)
{
	const prof_rec_sample_t *s = (const void *)h;

	st->end_last = false;
	switch (h->type) {
	case PROF_REC_HEADER:
		st->header_ok = st->records == 0 &&
				((const prof_rec_header_t *)h)->magic == PROF_MAGIC &&
				((const prof_rec_header_t *)h)->version == PROF_VERSION;
		st->tsc_hz = ((const prof_rec_header_t *)h)->tsc_hz;
		break;
	case PROF_REC_TASK:
		st->task_ok |= ((const prof_rec_task_t *)h)->task == me;
		break;
	case PROF_REC_LOAD:
		st->load_ok |= ((const prof_rec_load_t *)h)->task == me;
		break;
	case PROF_REC_SAMPLE:
		st->samples++;
		st->mine_user += s->task == me && s->mode == PROF_MODE_USER;
		st->foreign |= s->task != me;
		st->cpu_mask |= h->cpu < 64 ? 1ull << h->cpu : 0;
		break;
	case PROF_REC_THROTTLE:
		st->throttle_recs++;
		break;
	case PROF_REC_OFFCPU:
		parse_offcpu((const prof_rec_offcpu_t *)h, me, st);
		break;
	case PROF_REC_EXIT:
		st->exit_seen |= ((const prof_rec_exit_t *)h)->task == me;
		break;
	case PROF_REC_END:
		st->end_last = true;
		st->end_reason = ((const prof_rec_end_t *)h)->reason;
		st->end_throttled = ((const prof_rec_end_t *)h)->throttled;
		break;
	}
	st->records++;
}

/* Parse n bytes of whole records. */
static void parse(const uint8_t *buf, size_t n, task_id_t me, stream_stats_t *st)
{
	for (size_t at = 0; at < n;) {
		const prof_rec_t *h = (const void *)(buf + at);
		if (h->size < sizeof(*h) || h->size % 8 || at + h->size > n) {
			st->bad++;
			return;
		}
		parse_rec(h, me, st);
		at += h->size;
	}
}

static uint8_t read_buf[PROF_BUF];

/* `tester CMD` run with no permissions must exit 0: one test, what (its status). */
static void tester_unprivileged(const char *cmd, const char *what)
{
	const char *const argv[] = { "tester", cmd, NULL };
	int status = -1;
	errno_t rc = run_wait(argv, 0, &status);

	tap_ok(rc == EOK && status == 0, "%s (%s)", what, status_str(status));
}

/*
 * Without the profile permission a task profiling itself sees user data
 * only (`tester prof-self`): rates above the cap are ELIMIT, the header
 * has no kernel text, kernel samples have no address or kernel chain.
 */
static void test_prof_unprivileged(void)
{
	tester_unprivileged("prof-self", "prof: an unprivileged self-profile sees no kernel address");
}

/*
 * The register-only call is no way around a server's permission checks:
 * without rights (`tester ipc-short`) a system session begun with
 * SYS_IPC_CALL_SHORT through our own kbox is EPERM, a foreign phone
 * number ENOENT.
 */
static void test_prof_short_unprivileged(void)
{
	tester_unprivileged("ipc-short", "prof: an unprivileged short call begins no system session");
}

/* DATA_READ until the session ends (or deadline_ns passes, then END it). */
static errno_t read_all(int phone, task_id_t me, uint64_t end_at, stream_stats_t *st)
{
	uint8_t *buf = read_buf;
	bool ended = false;
	errno_t rc = EOK;

	while (rc == EOK) {
		ipc_msg_t a;
		if (!ended && now_ns() >= end_at) {
			rc = ipc_call_sync(phone, KBOX_PROF_END, 0, 0, 0, 0, 0, NULL);
			ended = true;
		}
		if (rc == EOK)
			rc = ipc_call_sync(phone, KBOX_PROF_DATA_READ, (uint64_t)buf, PROF_BUF,
					   0, 0, 0, &a);
		if (rc != EOK)
			break;
		parse(buf, a.args[0], me, st);
		if (a.args[0] == 0 && a.args[1] == PROF_STATE_ENDED)
			break;
	}
	return rc;
}

static long spin_thread(void *arg)
{
	spin_until(*(uint64_t *)arg);
	return 0;
}

static void test_prof_args(int phone)
{
	ipc_msg_t a;
	errno_t r1 = ipc_call_sync(phone, KBOX_PROF_STATUS, 0, 0, 0, 0, 0, &a);
	errno_t r2 = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, 99, 0, 0, 0, 0, &a);
	errno_t r3 = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, 0, PROF_HZ_MAX + 1, 0, 0, 0, &a);
	errno_t r4 = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, 0, 100, PROF_F_RECORDER << 1, 0,
				   0, &a);   /* the first bit past the flags */
	errno_t r5 = ipc_call_sync(phone, KBOX_PROF_DATA_READ, 0x1000, 4096, 0, 0, 0, &a);

	tap_ok(r1 == ENOENT && r2 == EINVAL && r3 == EINVAL && r4 == EINVAL && r5 == ENOENT,
	       "prof: no session → ENOENT (%d, read %d); bad source %d, rate %d, flags %d "
	       "→ EINVAL", r1, r5, r2, r3, r4);
}

static void test_prof_system(int phone, int phone2, task_id_t me)
{
	uint64_t until = now_ns() + NS_PER_SEC;
	stream_stats_t st = { 0 };
	ipc_msg_t a;
	thread_id_t tid;
	prof_status_t ps;

	errno_t rc = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, prof_source(), 1000, 0, 0, 0, &a);
	tap_ok(rc == EOK, "prof: a system session begins (%d), source %lu at %lu Hz",
	       rc, a.args[0], a.args[1]);
	errno_t busy = ipc_call_sync(phone2, KBOX_PROF_SYSTEM_BEGIN, 0, 0, 0, 0, 0, NULL);
	errno_t small = ipc_call_sync(phone, KBOX_PROF_DATA_READ, (uint64_t)&ps, 64, 0, 0, 0, NULL);
	tap_ok(busy == EBUSY && small == EINVAL, "prof: a second system session → EBUSY (%d); "
	       "a read under %d bytes → EINVAL (%d)", busy, PROF_READ_MIN, small);
	if (rc != EOK)
		return;
	thread_start(spin_thread, &until, &tid);
	rc = read_all(phone, me, until + 100 * NS_PER_MS, &st);
	thread_join(tid, NULL);
	tap_ok(rc == EOK && st.header_ok && st.task_ok && st.load_ok && !st.bad,
	       "prof: the stream starts with its header and names us (rc %d, header %d, "
	       "task %d, load %d, bad %lu)", rc, st.header_ok, st.task_ok, st.load_ok, st.bad);
	tap_ok(st.mine_user > 0 && st.samples >= st.mine_user && st.end_last &&
	       st.end_reason == PROF_END_REQUEST,
	       "prof: samples of our spinning thread in user mode (%lu of %lu), END last "
	       "(%d, reason %u)", st.mine_user, st.samples, st.end_last, st.end_reason);
	unsigned ncpu = cpus_online();
	uint64_t all = ncpu >= 64 ? ~0ull : (1ull << ncpu) - 1;
	tap_ok(st.cpu_mask == all, "prof: every one of %u CPUs contributed samples (mask %#lx)",
	       ncpu, st.cpu_mask);
	rc = ipc_call_sync(phone, KBOX_PROF_STATUS, (uint64_t)&ps, sizeof(ps), 0, 0, 0, NULL);
	tap_ok(st.offcpu == 0, "prof: no off-CPU records without PROF_F_OFFCPU (%lu)", st.offcpu);
	tap_ok(rc == EOK && ps.state == PROF_STATE_ENDED && ps.samples == st.samples,
	       "prof: STATUS after the end: state %u, samples %lu (stream %lu)",
	       ps.state, ps.samples, st.samples);
}

static uint64_t free_bytes(void)
{
	sysinfo_physmem_t m;
	size_t got;

	return sys_sysinfo_data("system.physmem", &m, sizeof(m), &got) == EOK ? m.free : 0;
}

/*
 * system.profiler once the drain thread has had time to clean up, and
 * (compare) free memory back where it was before the session, free_before
 * (within 64 KiB for the heap's own bookkeeping; 0: it could not be read,
 * a failure). After a task session the child's cached binary stays, so
 * only the first call compares.
 */
static void test_prof_idle(bool compare, uint64_t free_before)
{
	sysinfo_profiler_t p = { 0 };
	size_t got;
	errno_t rc = EOK;

	for (int i = 0; i < 50; i++) {
		rc = sys_sysinfo_data("system.profiler", &p, sizeof(p), &got);
		if (rc != EOK || (p.state == PROF_STATE_IDLE && p.sessions == 0 && p.memory == 0))
			break;
		sys_sleep_ns(20 * NS_PER_MS);
	}
	tap_ok(rc == EOK && p.state == PROF_STATE_IDLE && p.sessions == 0 && p.memory == 0 &&
	       p.samples > 0, "prof: after hang-up system.profiler is idle (state %u, %u "
	       "sessions, %lu bytes held, %lu samples since boot)", p.state, p.sessions,
	       p.memory, p.samples);
	if (!compare)
		return;
	uint64_t after = free_bytes();
	tap_ok(free_before && after && after + 64 * 1024 >= free_before, "prof: free memory is "
	       "back (%lu KiB before, %lu KiB after; 0: system.physmem unreadable)",
	       free_before / 1024, after / 1024);
}

/* A task session on a stopped child: it ends when the child exits. */
static void test_prof_task(void)
{
	char *argv[] = { "/bin/workload", "-d", "0.5", "alpha:1", NULL };
	spawn_opts_t o = { .stdio = { "n:", "n:", "n:" }, .stopped = true };
	stream_stats_t st = { 0 };
	task_id_t child;
	int phone = -1, status = -1;
	ipc_msg_t a;

	errno_t rc = spawn("/bin/workload", argv, &o, &child);
	if (rc == EOK)
		rc = sys_ipc_connect_kbox(child, &phone);
	if (rc == EOK)
		rc = ipc_call_sync(phone, KBOX_PROF_TASK_BEGIN, prof_source(), 1000, 0, 0, 0, &a);
	errno_t started = rc == EOK ? ipc_call_sync(phone, KBOX_TASK_START, 0, 0, 0, 0, 0, NULL)
				    : rc;
	errno_t again = ipc_call_sync(phone, KBOX_TASK_START, 0, 0, 0, 0, 0, NULL);
	if (rc == EOK)
		rc = read_all(phone, child, now_ns() + 30 * NS_PER_SEC, &st);
	sys_wait(child, &status, 0, NULL);
	if (phone >= 0)
		sys_ipc_hangup(phone);
	tap_ok(rc == EOK && started == EOK && again == EINVAL && status == 0,
	       "prof: a child spawned stopped runs after KBOX_TASK_START (%d, again %d, rc %d, "
	       "status %s)", started, again, rc, status_str(status));
	tap_ok(st.header_ok && st.mine_user > 0 && !st.foreign && st.exit_seen && st.end_last &&
	       st.end_reason == PROF_END_TARGET_EXIT,
	       "prof: the task session saw only its task (%lu user samples, foreign %d), its "
	       "exit (%d), and ended by itself (END last %d, reason %u)", st.mine_user, st.foreign,
	       st.exit_seen, st.end_last, st.end_reason);
}

/*
 * With a budget of 0.01% of CPU time and the timer at 50 kHz (even if the
 * host delivers only part of the interrupts), sampling costs more than it may: the throttle skips samples, says so in the stream and
 * in STATUS, and the session still delivers samples.
 */
static void test_prof_throttle(int phone, task_id_t me)
{
	stream_stats_t st = { 0 };
	prof_status_t ps = { 0 };
	thread_id_t tid;

	errno_t rc = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, PROF_SRC_TIMER, 50000, 0, 0, 1,
				   NULL);
	/* From the begin's answer: it times the interrupt's cost first (slow on a busy host) */
	uint64_t until = now_ns() + NS_PER_SEC / 2;
	errno_t bad = ipc_call_sync(phone, KBOX_PROF_SYSTEM_BEGIN, 0, 0, 0, 0, PROF_BUDGET_MAX + 1,
				    NULL);
	if (rc == EOK && thread_start(spin_thread, &until, &tid) == EOK) {
		rc = read_all(phone, me, until, &st);
		thread_join(tid, NULL);
		ipc_call_sync(phone, KBOX_PROF_STATUS, (uint64_t)&ps, sizeof(ps), 0, 0, 0, NULL);
	}
	tap_ok(rc == EOK && bad == EINVAL && ps.throttled > 0 && st.throttle_recs > 0 &&
	       st.end_throttled == ps.throttled && st.samples > 0,
	       "prof: a 0.01%% budget at 50 kHz throttles (rc %d, %lu skipped, END says %lu, %lu "
	       "THROTTLE records, %lu samples kept; budget 100.01%% → %d)", rc, ps.throttled,
	       st.end_throttled, st.throttle_recs, st.samples, bad);
}

#define OFF_SLEEPS 3
#define OFF_SLEEP_NS (100 * 1000000ull)

/* Sleeps OFF_SLEEPS times OFF_SLEEP_NS. */
static long sleep_thread(void *arg)
{
	for (int i = 0; i < OFF_SLEEPS; i++)
		sys_sleep_ns(OFF_SLEEP_NS);
	return 0;
}

/*
 * A task session on ourselves with PROF_F_OFFCPU and call chains: a
 * thread that sleeps 3 x 100 ms gives sleep records whose cycles add up
 * to at least its 300 ms (and not far beyond), each with its kernel and
 * user frames; our reads of the stream give IPC waits; nothing of other
 * tasks. (test_prof_system checks a session without the flag gets none.)
 */
static void test_prof_offcpu(int phone, task_id_t me)
{
	stream_stats_t st = { 0 };
	prof_status_t ps = { 0 };
	thread_id_t tid;

	errno_t rc = ipc_call_sync(phone, KBOX_PROF_TASK_BEGIN, prof_source(), 1000,
				   PROF_F_OFFCPU | PROF_F_CALLCHAIN, 16, 0, NULL);
	if (rc == EOK && thread_start(sleep_thread, NULL, &tid) == EOK) {
		rc = read_all(phone, me, now_ns() + OFF_SLEEPS * OFF_SLEEP_NS + NS_PER_SEC / 2, &st);
		thread_join(tid, NULL);
		ipc_call_sync(phone, KBOX_PROF_STATUS, (uint64_t)&ps, sizeof(ps), 0, 0, 0, NULL);
	}
	uint64_t want = st.tsc_hz * (OFF_SLEEPS * OFF_SLEEP_NS / 1000000) / 1000;
	tap_ok(rc == EOK && st.sleep_cycles >= want && st.sleep_cycles < want * 2 &&
	       st.sleep_chained >= OFF_SLEEPS && st.off_ipc > 0 && !st.off_foreign &&
	       ps.offcpu == st.offcpu,
	       "prof: off-CPU records: sleeps of %lu cycles for %lu slept, %lu with kernel and "
	       "user frames, %lu IPC waits, %lu of other tasks, STATUS %lu of %lu (rc %d)",
	       st.sleep_cycles, want, st.sleep_chained, st.off_ipc, st.off_foreign, ps.offcpu,
	       st.offcpu, rc);
}

#define MANY_SESSIONS 34              /* more than the kernel's NMI filter slots (32) */

/* Task sessions beyond the NMI filter's slots still get their task's samples. */
static void test_prof_many(task_id_t me)
{
	int phones[MANY_SESSIONS];
	unsigned begun = 0;
	stream_stats_t st = { 0 };
	errno_t rc = EOK;

	for (unsigned i = 0; i < MANY_SESSIONS; i++) {
		phones[i] = -1;
		if (sys_ipc_connect_kbox(me, &phones[i]) == EOK &&
		    ipc_call_sync(phones[i], KBOX_PROF_TASK_BEGIN, prof_source(), 1000, 0, 0, 0,
				  NULL) == EOK)
			begun++;
	}
	uint64_t until = now_ns() + NS_PER_SEC / 2;
	thread_id_t tid;
	if (begun == MANY_SESSIONS && thread_start(spin_thread, &until, &tid) == EOK) {
		rc = read_all(phones[MANY_SESSIONS - 1], me, until, &st);
		thread_join(tid, NULL);
	}
	for (unsigned i = 0; i < MANY_SESSIONS; i++)
		if (phones[i] >= 0)
			sys_ipc_hangup(phones[i]);
	tap_ok(begun == MANY_SESSIONS && rc == EOK && st.mine_user > 0 && !st.foreign,
	       "prof: %u of %u task sessions begin; the last one (no filter slot) gets its "
	       "task's samples only (%lu, foreign %d, rc %d)", begun, MANY_SESSIONS,
	       st.mine_user, st.foreign, rc);
}

/* A task spawned stopped and killed before it ever ran still dies and is reaped. */
static void test_prof_kill_stopped(void)
{
	char *argv[] = { "/bin/hello", NULL };
	spawn_opts_t o = { .stopped = true };
	task_id_t child;
	int status = -1;

	errno_t rc = spawn("/bin/hello", argv, &o, &child);
	if (rc == EOK)
		rc = sys_kill(child);
	if (rc == EOK)
		rc = sys_wait(child, &status, 0, NULL);
	tap_ok(rc == EOK && status != 0, "prof: a stopped child that is killed never runs and "
	       "is reaped (rc %d, status %s)", rc, status_str(status));
}

void test_prof(void)
{
	task_id_t me = sys_task_id();
	int phone, phone2;

	errno_t rc = sys_ipc_connect_kbox(me, &phone);
	errno_t rc2 = sys_ipc_connect_kbox(me, &phone2);
	tap_ok(rc == EOK && rc2 == EOK, "prof: two kbox phones to ourselves (%d, %d)", rc, rc2);
	if (rc != EOK || rc2 != EOK)
		return;
	/* Our own memory first: the read buffer's pages, a thread's stack tables. */
	uint64_t now = now_ns();
	thread_id_t tid;
	memset(read_buf, 0, sizeof(read_buf));
	if (thread_start(spin_thread, &now, &tid) == EOK)
		thread_join(tid, NULL);
	uint64_t free0 = free_bytes();
	test_prof_args(phone);
	test_prof_system(phone, phone2, me);
	sys_ipc_hangup(phone);
	sys_ipc_hangup(phone2);
	test_prof_idle(true, free0);
	rc = sys_ipc_connect_kbox(me, &phone);
	if (!tap_ok(rc == EOK, "prof: a kbox phone for the throttle test (%d)", rc))
		return;
	test_prof_throttle(phone, me);
	sys_ipc_hangup(phone);
	rc = sys_ipc_connect_kbox(me, &phone);
	if (!tap_ok(rc == EOK, "prof: a kbox phone for the off-CPU test (%d)", rc))
		return;
	test_prof_offcpu(phone, me);
	sys_ipc_hangup(phone);
	test_prof_task();
	test_prof_idle(false, 0);
	test_prof_many(me);
	test_prof_idle(false, 0);
	test_prof_kill_stopped();
	test_prof_unprivileged();
	test_prof_short_unprivileged();
}
