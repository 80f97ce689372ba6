/* Error messages for the abi/errno.h codes (and libc's own four). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	int code;
	const char *msg;
} messages[] = {
	{ EOK, "Success" },
	{ EPERM, "Operation not permitted" },
	{ ENOENT, "No such file or directory" },
	{ ESRCH, "No such task or thread" },
	{ EINTR, "Interrupted" },
	{ EIO, "Input/output error" },
	{ E2BIG, "Argument list too long" },
	{ ENOEXEC, "Exec format error" },
	{ EBADF, "Bad file descriptor" },
	{ EAGAIN, "Resource temporarily unavailable" },
	{ ENOMEM, "Out of memory" },
	{ EFAULT, "Bad address" },
	{ EBUSY, "Device or resource busy" },
	{ EEXIST, "File exists" },
	{ ENOTDIR, "Not a directory" },
	{ EISDIR, "Is a directory" },
	{ EINVAL, "Invalid argument" },
	{ ENOSPC, "No space left on device" },
	{ EPIPE, "Broken pipe" },
	{ EDOM, "Numerical argument out of domain" },
	{ EDEADLK, "Resource deadlock avoided" },
	{ ERANGE, "Numerical result out of range" },
	{ ENOTTY, "Not a terminal" },
	{ ENAMETOOLONG, "File name too long" },
	{ ENOSYS, "Function not implemented" },
	{ EILSEQ, "Invalid or incomplete multibyte or wide character" },
	{ ENOTSUP, "Operation not supported" },
	{ ETIMEOUT, "Timed out" },
	{ ELIMIT, "Limit reached" },
	{ EHANGUP, "Other side hung up" },
	{ EGENERIC, "Generic error" },
};

/* The fixed message for err, or NULL. */
static const char *message(int err)
{
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		if (messages[i].code == err)
			return messages[i].msg;
	}
	return NULL;
}

int strerror_r(int err, char *buf, size_t size)
{
	const char *msg = message(err);
	size_t n;

	if (msg)
		n = strlcpy(buf, msg, size);
	else
		n = (size_t)snprintf(buf, size, "Unknown error %d", err);
	return n < size ? 0 : ERANGE;
}

char *strerror(int err)
{
	static char unknown[32];
	const char *msg = message(err);

	if (msg)
		return (char *)msg;
	strerror_r(err, unknown, sizeof(unknown));
	return unknown;
}
