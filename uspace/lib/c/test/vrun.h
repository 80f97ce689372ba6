/*
 * Run a static Vernier program on the Linux host under ptrace, serving its
 * system calls: console output is captured, SYS_MAP/SYS_UNMAP become
 * mmap/munmap, SYS_EXIT ends it, clocks read the host's, sleeps return at
 * once, task/thread ids are the host's; anything else (spawn, threads...)
 * fails with ENOSYS. For end-to-end tests of crt0 and libc as built for
 * user space.
 */
#ifndef VRUN_H
#define VRUN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct vrun_result {
	char out[65536];         /* console output, NUL-terminated */
	size_t out_len;
	int status;              /* exit status, or -1 if killed */
	int signal;              /* the signal that killed it, or 0 */
	unsigned long syscalls;  /* Vernier system calls served */
	unsigned long unknown;   /* of which answered ENOSYS */
	int start_error;         /* why it did not start: VRUN_NO_* (0: it started) */
} vrun_result_t;

#define VRUN_NO_FORK 1           /* fork failed */
#define VRUN_NO_PTRACE 2         /* ptrace refused (PTRACE_TRACEME) */
#define VRUN_NO_EXEC 3           /* the program could not be executed */
#define VRUN_NO_STOP 4           /* it did not stop at exec as a traced child does */

/*
 * Run path with argv (NULL-terminated). Returns false if the program could
 * not be started or traced; r->start_error then says which (ptrace not
 * permitted is not the program failing to execute).
 */
bool vrun(const char *path, char *const argv[], vrun_result_t *r);

#endif
