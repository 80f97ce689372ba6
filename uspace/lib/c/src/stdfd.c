/*
 * Standard descriptors from the environment. A parent (the shell, through
 * spawn()) redirects a child's descriptor n (0, 1, 2) by giving it the
 * environment variable FDn with a spec:
 *
 *   r:PATH    read PATH            w:PATH    write PATH from its start
 *   a:PATH    append to PATH       n:        nothing: reads see end of
 *                                            file, writes are discarded
 *
 * PATH may be a file or a pipe end (/pipe/ID). Without FDn the descriptor
 * is the console's. At start-up libc opens the specs and points stdin,
 * stdout and stderr at them (a file gets full buffering); the specs are
 * what spawn() passes on to grandchildren by default.
 */
#include <console.h>
#include <errno.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_client.h"
#include "libc.h"

#define STDFD_SPEC_MAX (FS_PATH_MAX + 2)

static const char *const stdfd_names[3] = { "FD0", "FD1", "FD2" };
static char stdfd_specs[3][STDFD_SPEC_MAX];
static bool stdfd_nulls[3];

/* open() flags for a spec's mode letter; -1 if it is not one. */
static int stdfd_flags(char mode)
{
	switch (mode) {
	case 'r': return O_RDONLY;
	case 'w': return O_WRONLY;
	case 'a': return O_WRONLY | O_APPEND;
	default: return -1;
	}
}

/* Open spec as descriptor fd; 0, or an errno value. */
static int stdfd_open(int fd, const char *spec)
{
	if (strlen(spec) >= STDFD_SPEC_MAX || spec[0] == '\0' || spec[1] != ':')
		return EINVAL;
	if (spec[0] == 'n') {
		stdfd_nulls[fd] = true;
	} else {
		int flags = stdfd_flags(spec[0]);
		if (flags < 0)
			return EINVAL;
		if (__libc_fs_open_at(fd, spec + 2, flags) < 0)
			return errno;
	}
	strcpy(stdfd_specs[fd], spec);
	return 0;
}

static ssize_t null_read(void *cookie, char *buf, size_t n)
{
	return 0;
}

static ssize_t null_write(void *cookie, const char *buf, size_t n)
{
	return (ssize_t)n;
}

static const cookie_io_functions_t null_io = {
	.read = null_read, .write = null_write,
};

/* Point stream f (descriptor fd) at its redirection, if it has one. */
static void stdfd_stream(FILE *f, int fd)
{
	if (stdfd_nulls[fd]) {
		fsetcookie(f, NULL, null_io);
	} else if (__libc_fs_fd_open(fd)) {
		fsetcookie(f, (void *)(intptr_t)fd, __libc_fd_io);
		if (fd == STDOUT_FILENO)
			setvbuf(f, NULL, _IOFBF, BUFSIZ);
	}
}

void __libc_stdfd_init(void)
{
	int failed[3];

	for (int fd = 0; fd < 3; fd++) {
		const char *spec = getenv(stdfd_names[fd]);
		failed[fd] = spec ? stdfd_open(fd, spec) : 0;
	}
	stdfd_stream(stdin, STDIN_FILENO);
	stdfd_stream(stdout, STDOUT_FILENO);
	stdfd_stream(stderr, STDERR_FILENO);
	for (int fd = 0; fd < 3; fd++)
		if (failed[fd])
			fprintf(stderr, "%s: cannot open %s (%s): %s\n",
				__libc_progname, stdfd_names[fd],
				getenv(stdfd_names[fd]), strerror(failed[fd]));
}

bool __libc_stdfd_null(int fd)
{
	return fd >= 0 && fd < 3 && stdfd_nulls[fd];
}

const char *__libc_stdfd_spec(int fd)
{
	return fd >= 0 && fd < 3 && stdfd_specs[fd][0] ? stdfd_specs[fd] : NULL;
}

/* Whether fd is the console (a terminal). */
int isatty(int fd)
{
	bool console = fd >= 0 && fd <= 2 && !stdfd_nulls[fd] &&
		       !__libc_fs_fd_open(fd);

	if (!console)
		errno = __libc_fs_fd_open(fd) || (fd >= 0 && fd <= 2) ? ENOTTY : EBADF;
	return console;
}
