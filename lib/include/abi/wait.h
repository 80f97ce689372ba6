/*
 * Why a thread is off its CPU (issue 17: off-CPU and wall-clock
 * profiling). The kernel keeps, for every thread, the reason of its
 * current or last wait and the cycles it spent off its CPU by reason
 * since it first ran (sysinfo_thread_t). The reasons:
 *
 *   RUNNABLE  ready but not running: preempted, or it yielded
 *   SLEEP     sleep (SYS_SLEEP)
 *   IPC       waiting for the answer to a call: task and method say to
 *             whom (the callee it called; a forward may move the call on)
 *   RECV      waiting for calls or notifications (a server with nothing
 *             to do, or a client polling its box)
 *   JOIN      waiting for a thread of its task to end
 *   CHILD     waiting for a child task to end
 *   WAIT      any other kernel wait queue (a kernel mutex, a kbox read)
 *
 * NONE is a running thread's (and the reason of a thread that has not
 * waited yet).
 */
#ifndef ABI_WAIT_H
#define ABI_WAIT_H

#define WAIT_WHY_NONE 0
#define WAIT_WHY_RUNNABLE 1
#define WAIT_WHY_SLEEP 2
#define WAIT_WHY_IPC 3
#define WAIT_WHY_RECV 4
#define WAIT_WHY_JOIN 5
#define WAIT_WHY_CHILD 6
#define WAIT_WHY_WAIT 7
#define WAIT_WHY_COUNT 8

/* Short names, by WAIT_WHY_* (index WAIT_WHY_COUNT: out of range). */
#define WAIT_WHY_NAMES { "run", "runnable", "sleep", "ipc", "recv", "join", "child", "wait", "?" }

#endif
