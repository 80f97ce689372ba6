/*
 * errno and the error codes. The codes are the kernel's (abi/errno.h,
 * Linux numbering); C also requires EDOM and EILSEQ, and EBADF serves the
 * POSIX-style descriptor calls in <unistd.h>, EDEADLK the pthread locks:
 * those four are libc-only.
 *
 * errno is process-wide for now (there is no thread-local storage yet), so
 * threads that race on failing calls can see each other's codes.
 */
#ifndef _ERRNO_H
#define _ERRNO_H

#include <abi/errno.h>

#ifndef EBADF
#define EBADF 9      /* bad file descriptor (libc only) */
#endif
#ifndef EDOM
#define EDOM 33      /* argument outside a math function's domain (libc only) */
#endif
#ifndef EDEADLK
#define EDEADLK 35   /* the lock would deadlock (libc only: pthreads) */
#endif
#ifndef ETIMEDOUT
#define ETIMEDOUT ETIMEOUT   /* POSIX's name (pthread_cond_timedwait) */
#endif
#ifndef EILSEQ
#define EILSEQ 84    /* illegal byte sequence (libc only) */
#endif

/* Address of the calling thread's errno. */
int *__errno_location(void);
#define errno (*__errno_location())

#endif
