/*
 * POSIX threads, a subset over Vernier's threads (<thread.h>):
 * create/join/detach/exit/self/equal, mutexes (normal, recursive,
 * error-checking; trylock), condition variables (wait, timedwait against
 * CLOCK_REALTIME or, with pthread_condattr_setclock, CLOCK_MONOTONIC;
 * signal, broadcast), pthread_once and thread-specific data.
 *
 * The kernel has no futex, so a contended mutex spins briefly and then
 * yields, and a condition wait polls its sequence number (yields, then
 * sleeps of up to 1 ms): correct, but a waiter may wake up to 1 ms late.
 * pthread_cond_signal wakes every waiter (POSIX allows spurious wake-ups).
 * A detached thread's stack and kernel record are reclaimed by the next
 * pthread_create or pthread_detach after it ends. Thread-specific data
 * is found by thread id (a system call and a short list walk).
 * Not provided: cancellation, read-write locks, barriers, spin locks,
 * scheduling attributes, process-shared objects, pthread_kill/sigmask.
 */
#ifndef _PTHREAD_H
#define _PTHREAD_H

#include <stddef.h>
#include <time.h>

typedef unsigned long pthread_t;

typedef struct pthread_attr {
	int detached;
	size_t stack_size;
} pthread_attr_t;

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1
#define PTHREAD_STACK_MIN 16384

typedef struct pthread_mutex {
	int locked;
	int type;
	unsigned long owner;      /* recursive/error-checking types */
	unsigned count;
} pthread_mutex_t;

typedef struct pthread_mutexattr {
	int type;
} pthread_mutexattr_t;

#define PTHREAD_MUTEX_NORMAL 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT PTHREAD_MUTEX_NORMAL
#define PTHREAD_MUTEX_INITIALIZER { 0, PTHREAD_MUTEX_NORMAL, 0, 0 }
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP \
	{ 0, PTHREAD_MUTEX_RECURSIVE, 0, 0 }

typedef struct pthread_cond {
	unsigned seq;
	int clock;
} pthread_cond_t;

typedef struct pthread_condattr {
	int clock;
} pthread_condattr_t;

#define PTHREAD_COND_INITIALIZER { 0, CLOCK_REALTIME }

typedef int pthread_once_t;
#define PTHREAD_ONCE_INIT 0

typedef unsigned pthread_key_t;
#define PTHREAD_KEYS_MAX 64
#define PTHREAD_DESTRUCTOR_ITERATIONS 4

/* Errors are returned (EINVAL, EAGAIN, ENOMEM, ESRCH...), errno is kept. */
int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg);
int pthread_join(pthread_t t, void **value);
int pthread_detach(pthread_t t);
__attribute__((noreturn)) void pthread_exit(void *value);
pthread_t pthread_self(void);
int pthread_equal(pthread_t a, pthread_t b);

int pthread_attr_init(pthread_attr_t *a);
int pthread_attr_destroy(pthread_attr_t *a);
int pthread_attr_setdetachstate(pthread_attr_t *a, int state);
int pthread_attr_getdetachstate(const pthread_attr_t *a, int *state);
int pthread_attr_setstacksize(pthread_attr_t *a, size_t size);
int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *size);

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int pthread_mutex_destroy(pthread_mutex_t *m);
int pthread_mutex_lock(pthread_mutex_t *m);
/* EBUSY if another thread holds it (or it is a normal one we hold). */
int pthread_mutex_trylock(pthread_mutex_t *m);
/* EPERM for an error-checking/recursive mutex the caller does not hold. */
int pthread_mutex_unlock(pthread_mutex_t *m);
int pthread_mutexattr_init(pthread_mutexattr_t *a);
int pthread_mutexattr_destroy(pthread_mutexattr_t *a);
int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type);

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int pthread_cond_destroy(pthread_cond_t *c);
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
/* ETIMEDOUT once abstime (on the condition's clock) has passed. */
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
			   const struct timespec *abstime);
int pthread_cond_signal(pthread_cond_t *c);
int pthread_cond_broadcast(pthread_cond_t *c);
int pthread_condattr_init(pthread_condattr_t *a);
int pthread_condattr_destroy(pthread_condattr_t *a);
int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock);
int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clock);

int pthread_once(pthread_once_t *once, void (*fn)(void));

/* EAGAIN when PTHREAD_KEYS_MAX keys exist. */
int pthread_key_create(pthread_key_t *key, void (*dtor)(void *));
int pthread_key_delete(pthread_key_t key);
void *pthread_getspecific(pthread_key_t key);
/* ENOMEM if the calling thread's record cannot be allocated. */
int pthread_setspecific(pthread_key_t key, const void *value);

#endif
