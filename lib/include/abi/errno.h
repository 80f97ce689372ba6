/*
 * Error codes shared by the kernel, user space and host tools.
 * Every fallible function returns errno_t: EOK on success, one of the
 * positive codes below on failure.
 */
#ifndef ABI_ERRNO_H
#define ABI_ERRNO_H

typedef int errno_t;

#define EOK        0   /* success */
#define EPERM      1   /* operation not permitted */
#define ENOENT     2   /* no such entry */
#define ESRCH      3   /* no such task or thread */
#define EINTR      4   /* interrupted */
#define EIO        5   /* input/output error */
#define E2BIG      7   /* argument list or object too big */
#define ENOEXEC    8   /* not an executable */
#define EAGAIN    11   /* try again */
#define ENOMEM    12   /* out of memory, or buffer too small */
#define EFAULT    14   /* bad address */
#define EBUSY     16   /* resource busy */
#define EEXIST    17   /* already exists */
#define ENOTDIR   20   /* not a directory */
#define EISDIR    21   /* is a directory */
#define EINVAL    22   /* invalid argument */
#define ENOTTY    25   /* not a terminal */
#define ENOSPC    28   /* no space left */
#define EPIPE     32   /* broken pipe */
#define ERANGE    34   /* result out of range */
#define ENAMETOOLONG 36 /* path name too long */
#define ENOSYS    38   /* no such system call */
#define ENOTSUP   95   /* not supported */
#define ETIMEOUT 110   /* timed out */
#define ELIMIT   200   /* a per-object limit was reached */
#define EHANGUP  201   /* the other side hung up */
#define EGENERIC 202   /* unspecified error */

#endif
