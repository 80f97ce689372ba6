/* ktest: the sleeping mutex (kernel/mutex.h). */
#include <kernel/ktest.h>
#include <kernel/mutex.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/time.h>

static kmutex_t kt_mutex = KMUTEX_INIT(kt_mutex, "ktest_mutex");
static uint64_t kt_mutex_count;        /* guarded by kt_mutex, not atomic */
static volatile bool kt_mutex_got;

static void kt_mutex_worker(void *arg)
{
	for (int i = 0; i < 500; i++) {
		kmutex_lock(&kt_mutex);
		uint64_t v = kt_mutex_count;
		if (i % 16 == 0)
			sched_yield();       /* give others a chance to barge in */
		kt_mutex_count = v + 1;
		kmutex_unlock(&kt_mutex);
	}
	thread_exit(0);
}

KTEST(mutex_exclusion, "mutex: 4 threads x 500 increments under a kmutex, none lost")
{
	thread_t *t[4];

	kt_mutex_count = 0;
	for (int i = 0; i < 4; i++)
		KT_CHECK(thread_create_kernel("ktmutex", kt_mutex_worker, NULL, &t[i]) == EOK,
			 "create %d failed", i);
	for (int i = 0; i < 4; i++)
		KT_CHECK(thread_join(t[i], NULL) == EOK, "join %d failed", i);
	KT_CHECK(kt_mutex_count == 2000, "count %lu, want 2000", kt_mutex_count);
	KT_CHECK(!kt_mutex.owner, "left held");
	return true;
}

static void kt_mutex_waiter(void *arg)
{
	kmutex_lock(&kt_mutex);
	kt_mutex_got = true;
	kmutex_unlock(&kt_mutex);
	thread_exit(0);
}

/* A waiter sleeps on the mutex's queue (it does not poll) until unlock. */
KTEST(mutex_sleeps, "mutex: a waiter sleeps on the mutex until the holder unlocks")
{
	thread_t *t;
	bool queued = false;

	kt_mutex_got = false;
	kmutex_lock(&kt_mutex);
	KT_CHECK(kmutex_held(&kt_mutex), "not held after lock");
	KT_CHECK(thread_create_kernel("ktmutex", kt_mutex_waiter, NULL, &t) == EOK, "create");
	for (uint64_t end = time_ns() + 1000000000ull; !queued && time_ns() < end;) {
		thread_sleep(1000000);
		queued = __atomic_load_n(&t->waiting_on, __ATOMIC_ACQUIRE) == &kt_mutex.wq;
	}
	bool got_early = kt_mutex_got;
	kmutex_unlock(&kt_mutex);
	KT_CHECK(thread_join(t, NULL) == EOK, "join failed");
	KT_CHECK(queued, "the waiter never slept on the mutex's queue");
	KT_CHECK(!got_early && kt_mutex_got, "took it while held (%d) or never (%d)", got_early,
		 kt_mutex_got);
	return true;
}
