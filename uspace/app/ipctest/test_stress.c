/*
 * ipctest stress: 10,000 calls in flight across the CPUs. STRESS_THREADS
 * client threads, thread i pinned to CPU i % ncpus, each with its own
 * phone to the echo server (which serves with one thread per CPU), keep up
 * to WINDOW calls outstanding each. Every call carries a unique sequence
 * number that the server echoes (plus its complement); every number must
 * come back exactly once, in the answer to the call that carried it, and
 * no stray answer may be left over.
 */
#include <string.h>
#include <thread.h>

#include "ipctest.h"

#define STRESS_CALLS 10000
#define STRESS_THREADS 4
#define WINDOW 32
#define PER_THREAD (STRESS_CALLS / STRESS_THREADS)

typedef struct stress {
	int index;
	int phone;
	errno_t rc;                 /* first failure */
	unsigned bad;               /* answers with wrong contents */
	unsigned max_window;
	uint32_t cpu;               /* where it last ran */
} stress_t;

static uint16_t seen[STRESS_CALLS];

static void stress_note(stress_t *s, uint64_t seq, const ipc_msg_t *a)
{
	if (a->args[0] != seq || a->args[1] != ~seq || a->args[2] != (uint64_t)s->index ||
	    seq >= STRESS_CALLS) {
		s->bad++;
		return;
	}
	__atomic_add_fetch(&seen[seq], 1, __ATOMIC_RELAXED);
}

/* Send the thread's sequence numbers keeping up to WINDOW calls outstanding. */
static void stress_run(stress_t *s)
{
	ipc_callid_t ids[WINDOW];
	uint64_t seqs[WINDOW];
	unsigned head = 0, count = 0, sent = 0, first = (unsigned)s->index * PER_THREAD;

	while (sent < PER_THREAD || count > 0) {
		if (sent < PER_THREAD && count < WINDOW) {
			unsigned slot = (head + count) % WINDOW;
			seqs[slot] = first + sent;
			errno_t rc = ipc_call_async(s->phone, ECHO_SEQ, seqs[slot],
						    (uint64_t)s->index, 0, 0, 0, &ids[slot]);
			if (rc != EOK) {
				s->rc = rc;
				return;
			}
			sent++;
			if (++count > s->max_window)
				s->max_window = count;
			continue;
		}
		ipc_msg_t a;
		errno_t rc = ipc_wait_answer(ids[head], ANSWER_TIMEOUT_NS, &a);
		if (rc != EOK) {
			s->rc = rc;
			return;
		}
		stress_note(s, seqs[head], &a);
		head = (head + 1) % WINDOW;
		count--;
	}
}

static long stress_thread(void *arg)
{
	stress_t *s = arg;
	thread_stats_t st;

	s->rc = sys_set_affinity(0, 1ull << (s->index % ncpus));
	if (s->rc == EOK)
		s->rc = service_connect(echo_name(), &s->phone);
	if (s->rc == EOK) {
		stress_run(s);
		sys_ipc_hangup(s->phone);
	}
	if (__vernier_syscall(SYS_THREAD_STATS, 0, (long)&st, 0, 0, 0, 0) == 0)
		s->cpu = st.cpu;
	return 0;
}

/* Count numbers answered 0, 1 and more times. */
static void stress_tally(unsigned *missing, unsigned *once, unsigned *dup)
{
	*missing = *once = *dup = 0;
	for (unsigned i = 0; i < STRESS_CALLS; i++) {
		if (seen[i] == 0)
			(*missing)++;
		else if (seen[i] == 1)
			(*once)++;
		else
			(*dup)++;
	}
}

static uint64_t echo_seq_calls(void)
{
	ipc_msg_t a;

	return call(echo_phone(), ECHO_STATS, 0, 0, 0, &a) == EOK ? a.args[0] : 0;
}

void test_stress(void)
{
	stress_t s[STRESS_THREADS];
	thread_id_t tid[STRESS_THREADS];
	unsigned missing, once, dup, bad = 0, started = 0, window = WINDOW;
	errno_t rc = EOK;

	if (!tap_ok(echo_phone() >= 0, "stress: echo server running"))
		return;
	memset(seen, 0, sizeof(seen));
	uint64_t served0 = echo_seq_calls(), t0 = now_ns();
	for (int i = 0; i < STRESS_THREADS; i++) {
		s[i] = (stress_t){ .index = i, .phone = -1 };
		if (thread_start(stress_thread, &s[i], &tid[started]) == EOK)
			started++;
	}
	for (unsigned i = 0; i < started; i++)
		thread_join(tid[i], NULL);
	uint64_t dt = now_ns() - t0;
	for (unsigned i = 0; i < started; i++) {
		if (rc == EOK)
			rc = s[i].rc;
		bad += s[i].bad;
		if (s[i].max_window < window)
			window = s[i].max_window;
		tap_diag("stress: thread %u on cpu %u, phone %d, %s, %u wrong, "
			 "window %u", i, s[i].cpu, s[i].phone, err_str(s[i].rc),
			 s[i].bad, s[i].max_window);
	}
	stress_tally(&missing, &once, &dup);
	tap_ok(started == STRESS_THREADS && rc == EOK && bad == 0,
	       "stress: %d threads on %u CPUs sent %d calls, up to %d in flight each; "
	       "every answer carried its own number (%s, %u wrong)", started, ncpus,
	       STRESS_CALLS, WINDOW, err_str(rc), bad);
	tap_ok(once == STRESS_CALLS && missing == 0 && dup == 0,
	       "stress: every number answered exactly once (%u once, %u missing, "
	       "%u more than once) in %llu ms", once, missing, dup,
	       (unsigned long long)(dt / NS_PER_MS));
	uint64_t served = echo_seq_calls() - served0;
	tap_ok(served == STRESS_CALLS, "stress: the server answered %llu calls",
	       (unsigned long long)served);
	tap_ok(window == WINDOW, "stress: each thread had %d calls outstanding at "
	       "its peak (smallest peak %u)", WINDOW, window);
	ipc_event_t ev;
	errno_t left = sys_ipc_wait(&ev, 0, IPC_WAIT_ALL | IPC_WAIT_NONBLOCK, 0);
	tap_ok(left == EAGAIN, "stress: no stray answer left in our box (%s%s)",
	       err_str(left), left == EOK ? ", got an event" : "");
}
