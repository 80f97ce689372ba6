/*
 * vrun: a static Vernier program on Linux under ptrace (see vrun.h).
 * Every system call stops the tracee twice. At the entry stop the Vernier
 * number in orig_rax is either translated into the equivalent Linux call
 * (mmap, munmap, exit_group, sched_yield) or replaced by getpid, in which
 * case the tracer performs the call itself and writes its result into rax
 * at the exit stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vrun.h"

/* Vernier numbers (abi/syscall.h); not included to keep host names apart. */
enum {
	V_NULL = 0, V_EXIT = 1, V_CONSOLE_WRITE = 2, V_TASK_ID = 3,
	V_THREAD_ID = 4, V_YIELD = 11, V_SLEEP = 12, V_CLOCK = 13, V_MAP = 14,
	V_UNMAP = 15, V_IPC_CALL = 21,
};

typedef struct tracer {
	pid_t pid;
	vrun_result_t *r;
	bool emulated;      /* the current call is answered at its exit stop */
	long result;
} tracer_t;

static long read_console(tracer_t *t, uint64_t addr, uint64_t len)
{
	vrun_result_t *r = t->r;
	size_t room = sizeof(r->out) - 1 - r->out_len;
	size_t n = len < room ? len : room;
	struct iovec local = { r->out + r->out_len, n };
	struct iovec remote = { (void *)addr, n };

	if (n > 0 && process_vm_readv(t->pid, &local, 1, &remote, 1, 0) != (ssize_t)n)
		return -EFAULT;
	r->out_len += n;
	r->out[r->out_len] = '\0';
	return (long)len;
}

static long clock_ns(uint64_t id)
{
	struct timespec ts;

	if (id > 1)
		return -EINVAL;
	clock_gettime(id == 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Rewrite regs for a Linux call, or compute the result ourselves. */
static void translate(tracer_t *t, struct user_regs_struct *g)
{
	uint64_t n = g->orig_rax;

	t->emulated = true;
	t->r->syscalls++;
	switch (n) {
	case V_EXIT: g->orig_rax = SYS_exit_group; t->emulated = false; return;
	case V_MAP:
		g->orig_rax = SYS_mmap;
		g->r10 = MAP_PRIVATE | MAP_ANONYMOUS;
		g->r8 = (uint64_t)-1;
		g->r9 = 0;
		t->emulated = false;
		return;
	case V_UNMAP: g->orig_rax = SYS_munmap; t->emulated = false; return;
	case V_YIELD: g->orig_rax = SYS_sched_yield; t->emulated = false; return;
	case V_NULL: t->result = 0; break;
	case V_CONSOLE_WRITE: t->result = read_console(t, g->rdi, g->rsi); break;
	case V_TASK_ID: t->result = t->pid; break;
	case V_THREAD_ID: t->result = t->pid; break;
	case V_SLEEP: t->result = 0; break;
	case V_CLOCK: t->result = clock_ns(g->rdi); break;
	case V_IPC_CALL:        /* no naming service: no console server */
		t->result = -ENOENT;
		break;
	default: t->result = -ENOSYS; t->r->unknown++; break;
	}
	g->orig_rax = SYS_getpid;
}

#define VRUN_EXIT_NO_PTRACE 126  /* the child's exit status when TRACEME fails */
#define VRUN_EXIT_NO_EXEC 127    /* ... when execv fails */

/* Why a child that should have stopped at exec did not (VRUN_NO_*). */
static int start_failure(int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == VRUN_EXIT_NO_PTRACE)
		return VRUN_NO_PTRACE;
	if (WIFEXITED(st) && WEXITSTATUS(st) == VRUN_EXIT_NO_EXEC)
		return VRUN_NO_EXEC;
	return VRUN_NO_STOP;
}

/* Fork and exec path traced; 0 (*pid stopped at exec) or VRUN_NO_*. */
static int start(const char *path, char *const argv[], pid_t *pid)
{
	int st;

	*pid = fork();
	if (*pid < 0)
		return VRUN_NO_FORK;
	if (*pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(VRUN_EXIT_NO_PTRACE);
		execv(path, argv);
		_exit(VRUN_EXIT_NO_EXEC);
	}
	/* The exec stops the child with SIGTRAP before its first instruction. */
	if (waitpid(*pid, &st, 0) != *pid || !WIFSTOPPED(st)) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		return start_failure(st);
	}
	ptrace(PTRACE_SETOPTIONS, *pid, NULL,
	       (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	return 0;
}

/* Handle one syscall stop (entry or exit). */
static void on_syscall_stop(tracer_t *t, bool *entering)
{
	struct user_regs_struct g;

	ptrace(PTRACE_GETREGS, t->pid, NULL, &g);
	if (*entering) {
		translate(t, &g);
		ptrace(PTRACE_SETREGS, t->pid, NULL, &g);
	} else if (t->emulated) {
		g.rax = (uint64_t)t->result;
		ptrace(PTRACE_SETREGS, t->pid, NULL, &g);
	}
	*entering = !*entering;
}

bool vrun(const char *path, char *const argv[], vrun_result_t *r)
{
	tracer_t t = { .r = r };
	bool entering = true;
	int st, sig = 0;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->start_error = start(path, argv, &t.pid);
	if (r->start_error)
		return false;
	for (;;) {
		ptrace(PTRACE_SYSCALL, t.pid, NULL, (void *)(long)sig);
		sig = 0;
		if (waitpid(t.pid, &st, 0) != t.pid)
			return false;
		if (WIFEXITED(st)) {
			r->status = WEXITSTATUS(st);
			return true;
		}
		if (WIFSIGNALED(st)) {
			r->signal = WTERMSIG(st);
			return true;
		}
		if (WSTOPSIG(st) == (SIGTRAP | 0x80))
			on_syscall_stop(&t, &entering);
		else
			sig = WSTOPSIG(st);
	}
}
