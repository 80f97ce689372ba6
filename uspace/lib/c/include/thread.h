/*
 * Threads with stacks managed by libc. thread_start maps a stack, starts
 * fn(arg) on it, and when fn returns its value ends the thread as if by
 * thread_exit. thread_join waits for the thread, collects its value and
 * unmaps its stack: join every thread started here (like a pthread that
 * is not detached), or its stack stays mapped until the task ends.
 * There are no guard pages: a stack overflow corrupts memory below it.
 */
#ifndef _THREAD_H
#define _THREAD_H

#include <stddef.h>
#include <abi/errno.h>
#include <abi/task.h>

#define THREAD_STACK_DEFAULT (64 * 1024)

typedef long (*thread_fn_t)(void *arg);

/* Start fn(arg) with a THREAD_STACK_DEFAULT stack; its id goes to *tid. */
errno_t thread_start(thread_fn_t fn, void *arg, thread_id_t *tid);
/*
 * Like thread_start with a stack of stack_size bytes (rounded up to
 * pages; at least 4096).
 */
errno_t thread_start_stack(thread_fn_t fn, void *arg, size_t stack_size,
			   thread_id_t *tid);
/*
 * Wait for thread tid to end and store its value in *value (if not NULL);
 * unmaps the stack if thread_start made it. ESRCH for an unknown thread.
 */
errno_t thread_join(thread_id_t tid, long *value);
/* End the calling thread with value. */
__attribute__((noreturn)) void thread_exit(long value);
/* Id of the calling thread. */
thread_id_t thread_self(void);

#endif
