/*
 * libc internals shared between its source files (not installed for
 * programs). Everything here is prefixed __libc_.
 */
#ifndef LIBC_INTERNAL_H
#define LIBC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A spinlock that yields the CPU after spinning a while. Zero is unlocked. */
typedef struct libc_lock {
	int locked;
} libc_lock_t;

#define LIBC_LOCK_INIT { 0 }

/* Take l, spinning (then yielding) while another thread holds it. */
void __libc_lock(libc_lock_t *l);
/* Take l if it is free; returns whether it was taken. */
bool __libc_trylock(libc_lock_t *l);
/* Release l, which the caller holds. */
void __libc_unlock(libc_lock_t *l);

/* Raw system calls with fewer arguments (see __vernier_syscall). */
long __libc_syscall0(long n);
long __libc_syscall1(long n, long a1);
long __libc_syscall2(long n, long a1, long a2);
long __libc_syscall3(long n, long a1, long a2, long a3);

/*
 * Flush every open stream (exit() calls it after the atexit handlers);
 * 0, or EOF if any stream failed.
 */
int __libc_stdio_flush_all(void);

/*
 * Program entry from crt0: run the constructors, call main, exit with its
 * result.
 */
__attribute__((noreturn)) void __libc_start(int argc, char **argv,
					    char **envp);

/* Start-up: the working directory from PWD (src/cwd.c). */
void __libc_cwd_init(void);
/* Start-up: standard descriptors from FD0..FD2 (src/stdfd.c). */
void __libc_stdfd_init(void);
/* Whether standard descriptor fd was started as "n:" (nothing). */
bool __libc_stdfd_null(int fd);
/* The spec standard descriptor fd was started with, or NULL (console). */
const char *__libc_stdfd_spec(int fd);

/*
 * The call profiler's runtime (src/cprof_rt.c): a thread about to start
 * will run on the stack [lo, lo + size). Only stores the range (no
 * system call); the thread's first hook sets up its part. Any thread.
 */
void __libc_cprof_stack(void *lo, size_t size);

/* The environment and argv[0] for messages ("?" if none). */
extern char **__libc_environ;
extern const char *__libc_progname;
/* Choose the stack protector's canary (first thing at start; stackprot.c). */
void __libc_stack_guard_init(void);

#endif
