/*
 * A sleeping mutex for kernel threads: a waiter sleeps on the mutex's wait
 * queue until the holder hands it over, instead of polling. Not for
 * interrupt or NMI context; not recursive.
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <kernel/waitq.h>

struct thread;

typedef struct kmutex {
	waitq_t wq;                 /* its lock guards owner */
	struct thread *owner;       /* NULL when free */
} kmutex_t;

/* A static mutex named var (the lock's name for debugging: name). */
#define KMUTEX_INIT(var, name)                                                  \
	{ .wq = { .lock = SPINLOCK_INIT(name), .waiters = LIST_INIT((var).wq.waiters) }, \
	  .owner = NULL }

/* Set up a mutex at run time. */
void kmutex_init(kmutex_t *m, const char *name);

/* Take m, sleeping while another thread holds it. Thread context only. */
void kmutex_lock(kmutex_t *m);

/* Release m (the caller holds it) and wake the oldest waiter. */
void kmutex_unlock(kmutex_t *m);

/* True if the calling thread holds m. */
bool kmutex_held(const kmutex_t *m);

#endif
