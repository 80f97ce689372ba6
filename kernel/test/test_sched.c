/*
 * ktest: kernel threads, the scheduler, wait queues, sleeping.
 * Lock order: the tests' wait-queue locks are each taken alone.
 */
#include <arch/cpu.h>
#include <kernel/tick.h>
#include <kernel/idle.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/vm.h>

static void kt_return_arg(void *arg)
{
	thread_exit((long)(uintptr_t)arg * 2);
}

KTEST(thread_join_values, "thread: 64 kernel threads created and joined with their values")
{
	thread_t *t[64];
	for (int i = 0; i < 64; i++)
		KT_CHECK(thread_create_kernel("kt", kt_return_arg, (void *)(uintptr_t)i, &t[i]) == EOK,
			 "create %d failed", i);
	for (int i = 0; i < 64; i++) {
		long v = -1;
		KT_CHECK(thread_join(t[i], &v) == EOK, "join %d failed", i);
		KT_CHECK(v == 2 * i, "thread %d returned %ld", i, v);
	}
	return true;
}

/*
 * Where the kernel's frames are: free, or held by the heap (live objects
 * and each size class's one spare page), the kernel stack area (live
 * stacks and the cache) or kernel page tables. A leaked frame leaves the
 * sum; a leaked object or stack shows in the live counts.
 */
typedef struct kt_frames {
	size_t sum;                  /* free + heap + kstack + table frames */
	size_t heap_live, kstacks;
	size_t free;
} kt_frames_t;

static kt_frames_t kt_frames(void)
{
	kt_frames_t f = { .free = frame_stats().free };

	f.sum = f.free + heap_footprint() / PAGE_SIZE + kstack_pages() + vm_table_frames();
	f.heap_live = heap_live_bytes();
	f.kstacks = kstack_live();
	return f;
}

static bool kt_frames_same(const kt_frames_t *a, const kt_frames_t *b)
{
	return a->sum == b->sum && a->heap_live == b->heap_live && a->kstacks == b->kstacks;
}

/*
 * The counts once the last thread is reaped: two reads 20 ms apart that
 * agree, or that match want (up to 1 s; a call-profiled kernel reaps
 * slowly and frees a thread's call stack then).
 */
static kt_frames_t kt_frames_settled(const kt_frames_t *want)
{
	kt_frames_t now = kt_frames(), last;

	for (int i = 0; i < 50 && !(want && kt_frames_same(&now, want)); i++) {
		last = now;
		thread_sleep(20000000);
		now = kt_frames();
		if (!want && kt_frames_same(&now, &last))
			break;
	}
	return now;
}

/*
 * Free frames alone were one short now and then under Bochs: a heap size
 * class can keep one spare page, so where the frames sit may move between
 * free and heap without any leak. The sum and the live counts cannot.
 */
KTEST(thread_reap_frames, "thread: 500 threads leave the free-frame count where it was")
{
	thread_t *t;
	/* Warm the stack cache first so it does not count as a leak. */
	for (int i = 0; i < 70; i++)
		if (thread_create_kernel("kt", kt_return_arg, NULL, &t) == EOK)
			thread_join(t, NULL);
	kt_frames_t before = kt_frames_settled(NULL);
	for (int i = 0; i < 500; i++) {
		KT_CHECK(thread_create_kernel("kt", kt_return_arg, NULL, &t) == EOK, "create");
		KT_CHECK(thread_join(t, NULL) == EOK, "join");
	}
	kt_frames_t after = kt_frames_settled(&before);
	printk("# free frames %zu, were %zu (the sum %zu, was %zu)\n", after.free, before.free,
	       after.sum, before.sum);
	KT_CHECK(kt_frames_same(&after, &before), "frames free+heap+kstack+tables %zu (free %zu), "
		 "heap live %zu B, kstacks %zu; were %zu (free %zu), %zu B, %zu", after.sum,
		 after.free, after.heap_live, after.kstacks, before.sum, before.free,
		 before.heap_live, before.kstacks);
	return true;
}

KTEST(sleep_accuracy, "sleep: 100 ms sleeps last 100 ms plus at most two ticks")
{
	uint64_t tick = NSEC_PER_SEC / tick_hz();
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = time_ns();
		KT_CHECK(thread_sleep(100000000) == EOK, "sleep interrupted");
		uint64_t d = time_ns() - t0;
		KT_CHECK(d >= 100000000 && d <= 100000000 + 2 * tick + 2000000,
			 "slept %lu ns", d);
	}
	return true;
}

static waitq_t kt_wq;
static volatile bool kt_flag;

static void kt_waker(void *arg)
{
	thread_sleep(30000000);
	uint64_t f = spin_lock_irqsave(&kt_wq.lock);
	kt_flag = true;
	waitq_wake_all_locked(&kt_wq);
	spin_unlock_irqrestore(&kt_wq.lock, f);
}

KTEST(waitq_timeout_and_wake, "waitq: a timeout gives ETIMEOUT, a wake gives EOK")
{
	waitq_init(&kt_wq);
	kt_flag = false;
	uint64_t f = spin_lock_irqsave(&kt_wq.lock);
	uint64_t t0 = time_ns();
	errno_t rc = waitq_sleep_locked(&kt_wq, &f, 20000000);
	uint64_t d = time_ns() - t0;
	spin_unlock_irqrestore(&kt_wq.lock, f);
	KT_CHECK(rc == ETIMEOUT && d >= 20000000, "rc %d after %lu ns", rc, d);
	thread_t *w;
	KT_CHECK(thread_create_kernel("waker", kt_waker, NULL, &w) == EOK, "create");
	f = spin_lock_irqsave(&kt_wq.lock);
	rc = EOK;
	while (!kt_flag && rc == EOK)
		rc = waitq_sleep_locked(&kt_wq, &f, 2000000000);
	spin_unlock_irqrestore(&kt_wq.lock, f);
	thread_join(w, NULL);
	KT_CHECK(rc == EOK && kt_flag, "woken with %d", rc);
	return true;
}

static volatile uint64_t kt_spins[8];
static volatile bool kt_stop;

static void kt_spinner(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	while (!kt_stop)
		kt_spins[i]++;
}

static errno_t kt_spawn_pinned(int i, uint32_t cpu, thread_t **t)
{
	return thread_create_kernel_on("spin", kt_spinner, (void *)(uintptr_t)i,
				       THREAD_PRIO_DEFAULT, 1ull << cpu, t);
}

/* Two spinners pinned to cpu for 400 ms: both ran, and their accounted cycles. */
static bool kt_share_round(uint32_t cpu, uint64_t *x, uint64_t *y)
{
	thread_t *a, *b;

	kt_stop = false;
	kt_spins[0] = kt_spins[1] = 0;
	if (kt_spawn_pinned(0, cpu, &a) != EOK)
		return false;
	if (kt_spawn_pinned(1, cpu, &b) != EOK) {
		kt_stop = true;
		thread_join(a, NULL);
		return false;
	}
	thread_sleep(400000000);
	kt_stop = true;
	/* Read the accounting before joining drops our references. */
	while (!a->exited || !b->exited)
		thread_sleep(1000000);
	*x = a->acct.kernel_cycles;
	*y = b->acct.kernel_cycles;
	thread_join(a, NULL);
	thread_join(b, NULL);
	printk("# share: %lu vs %lu cycles, %lu vs %lu spins\n", *x, *y, kt_spins[0], kt_spins[1]);
	return kt_spins[0] > 0 && kt_spins[1] > 0;
}

/*
 * Each gets 40-60% of the accounted time in one of three rounds: the
 * cycles are host time under an emulator, and a vCPU thread the host
 * takes away for a while charges the spinner it was running (seen 80/20
 * on a loaded 2-core host). A scheduler that starves one gets 100/0 in
 * every round.
 */
KTEST(round_robin, "sched: two spinners pinned to one CPU share it (accounted time)")
{
	uint32_t cpu = cpus_online > 1 ? 1 : 0;
	uint64_t x = 0, y = 0;
	bool fair = false;

	for (int r = 0; r < 3 && !fair; r++) {
		KT_CHECK(kt_share_round(cpu, &x, &y), "both spinners ran (create, spins)");
		fair = x * 100 >= (x + y) * 40 && y * 100 >= (x + y) * 40;
	}
	KT_CHECK(fair, "unfair share in 3 rounds, the last %lu vs %lu cycles", x, y);
	return true;
}

#define KT_HANDOVERS 20

static volatile bool kt_handover_done;

static void kt_yielder(void *arg)
{
	(void)arg;
	while (!kt_handover_done)
		sched_yield();
}

/* Spin a millisecond with interrupts off (no boundary), then yield: 20 times. */
static void kt_irqoff_yielder(void *arg)
{
	uint64_t n = time_cycles_per_sec() / 1000;

	(void)arg;
	for (int i = 0; i < KT_HANDOVERS; i++) {
		uint64_t f = irq_save();
		uint64_t t0 = time_cycles();
		while (time_cycles() - t0 < n)
			cpu_relax();
		sched_yield();
		irq_restore(f);
	}
	kt_handover_done = true;
}

/*
 * A thread's kernel time up to its switch away is its own: the spinner's
 * milliseconds, ended by a switch and no other boundary, are charged to
 * it, not to the thread switched to (the bug: acct_switch ran after
 * c->current became next).
 */
KTEST(switch_charges_prev, "acct: the kernel time before a switch is the leaving thread's")
{
	uint32_t cpu = cpus_online > 1 ? 1 : 0;
	uint64_t want = KT_HANDOVERS * (time_cycles_per_sec() / 1000) * 9 / 10;
	thread_t *a, *b;

	kt_handover_done = false;
	KT_CHECK(thread_create_kernel_on("yield", kt_yielder, NULL, THREAD_PRIO_DEFAULT,
					 1ull << cpu, &b) == EOK, "create the yielder");
	KT_CHECK(thread_create_kernel_on("irqoff", kt_irqoff_yielder, NULL, THREAD_PRIO_DEFAULT,
					 1ull << cpu, &a) == EOK, "create the spinner");
	while (!a->exited || !b->exited)
		thread_sleep(1000000);
	uint64_t x = a->acct.kernel_cycles, y = b->acct.kernel_cycles;
	thread_join(a, NULL);
	thread_join(b, NULL);
	KT_CHECK(x >= want, "the spinner was charged %lu cycles, the yielder %lu; want >= %lu "
		 "for the spinner", x, y, want);
	return true;
}

static void kt_note_cpu(void *arg)
{
	*(volatile uint32_t *)arg = cpu_id();
}

/* Regression: a woken thread was queued on its creator's idle CPU even when its affinity excluded it. */
KTEST(wakeup_respects_affinity, "sched: a new thread runs only where its affinity allows")
{
	for (uint32_t cpu = 0; cpu < cpus_online; cpu++) {
		volatile uint32_t ran_on = ~0u;
		thread_t *t;
		KT_CHECK(thread_create_kernel_on("aff", kt_note_cpu, (void *)&ran_on,
						 THREAD_PRIO_DEFAULT, 1ull << cpu, &t) == EOK, "create");
		KT_CHECK(thread_join(t, NULL) == EOK, "join");
		KT_CHECK(ran_on == cpu, "pinned to cpu %u, ran on %u", cpu, ran_on);
	}
	return true;
}

static volatile uint32_t kt_seen_cpus;

static void kt_where(void *arg)
{
	uint64_t end = time_ns() + 200000000;
	while (time_ns() < end)
		__atomic_or_fetch(&kt_seen_cpus, 1u << cpu_id(), __ATOMIC_RELAXED);
}

KTEST(spread_over_cpus, "sched: unpinned spinners spread over every CPU")
{
	thread_t *t[8];
	unsigned n = MIN(cpus_online, 8u);

	kt_seen_cpus = 0;
	for (unsigned i = 0; i < n; i++)
		KT_CHECK(thread_create_kernel("where", kt_where, NULL, &t[i]) == EOK, "create");
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i], NULL);
	uint32_t all = n >= 32 ? ~0u : (1u << n) - 1;
	KT_CHECK((kt_seen_cpus & all) == all, "ran on CPUs %#x of %#x", kt_seen_cpus, all);
	return true;
}

static volatile uint64_t kt_high_ran_at;

static void kt_high(void *arg)
{
	kt_high_ran_at = time_ns();
}

#define KT_WAKE_ROUNDS 8

static volatile uint32_t kt_round;                   /* the wakes so far */
static volatile uint64_t kt_woke_ns[KT_WAKE_ROUNDS];  /* when the high thread ran */
static volatile uint64_t kt_woke_tick[KT_WAKE_ROUNDS]; /* its CPU's tick count then */
static volatile uint32_t kt_woke_slice[KT_WAKE_ROUNDS]; /* the spinner's slice left then */
static thread_t *volatile kt_lo;                      /* the spinner */

/* Sleeps on kt_wq until each wake (kt_round), noting when it ran. */
static void kt_high_waiter(void *arg)
{
	for (uint32_t r = 0; r < KT_WAKE_ROUNDS; r++) {
		uint64_t f = spin_lock_irqsave(&kt_wq.lock);
		errno_t rc = EOK;
		while (kt_round <= r && rc == EOK)
			rc = waitq_sleep_locked(&kt_wq, &f, 2000000000);
		spin_unlock_irqrestore(&kt_wq.lock, f);
		kt_woke_tick[r] = cpu_current()->ticks;
		kt_woke_slice[r] = kt_lo ? kt_lo->slice : 0;
		kt_woke_ns[r] = time_ns();
	}
}

/* Wake round r of the high thread on cpu; how many ns it took to run (UINT64_MAX: never). */
static uint64_t kt_wake_round(uint32_t r, uint32_t cpu)
{
	uint64_t tick = NSEC_PER_SEC / tick_hz();

	thread_sleep(30000000);                  /* the spinner has the CPU */
	/*
	 * A sleep ends at a tick of this CPU, and the other CPUs' ticks keep a
	 * fixed phase to ours: waking at once could put their next tick
	 * inside the wake's latency every round (it did on the call-profiled
	 * kernel). Wake 1/5 .. 4/5 of a tick later instead.
	 */
	uint64_t until = time_ns() + tick * (r % 4 + 1) / 5;
	while (time_ns() < until)
		cpu_relax();
	uint64_t f = spin_lock_irqsave(&kt_wq.lock);
	uint64_t t0 = time_ns(), tick0 = cpus[cpu]->ticks;
	kt_round = r + 1;
	waitq_wake_all_locked(&kt_wq);
	spin_unlock_irqrestore(&kt_wq.lock, f);
	while (!kt_woke_ns[r] && time_ns() - t0 < 1000000000)
		thread_sleep(1000000);
	printk("# wake %u: ran after %lu ns, %lu ticks of its CPU, the spinner's slice left %u\n",
	       r, kt_woke_ns[r] - t0, kt_woke_tick[r] - tick0, kt_woke_slice[r]);
	return kt_woke_ns[r] ? kt_woke_ns[r] - t0 : UINT64_MAX;
}

/*
 * The high-priority thread is created (and goes to sleep) before the
 * spinner starts, so that only the wake is timed: creating a thread costs
 * enough instructions to take most of the budget under -icount on a
 * loaded host, where every instruction is worth more guest nanoseconds.
 * Without the wake's preemption it would run only once the spinner's
 * slice is used up (0 ticks left): so a round passes if the spinner still
 * had slice left when the high thread ran, within 15 ms. One of
 * KT_WAKE_ROUNDS must (the slice's last tick can fall in by chance; a
 * tick before the wake's IPI is the rule under -icount, where QEMU 7.2
 * runs the spinning vCPU only up to its next timer deadline). On one CPU
 * the waker itself runs only once the spinner's slice ended, so there
 * only the 15 ms count.
 */
KTEST(priority_preempts, "sched: a woken higher-priority thread preempts a spinner")
{
	thread_t *lo, *hi;
	uint32_t cpu = cpus_online > 1 ? 1 : 0;
	bool preempted = false;

	waitq_init(&kt_wq);
	kt_round = 0;
	kt_stop = false;
	for (int r = 0; r < KT_WAKE_ROUNDS; r++)
		kt_woke_ns[r] = 0;
	KT_CHECK(thread_create_kernel_on("high", kt_high_waiter, NULL, THREAD_PRIO_LEVELS - 1,
					 1ull << cpu, &hi) == EOK, "create");
	KT_CHECK(kt_spawn_pinned(2, cpu, &lo) == EOK, "create");
	kt_lo = lo;
	for (uint32_t r = 0; r < KT_WAKE_ROUNDS && !preempted; r++) {
		uint64_t ns = kt_wake_round(r, cpu);
		preempted = (kt_woke_slice[r] > 0 || cpus_online == 1) && ns < 15000000;
	}
	kt_lo = NULL;
	kt_round = KT_WAKE_ROUNDS;
	waitq_wake_all(&kt_wq);
	thread_join(hi, NULL);
	kt_stop = true;
	thread_join(lo, NULL);
	KT_CHECK(preempted, "in %d wakes the high-priority thread never ran before the "
		 "spinner's slice ended", KT_WAKE_ROUNDS);
	return true;
}

KTEST(affinity_moves_queued, "sched: changing a queued thread's affinity moves it")
{
	thread_t *spin, *t;
	uint32_t cpu = cpus_online - 1;

	kt_stop = false;
	kt_high_ran_at = 0;
	/* Keep the target CPU busy so the thread has to wait in a queue. */
	KT_CHECK(kt_spawn_pinned(3, cpu, &spin) == EOK, "create");
	KT_CHECK(thread_create_kernel_on("moved", kt_high, NULL, THREAD_PRIO_DEFAULT,
					 1ull << cpu, &t) == EOK, "create");
	sched_set_params(t, -1, 1ull << 0);
	uint64_t t0 = time_ns();
	while (!kt_high_ran_at && time_ns() - t0 < 1000000000)
		thread_sleep(1000000);
	kt_stop = true;
	thread_join(t, NULL);
	thread_join(spin, NULL);
	KT_CHECK(kt_high_ran_at != 0, "the moved thread never ran");
	return true;
}

static waitq_t kt_hand_wq;
static volatile int kt_hand_step;        /* 1: sleeping on kt_hand_wq; 2: ran again */

/* Sleep on kt_hand_wq once, then note that it ran and wake kt_wq's waiter. */
static void kt_hand_sleeper(void *arg)
{
	uint64_t f = spin_lock_irqsave(&kt_hand_wq.lock);
	kt_hand_step = 1;
	waitq_sleep_locked(&kt_hand_wq, &f, 2000000000);
	spin_unlock_irqrestore(&kt_hand_wq.lock, f);
	kt_hand_step = 2;
	waitq_wake_all(&kt_wq);
}

/* Wait until the sleeper is on kt_hand_wq (it last ran on this CPU). */
static bool kt_hand_wait_asleep(thread_t *w)
{
	for (int i = 0; i < 200; i++) {
		if (kt_hand_step == 1 && w->state == THREAD_SLEEPING && !w->on_cpu)
			return true;
		thread_sleep(1000000);
	}
	return false;
}

KTEST(wakeup_sync_hands_off, "sched: a sync wake-up hands the CPU over without the run queue")
{
	uint32_t cpu = cpu_id();
	thread_t *me = thread_current(), *w;
	uint64_t aff = me->affinity;

	waitq_init(&kt_hand_wq);
	waitq_init(&kt_wq);
	kt_hand_step = 0;
	sched_set_params(me, -1, 1ull << cpu);
	KT_CHECK(thread_create_kernel_on("hand", kt_hand_sleeper, NULL, me->priority,
					 1ull << cpu, &w) == EOK, "create");
	bool asleep = kt_hand_wait_asleep(w);
	uint64_t f = spin_lock_irqsave(&kt_hand_wq.lock);
	size_t queued = sched_queue_length(cpu);
	size_t n = asleep ? waitq_wake_all_locked_to(&kt_hand_wq, WAITQ_FIRST) : 0;
	bool slot = cpu_current()->handoff == w;
	bool unqueued = sched_queue_length(cpu) == queued;
	spin_unlock_irqrestore(&kt_hand_wq.lock, f);
	f = spin_lock_irqsave(&kt_wq.lock);
	errno_t rc = EOK;
	while (kt_hand_step != 2 && rc == EOK)     /* blocking runs it */
		rc = waitq_sleep_locked(&kt_wq, &f, 2000000000);
	spin_unlock_irqrestore(&kt_wq.lock, f);
	thread_join(w, NULL);
	sched_set_params(me, -1, aff);
	KT_CHECK(asleep && n == 1, "sleeper asleep %d, woken %zu", asleep, n);
	KT_CHECK(slot && unqueued, "in the hand-off slot %d, not queued %d", slot, unqueued);
	KT_CHECK(rc == EOK && kt_hand_step == 2 && !cpu_current()->handoff,
		 "ran after the block: rc %d step %d", rc, kt_hand_step);
	return true;
}

static waitq_t kt_pp_wq[2];
static volatile uint64_t kt_pp_turn;      /* even: thread 0's turn, odd: thread 1's */

/*
 * Pass the turn on with a hand-off (WAITQ_FIRST), then wait for it to come
 * back, in one interrupts-off section (as ipc_call_wait does: the tick
 * never sees the hand-off slot full), with interrupts on in between (as
 * in user mode between system calls). Thread 0 starts with the turn.
 */
static void kt_pingpong(void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	bool mine = me == 0;

	while (!kt_stop) {
		uint64_t f = irq_save(), g;
		if (mine) {
			spin_lock(&kt_pp_wq[!me].lock);
			kt_pp_turn++;
			waitq_wake_all_locked_to(&kt_pp_wq[!me], WAITQ_FIRST);
			spin_unlock(&kt_pp_wq[!me].lock);
		}
		spin_lock(&kt_pp_wq[me].lock);
		while ((kt_pp_turn & 1) != me && !kt_stop)
			waitq_sleep_locked(&kt_pp_wq[me], &g, 100000000);
		spin_unlock(&kt_pp_wq[me].lock);
		mine = true;
		irq_restore(f);
	}
}

/*
 * Two threads that hand the CPU to each other (as a client and server do
 * with SYS_IPC_CALL_SYNC and SYS_IPC_ANSWER_WAIT) and a spinner of their
 * priority, all on one CPU, for 300 ms: the spinner must run too. Each
 * hand-off used to start a fresh time slice, so the pair never used one
 * up and the spinner (and on one CPU this test too) never ran again.
 */
KTEST(handoff_shares_cpu, "sched: a hand-off pair leaves a queued thread of its priority its turns")
{
	uint32_t cpu = cpus_online > 1 ? 1 : 0;
	thread_t *a, *b, *s;

	kt_stop = false;
	kt_pp_turn = 0;
	kt_spins[5] = 0;
	waitq_init(&kt_pp_wq[0]);
	waitq_init(&kt_pp_wq[1]);
	KT_CHECK(kt_spawn_pinned(5, cpu, &s) == EOK, "create");
	KT_CHECK(thread_create_kernel_on("ping", kt_pingpong, (void *)0, THREAD_PRIO_DEFAULT,
					 1ull << cpu, &a) == EOK, "create");
	KT_CHECK(thread_create_kernel_on("pong", kt_pingpong, (void *)1, THREAD_PRIO_DEFAULT,
					 1ull << cpu, &b) == EOK, "create");
	thread_sleep(100000000);
	uint64_t spins0 = kt_spins[5], turns0 = kt_pp_turn;
	thread_sleep(300000000);
	uint64_t spins = kt_spins[5] - spins0, turns = kt_pp_turn - turns0;
	kt_stop = true;
	thread_join(a, NULL);
	thread_join(b, NULL);
	thread_join(s, NULL);
	printk("# hand-off pair: %lu turns, spinner %lu spins in 300 ms\n", turns, spins);
	KT_CHECK(turns > 100 && spins > 0, "%lu hand-offs, the spinner %lu spins", turns, spins);
	return true;
}

static waitq_t kt_idle_wq;
static volatile uint64_t kt_idle_posted, kt_idle_seen;

/* Wait for each post (a lost wake-up shows as a 2 s sleep), count it. */
static void kt_idle_waiter(void *arg)
{
	uint64_t f = spin_lock_irqsave(&kt_idle_wq.lock);

	while (!kt_stop) {
		while (kt_idle_seen == kt_idle_posted && !kt_stop)
			waitq_sleep_locked(&kt_idle_wq, &f, 2000000000);
		kt_idle_seen = kt_idle_posted;
	}
	spin_unlock_irqrestore(&kt_idle_wq.lock, f);
}

/* Post one wake-up; true if the waiter saw it within 1 s. */
static bool kt_idle_post(void)
{
	uint64_t f = spin_lock_irqsave(&kt_idle_wq.lock);
	uint64_t want = ++kt_idle_posted;

	waitq_wake_all_locked(&kt_idle_wq);
	spin_unlock_irqrestore(&kt_idle_wq.lock, f);
	uint64_t t0 = time_cycles(), limit = time_cycles_per_sec();
	while (kt_idle_seen != want && time_cycles() - t0 < limit)
		cpu_relax();
	return kt_idle_seen == want;
}

/* Wake-ups of CPU 1 that needed no IPI, since boot. */
static uint64_t kt_ipis_saved(void)
{
	idle_stats_t s;

	idle_get_stats(1, &s);
	return s.ipis_saved;
}

/*
 * After polling was turned off: wait (1 s at most) until CPU 1 has ended
 * two idle waits, the second begun with its limit at 0: it polls no more.
 */
static void kt_idle_settle(void)
{
	idle_stats_t a, b;
	uint64_t t0 = time_ns();

	idle_get_stats(1, &a);
	do {
		thread_sleep(1000000);
		idle_get_stats(1, &b);
	} while (b.waits - a.waits < 3 && time_ns() - t0 < 1000000000);
}

static unsigned kt_idle_found;          /* gaps that found the CPU polling */

/*
 * Wait until CPU cpu polls (at most 10 ms), or, if !at_poll, 0-40 us
 * (*seed: xorshift64).
 */
static void kt_idle_gap(uint32_t cpu, bool at_poll, uint64_t *seed)
{
	uint64_t t0 = time_cycles(), us = time_cycles_per_sec() / 1000000;
	uint64_t gap = at_poll ? 10000 * us : (*seed % 40) * us;

	*seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
	while (time_cycles() - t0 < gap && !(at_poll && cpus[cpu]->idle_polling))
		cpu_relax();
	kt_idle_found += at_poll && cpus[cpu]->idle_polling;
}

/* n posts to the waiter on CPU 1 (see kt_idle_gap); how many it saw, the IPIs they saved. */
static unsigned kt_idle_round(unsigned n, bool at_poll, uint64_t *saved)
{
	uint64_t saved0 = kt_ipis_saved(), seed = time_cycles() | 1;
	unsigned seen = 0;

	for (unsigned i = 0; i < n; i++) {
		kt_idle_gap(1, at_poll, &seed);
		seen += kt_idle_post();
	}
	*saved = kt_ipis_saved() - saved0;
	return seen;
}

/*
 * A thread on CPU 1 sleeps and is woken from CPU 0 200 times with idle
 * polling on, each wake-up once CPU 1 is seen polling, then 200 times
 * with it off, 0-40 us apart: every wake-up arrives both ways; with
 * polling on, some found CPU 1 still polling (they needed no IPI), with
 * it off, none did. The test polls 20 ms each time, not adapting: on a
 * loaded host the two vCPUs may not run at once, and a poll shorter than
 * the host's time slice could then end unseen every time.
 */
KTEST(idle_poll_wakes, "sched: an idle CPU polling its queue is woken without an IPI, never lost")
{
	uint64_t old = idle_poll_max(), on, off;
	thread_t *me = thread_current(), *w;
	uint64_t aff = me->affinity;

	if (cpus_online < 2)
		KT_SKIP("needs a second CPU");
	sched_set_params(me, -1, 1);            /* the waker on CPU 0, away from the waiter */
	while (cpu_id() != 0)
		sched_yield();
	kt_stop = false;
	kt_idle_posted = kt_idle_seen = 0;
	waitq_init(&kt_idle_wq);
	idle_poll_set_max(time_cycles_per_sec() / 50, true);
	KT_CHECK(thread_create_kernel_on("idlew", kt_idle_waiter, NULL, THREAD_PRIO_DEFAULT,
					 2, &w) == EOK, "create");
	idle_stats_t a, b;
	kt_idle_found = 0;
	idle_get_stats(1, &a);
	unsigned seen_on = kt_idle_round(200, true, &on);
	idle_get_stats(1, &b);
	idle_poll_set_max(0, false);
	kt_idle_settle();
	unsigned seen_off = kt_idle_round(200, false, &off);
	idle_poll_set_max(old, false);
	kt_stop = true;
	waitq_wake_all(&kt_idle_wq);
	thread_join(w, NULL);
	sched_set_params(me, -1, aff);
	printk("# idle poll: %u/200 seen, %lu IPIs saved (CPU 1 seen polling %u times; "
	       "its waits %lu, poll wake-ups %lu, halts %lu); off: %u/200, %lu\n", seen_on, on,
	       kt_idle_found, b.waits - a.waits, b.poll_wakes - a.poll_wakes, b.halts - a.halts,
	       seen_off, off);
	KT_CHECK(seen_on == 200 && seen_off == 200, "wake-ups seen: %u and %u of 200",
		 seen_on, seen_off);
	KT_CHECK(on > 0 && off == 0, "IPIs saved: %lu with polling, %lu without", on, off);
	return true;
}
