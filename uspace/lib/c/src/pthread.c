/*
 * POSIX threads over <thread.h> (see <pthread.h> for the subset and its
 * limits). Every thread pthread_create starts has a record (its id, start
 * function, detach state and thread-specific values) in one list; other
 * threads (main, thread_start's) get one when they first set a value.
 *
 * Lock order: records_lock alone (keys are read and written under it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <thread.h>
#include <vernier.h>

#include "libc.h"

#define MUTEX_SPINS 128
#define COND_YIELDS 1000
#define COND_SLEEP_NS 1000000L
#define NS_PER_SEC 1000000000L

typedef struct pt_rec {
	struct pt_rec *next;
	pthread_t tid;
	int detached;
	int done;                     /* its start function has returned */
	void *(*fn)(void *);
	void *arg;
	void *values[PTHREAD_KEYS_MAX];
} pt_rec_t;

typedef struct pt_key {
	int used;
	void (*dtor)(void *);
} pt_key_t;

static pt_rec_t *records;
static pt_key_t keys[PTHREAD_KEYS_MAX];
static libc_lock_t records_lock = LIBC_LOCK_INIT;

/* ---------------------------------------------------------------- records */

static pt_rec_t *find_locked(pthread_t tid)
{
	for (pt_rec_t *r = records; r; r = r->next) {
		if (__atomic_load_n(&r->tid, __ATOMIC_ACQUIRE) == tid)
			return r;
	}
	return NULL;
}

static pt_rec_t *find(pthread_t tid)
{
	__libc_lock(&records_lock);
	pt_rec_t *r = find_locked(tid);
	__libc_unlock(&records_lock);
	return r;
}

static void insert(pt_rec_t *r)
{
	__libc_lock(&records_lock);
	r->next = records;
	records = r;
	__libc_unlock(&records_lock);
}

static void unlink_rec(pt_rec_t *r)
{
	__libc_lock(&records_lock);
	for (pt_rec_t **pp = &records; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	__libc_unlock(&records_lock);
}

/* The caller's record; made (if create) for threads without one. */
static pt_rec_t *self_rec(bool create)
{
	pthread_t me = pthread_self();
	pt_rec_t *r = find(me);

	if (r || !create)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->tid = me;
	insert(r);
	return r;
}

/* Join and free detached threads that have finished. */
static void reap_detached(void)
{
	pt_rec_t *dead = NULL;

	__libc_lock(&records_lock);
	for (pt_rec_t **pp = &records; *pp;) {
		pt_rec_t *r = *pp;
		if (r->detached && __atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
			*pp = r->next;
			r->next = dead;
			dead = r;
		} else {
			pp = &r->next;
		}
	}
	__libc_unlock(&records_lock);
	while (dead) {
		pt_rec_t *next = dead->next;
		thread_join(dead->tid, NULL);   /* it is at its thread_exit */
		free(dead);
		dead = next;
	}
}

/* Run the destructors of r's non-NULL values (a few rounds). */
static void run_destructors(pt_rec_t *r)
{
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		bool any = false;
		for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
			__libc_lock(&records_lock);
			void (*dtor)(void *) = keys[k].used ? keys[k].dtor : NULL;
			void *v = r->values[k];
			if (dtor && v)
				r->values[k] = NULL;
			__libc_unlock(&records_lock);
			if (dtor && v) {
				dtor(v);
				any = true;
			}
		}
		if (!any)
			return;
	}
}

static __attribute__((noreturn)) void finish(pt_rec_t *r, void *value)
{
	if (r) {
		run_destructors(r);
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	}
	thread_exit((long)value);
}

static long entry(void *arg)
{
	pt_rec_t *r = arg;

	__atomic_store_n(&r->tid, pthread_self(), __ATOMIC_RELEASE);
	finish(r, r->fn(r->arg));
}

/* ---------------------------------------------------------------- threads */

static int thread_error(errno_t e)
{
	return e == ELIMIT ? EAGAIN : e;
}

/* Start fn(arg) in a new thread with a record; 0 or EAGAIN/ENOMEM. */
int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	size_t stack = attr && attr->stack_size ? attr->stack_size :
		THREAD_STACK_DEFAULT;
	pt_rec_t *r;
	thread_id_t tid;

	reap_detached();
	r = calloc(1, sizeof(*r));
	if (!r)
		return EAGAIN;
	r->fn = fn;
	r->arg = arg;
	r->detached = attr && attr->detached;
	insert(r);
	errno_t e = thread_start_stack(entry, r, stack, &tid);
	if (e != EOK) {
		unlink_rec(r);
		free(r);
		return thread_error(e);
	}
	__atomic_store_n(&r->tid, tid, __ATOMIC_RELEASE);
	*t = tid;
	return 0;
}

/* Wait for t, take its value, free its record; EDEADLK, EINVAL, ESRCH. */
int pthread_join(pthread_t t, void **value)
{
	pt_rec_t *r = find(t);
	long v;

	if (t == pthread_self())
		return EDEADLK;
	if (r && r->detached)
		return EINVAL;
	errno_t e = thread_join(t, &v);
	if (e != EOK)
		return e;
	if (r) {
		unlink_rec(r);
		free(r);
	}
	if (value)
		*value = (void *)v;
	return 0;
}

/* Let t's end free it (at the next create/detach); ESRCH, EINVAL. */
int pthread_detach(pthread_t t)
{
	__libc_lock(&records_lock);
	pt_rec_t *r = find_locked(t);
	int rc = !r ? ESRCH : r->detached ? EINVAL : 0;
	if (rc == 0)
		r->detached = 1;
	__libc_unlock(&records_lock);
	reap_detached();
	return rc;
}

/* Run the caller's destructors and end its thread with value. */
void pthread_exit(void *value)
{
	finish(self_rec(false), value);
}

/* The calling thread's id. */
pthread_t pthread_self(void)
{
	return thread_self();
}

/* Whether two ids name the same thread. */
int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

/* Joinable, default stack. */
int pthread_attr_init(pthread_attr_t *a)
{
	a->detached = PTHREAD_CREATE_JOINABLE;
	a->stack_size = 0;
	return 0;
}

/* Nothing to free. */
int pthread_attr_destroy(pthread_attr_t *a)
{
	(void)a;
	return 0;
}

/* PTHREAD_CREATE_JOINABLE or _DETACHED; EINVAL otherwise. */
int pthread_attr_setdetachstate(pthread_attr_t *a, int state)
{
	if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	a->detached = state;
	return 0;
}

/* The detach state. */
int pthread_attr_getdetachstate(const pthread_attr_t *a, int *state)
{
	*state = a->detached;
	return 0;
}

/* At least PTHREAD_STACK_MIN bytes, else EINVAL. */
int pthread_attr_setstacksize(pthread_attr_t *a, size_t size)
{
	if (size < PTHREAD_STACK_MIN)
		return EINVAL;
	a->stack_size = size;
	return 0;
}

/* The stack size a thread would get. */
int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *size)
{
	*size = a->stack_size ? a->stack_size : THREAD_STACK_DEFAULT;
	return 0;
}

/* ---------------------------------------------------------------- mutexes */

/* An unlocked mutex of a's type (normal without a). */
int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	m->locked = 0;
	m->type = a ? a->type : PTHREAD_MUTEX_NORMAL;
	m->owner = 0;
	m->count = 0;
	return 0;
}

/* EBUSY while locked. */
int pthread_mutex_destroy(pthread_mutex_t *m)
{
	return __atomic_load_n(&m->locked, __ATOMIC_RELAXED) ? EBUSY : 0;
}

static bool mutex_grab(pthread_mutex_t *m)
{
	return !__atomic_exchange_n(&m->locked, 1, __ATOMIC_ACQUIRE);
}

/* Owner checks of the recursive and error-checking types: -1 to go on. */
static int mutex_owned(pthread_mutex_t *m, pthread_t me)
{
	if (m->type == PTHREAD_MUTEX_NORMAL ||
	    !__atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) || m->owner != me)
		return -1;
	if (m->type == PTHREAD_MUTEX_ERRORCHECK)
		return EDEADLK;
	m->count++;
	return 0;
}

static void mutex_took(pthread_mutex_t *m, pthread_t me)
{
	m->owner = me;
	m->count = 1;
}

/* Take m (spin, then yield); relock: recursive counts, error-checking EDEADLK. */
int pthread_mutex_lock(pthread_mutex_t *m)
{
	pthread_t me = m->type == PTHREAD_MUTEX_NORMAL ? 0 : pthread_self();
	int rc = mutex_owned(m, me);
	unsigned spins = 0;

	if (rc >= 0)
		return rc;
	while (!mutex_grab(m)) {
		while (__atomic_load_n(&m->locked, __ATOMIC_RELAXED)) {
			__builtin_ia32_pause();
			if (++spins % MUTEX_SPINS == 0)
				sys_yield();
		}
	}
	mutex_took(m, me);
	return 0;
}

/* Take m if free, else EBUSY (a recursive owner counts). */
int pthread_mutex_trylock(pthread_mutex_t *m)
{
	pthread_t me = m->type == PTHREAD_MUTEX_NORMAL ? 0 : pthread_self();
	int rc = mutex_owned(m, me);

	if (rc == EDEADLK)
		return EBUSY;
	if (rc >= 0)
		return rc;
	if (!mutex_grab(m))
		return EBUSY;
	mutex_took(m, me);
	return 0;
}

/* Release m; EPERM for a recursive/error-checking one not held. */
int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (m->type != PTHREAD_MUTEX_NORMAL) {
		if (!__atomic_load_n(&m->locked, __ATOMIC_ACQUIRE) ||
		    m->owner != pthread_self())
			return EPERM;
		if (--m->count > 0)
			return 0;
		m->owner = 0;
	}
	__atomic_store_n(&m->locked, 0, __ATOMIC_RELEASE);
	return 0;
}

/* The default (normal) type. */
int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	a->type = PTHREAD_MUTEX_DEFAULT;
	return 0;
}

/* Nothing to free. */
int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
	(void)a;
	return 0;
}

/* NORMAL, RECURSIVE or ERRORCHECK; EINVAL otherwise. */
int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ERRORCHECK)
		return EINVAL;
	a->type = type;
	return 0;
}

/* The type. */
int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
	*type = a->type;
	return 0;
}

/* ---------------------------------------------------------------- conditions */

/* Sequence 0 on a's clock (CLOCK_REALTIME without a). */
int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	c->seq = 0;
	c->clock = a ? a->clock : CLOCK_REALTIME;
	return 0;
}

/* Nothing to free. */
int pthread_cond_destroy(pthread_cond_t *c)
{
	(void)c;
	return 0;
}

static long long clock_now(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* Wait until c->seq moves from seq or the deadline (ns, <0: none) passes. */
static int cond_poll(pthread_cond_t *c, unsigned seq, long long deadline)
{
	for (unsigned i = 0;; i++) {
		if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != seq)
			return 0;
		long long left = deadline < 0 ? COND_SLEEP_NS :
			deadline - clock_now(c->clock);
		if (left <= 0)
			return ETIMEDOUT;
		if (i < COND_YIELDS)
			sys_yield();
		else
			sys_sleep_ns(left < COND_SLEEP_NS ? (uint64_t)left :
				     COND_SLEEP_NS);
	}
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, long long deadline)
{
	unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	int rc = pthread_mutex_unlock(m);

	if (rc != 0)
		return rc;
	rc = cond_poll(c, seq, deadline);
	pthread_mutex_lock(m);
	return rc;
}

/* Release m, wait for a signal, retake m. */
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return cond_wait(c, m, -1);
}

/* pthread_cond_wait until abstime; ETIMEDOUT, EINVAL for a bad time. */
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
			   const struct timespec *abstime)
{
	if (abstime->tv_nsec < 0 || abstime->tv_nsec >= NS_PER_SEC ||
	    abstime->tv_sec < 0)
		return EINVAL;
	return cond_wait(c, m, (long long)abstime->tv_sec * NS_PER_SEC +
			 abstime->tv_nsec);
}

/* Wake the waiters (all of them: spurious wake-ups are allowed). */
int pthread_cond_signal(pthread_cond_t *c)
{
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Wake every waiter. */
int pthread_cond_broadcast(pthread_cond_t *c)
{
	return pthread_cond_signal(c);
}

/* CLOCK_REALTIME. */
int pthread_condattr_init(pthread_condattr_t *a)
{
	a->clock = CLOCK_REALTIME;
	return 0;
}

/* Nothing to free. */
int pthread_condattr_destroy(pthread_condattr_t *a)
{
	(void)a;
	return 0;
}

/* CLOCK_REALTIME or CLOCK_MONOTONIC; EINVAL otherwise. */
int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock)
{
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return EINVAL;
	a->clock = clock;
	return 0;
}

/* The clock. */
int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clock)
{
	*clock = a->clock;
	return 0;
}

/* ---------------------------------------------------------------- once, keys */

/* Run fn once; other callers wait until it has returned. */
int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	int expected = 0;

	if (__atomic_load_n(once, __ATOMIC_ACQUIRE) == 2)
		return 0;
	if (__atomic_compare_exchange_n(once, &expected, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fn();
		__atomic_store_n(once, 2, __ATOMIC_RELEASE);
		return 0;
	}
	while (__atomic_load_n(once, __ATOMIC_ACQUIRE) != 2)
		sys_yield();
	return 0;
}

/* A free key (values NULL everywhere); EAGAIN when all are used. */
int pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
{
	int rc = EAGAIN;

	__libc_lock(&records_lock);
	for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
		if (keys[k].used)
			continue;
		keys[k].used = 1;
		keys[k].dtor = dtor;
		for (pt_rec_t *r = records; r; r = r->next)
			r->values[k] = NULL;
		*key = k;
		rc = 0;
		break;
	}
	__libc_unlock(&records_lock);
	return rc;
}

/* Free key (its values are dropped, no destructor runs); EINVAL. */
int pthread_key_delete(pthread_key_t key)
{
	int rc = EINVAL;

	__libc_lock(&records_lock);
	if (key < PTHREAD_KEYS_MAX && keys[key].used) {
		keys[key].used = 0;
		rc = 0;
	}
	__libc_unlock(&records_lock);
	return rc;
}

/* The caller's value for key (NULL if none). */
void *pthread_getspecific(pthread_key_t key)
{
	pt_rec_t *r = key < PTHREAD_KEYS_MAX ? self_rec(false) : NULL;

	return r ? r->values[key] : NULL;
}

/* Set the caller's value for key; EINVAL, ENOMEM. */
int pthread_setspecific(pthread_key_t key, const void *value)
{
	if (key >= PTHREAD_KEYS_MAX || !keys[key].used)
		return EINVAL;
	pt_rec_t *r = self_rec(true);
	if (!r)
		return ENOMEM;
	r->values[key] = (void *)value;
	return 0;
}
