/*
 * Signals, the C subset. Vernier has no asynchronous signals: a task ends
 * by exiting, by SYS_KILL (status TASK_STATUS_KILLED) or by a fault the
 * kernel reports and kills it for (#PF, #DE, #UD...: the kernel's report
 * names the fault and the function; no handler runs). So a signal reaches
 * a program only through raise() (and abort(), which raises SIGABRT):
 * signal() records a handler per signal, raise() runs it, or the default
 * action (ending the task with exit status 128 + sig, as a shell shows a
 * signal death; SIGCHLD, SIGURG and SIGWINCH are ignored by default), or
 * nothing for SIG_IGN. A handler stays installed after it runs (BSD
 * semantics). The fault signals SIGFPE, SIGILL, SIGSEGV, SIGBUS exist so
 * that programs build and can raise() them. The handler table is shared
 * by the task's threads.
 */
#ifndef _SIGNAL_H
#define _SIGNAL_H

typedef int sig_atomic_t;
typedef void (*sighandler_t)(int);

#define SIG_DFL ((sighandler_t)0)
#define SIG_IGN ((sighandler_t)1)
#define SIG_ERR ((sighandler_t)-1)

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGURG 23
#define SIGWINCH 28
#define NSIG 32

/*
 * Install handler for sig; returns the previous one, or SIG_ERR with
 * errno = EINVAL for a bad number or SIGKILL/SIGSTOP.
 */
sighandler_t signal(int sig, sighandler_t handler);
/* Deliver sig to the calling thread now: 0, or -1 (EINVAL) for a bad sig. */
int raise(int sig);

#endif
