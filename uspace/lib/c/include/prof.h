/*
 * The statistical profiler's client side: typed wrappers for the
 * KBOX_PROF_* methods of <abi/profile.h> (the stream they deliver is
 * read with <lib/profreport.h>).
 *
 * A session lives on a phone to a task's kernel answerbox: prof_connect
 * to the task to profile (for a whole-system session, to the caller's own
 * task), then prof_task_begin or prof_system_begin, prof_read until the
 * state is PROF_STATE_ENDED, prof_disconnect. Every function returns an
 * errno_t (EOK or an abi/errno.h code, see <abi/profile.h> for which);
 * result pointers may be NULL when the result is not wanted.
 */
#ifndef _PROF_H
#define _PROF_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>
#include <abi/profile.h>
#include <abi/task.h>

/* What a session is asked for (BEGIN's arguments). */
typedef struct prof_params {
	unsigned source;           /* PROF_SRC_* */
	unsigned hz;               /* samples per second per CPU */
	unsigned flags;            /* PROF_F_* */
	unsigned depth;            /* call chain limit (with PROF_F_CALLCHAIN) */
} prof_params_t;

/*
 * Connect a phone to task's kernel answerbox into *phone. ESRCH: no such
 * task; EPERM: task is neither our child nor ourselves and we lack
 * PERM_PROFILE.
 */
errno_t prof_connect(task_id_t task, int *phone);
/* Hang up a phone from prof_connect (ending its session, if any). */
errno_t prof_disconnect(int phone);

/*
 * Begin a session on phone profiling the kbox's task (task) or every CPU
 * (system) with p; the source and rate really used go to *source and *hz.
 */
errno_t prof_task_begin(int phone, const prof_params_t *p, unsigned *source,
			unsigned *hz);
errno_t prof_system_begin(int phone, const prof_params_t *p, unsigned *source,
			  unsigned *hz);
/* End the session (what is buffered can still be read). */
errno_t prof_end(int phone);
/* Stop / restart taking samples. */
errno_t prof_pause(int phone);
errno_t prof_resume(int phone);
/*
 * Wait (at most about PROF_READ_TIMEOUT_MS) for stream bytes: whole
 * records into buf (size >= PROF_READ_MIN), their count to *got and the
 * session's PROF_STATE_* to *state (ENDED with 0 bytes: nothing is left).
 */
errno_t prof_read(int phone, void *buf, size_t size, size_t *got,
		  unsigned *state);
/* The session's counters into *st. */
errno_t prof_status(int phone, prof_status_t *st);
/* Start a task spawned stopped (KBOX_TASK_START on its kbox phone). */
errno_t prof_task_start(int phone);

#endif
