/*
 * Streams: buffering over the cookie back end, the standard streams and
 * the list of open streams. Formatted output is in src/printf.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "fs_client.h"
#include "stdio_impl.h"

static ssize_t console_write(void *cookie, const char *buf, size_t n)
{
	errno_t e = sys_console_write(buf, n);

	if (e != EOK) {
		errno = e;
		return -1;
	}
	return (ssize_t)n;
}

/* stdin has no source yet: always end of file. */
static ssize_t null_read(void *cookie, char *buf, size_t n)
{
	return 0;
}

static const cookie_io_functions_t console_io = {
	.read = NULL, .write = console_write, .seek = NULL, .close = NULL,
};
static const cookie_io_functions_t stdin_io = {
	.read = null_read, .write = NULL, .seek = NULL, .close = NULL,
};

static char stdout_buf[BUFSIZ];
static unsigned char stdin_rbuf[FILE_RBUF];

static FILE stderr_file = {
	.flags = FILE_WRITE, .mode = _IONBF, .io = console_io,
};
static FILE stdout_file = {
	.flags = FILE_WRITE, .mode = _IOLBF, .io = console_io,
	.wbuf = stdout_buf, .wsize = sizeof(stdout_buf), .next = &stderr_file,
};
static FILE stdin_file = {
	.flags = FILE_READ, .mode = _IOLBF, .io = stdin_io, .rbuf = stdin_rbuf,
	.next = &stdout_file,
};

FILE *stdin = &stdin_file;
FILE *stdout = &stdout_file;
FILE *stderr = &stderr_file;

static FILE *open_files = &stdin_file;
static libc_lock_t open_files_lock = LIBC_LOCK_INIT;

/* ---------------------------------------------------------------- output */

/* Write n bytes through the back end, looping over partial writes. */
static int file_write_through(FILE *f, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t r = f->io.write ? f->io.write(f->cookie, s, n) : -1;
		if (r <= 0 || (size_t)r > n) {
			f->flags |= FILE_ERR;
			return EOF;
		}
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

int __libc_file_flush(FILE *f)
{
	size_t n = f->wpos;

	f->wpos = 0;
	return n > 0 ? file_write_through(f, f->wbuf, n) : 0;
}

/* Copy into the buffer, flushing whenever it fills. */
static size_t file_buffer(FILE *f, const char *s, size_t n)
{
	size_t done = 0;

	while (done < n) {
		size_t room = f->wsize - f->wpos;
		size_t k = n - done < room ? n - done : room;
		memcpy(f->wbuf + f->wpos, s + done, k);
		f->wpos += k;
		done += k;
		if (f->wpos == f->wsize && __libc_file_flush(f) != 0)
			return done;
	}
	return done;
}

size_t __libc_file_write(FILE *f, const char *s, size_t n)
{
	f->flags |= FILE_USED;
	if (!(f->flags & FILE_WRITE)) {
		f->flags |= FILE_ERR;
		errno = EBADF;
		return 0;
	}
	if (!f->wbuf || f->mode == _IONBF)
		return file_write_through(f, s, n) == 0 ? n : 0;
	size_t done = file_buffer(f, s, n);
	if (done == n && f->mode == _IOLBF && memchr(s, '\n', n) &&
	    __libc_file_flush(f) != 0)
		return 0;
	return done;
}

void __libc_file_batch_begin(FILE *f, file_batch_t *b, char *tmp,
			     size_t size)
{
	b->active = f->mode == _IONBF || !f->wbuf;
	if (!b->active)
		return;
	b->wbuf = f->wbuf;
	b->wsize = f->wsize;
	b->mode = f->mode;
	f->wbuf = tmp;
	f->wsize = size;
	f->wpos = 0;
	f->mode = _IOFBF;
}

int __libc_file_batch_end(FILE *f, file_batch_t *b)
{
	if (!b->active)
		return 0;
	int r = __libc_file_flush(f);
	f->wbuf = b->wbuf;
	f->wsize = b->wsize;
	f->mode = b->mode;
	return r;
}

int fflush(FILE *f)
{
	if (!f)
		return __libc_stdio_flush_all();
	__libc_lock(&f->lock);
	int r = __libc_file_flush(f);
	__libc_unlock(&f->lock);
	return r;
}

int __libc_stdio_flush_all(void)
{
	int r = 0;

	__libc_lock(&open_files_lock);
	for (FILE *f = open_files; f; f = f->next) {
		if (fflush(f) != 0)
			r = EOF;
	}
	__libc_unlock(&open_files_lock);
	return r;
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *f)
{
	if (size == 0 || n == 0)
		return 0;
	size_t total = size * n;
	if (total / n != size) {
		errno = EINVAL;
		return 0;
	}
	__libc_lock(&f->lock);
	size_t done = __libc_file_write(f, ptr, total);
	__libc_unlock(&f->lock);
	return done / size;
}

int fputc(int c, FILE *f)
{
	char ch = (char)c;

	__libc_lock(&f->lock);
	size_t done = __libc_file_write(f, &ch, 1);
	__libc_unlock(&f->lock);
	return done == 1 ? (unsigned char)c : EOF;
}

int putc(int c, FILE *f)
{
	return fputc(c, f);
}

int putchar(int c)
{
	return fputc(c, stdout);
}

int fputs(const char *s, FILE *f)
{
	size_t n = strlen(s);

	__libc_lock(&f->lock);
	size_t done = __libc_file_write(f, s, n);
	__libc_unlock(&f->lock);
	return done == n ? 0 : EOF;
}

int puts(const char *s)
{
	size_t n = strlen(s);
	FILE *f = stdout;
	char tmp[256];
	file_batch_t batch;

	__libc_lock(&f->lock);
	__libc_file_batch_begin(f, &batch, tmp, sizeof(tmp));
	bool ok = __libc_file_write(f, s, n) == n &&
		__libc_file_write(f, "\n", 1) == 1;
	if (__libc_file_batch_end(f, &batch) != 0)
		ok = false;
	__libc_unlock(&f->lock);
	return ok ? 0 : EOF;
}

void perror(const char *s)
{
	const char *msg = strerror(errno);

	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, msg);
	else
		fprintf(stderr, "%s\n", msg);
}

/* ---------------------------------------------------------------- input */

/* f's input buffer, made at its first use (f->lock held): false if
 * f is not open for reading or there is no memory for it. */
static bool file_rbuf(FILE *f)
{
	if (!(f->flags & FILE_READ))
		return false;
	if (!f->rbuf) {
		f->rbuf = malloc(FILE_RBUF);
		if (!f->rbuf)
			return false;
		f->flags |= FILE_OWN_RBUF;
	}
	return true;
}

/* Up to n bytes from f's back end into p (f->lock held, f readable): the
 * count, 0 at end of file or on error (the indicator set). */
static size_t file_read_raw(FILE *f, void *p, size_t n)
{
	if (f == stdin)
		fflush(stdout);
	ssize_t r = f->io.read(f->cookie, p, n);
	if (r <= 0 || (size_t)r > n) {
		f->flags |= r == 0 ? FILE_EOF : FILE_ERR;
		return 0;
	}
	return (size_t)r;
}

/* Refill the read buffer; returns false at end of file or on error. */
static bool file_fill(FILE *f)
{
	if (!f->io.read || !file_rbuf(f)) {
		f->flags |= FILE_ERR;
		return false;
	}
	f->rlen = file_read_raw(f, f->rbuf, FILE_RBUF);
	f->rpos = 0;
	return f->rlen > 0;
}

/* Up to n bytes into p (f->lock held): what the buffer holds, then whole
 * buffers' worth straight from the back end (one fs call of up to 64 KiB
 * instead of one a 4 KiB page), the rest through the buffer; the count. */
static size_t file_read(FILE *f, unsigned char *p, size_t n)
{
	size_t done = 0;

	f->flags |= FILE_USED;
	while (done < n) {
		size_t k = f->rlen - f->rpos;
		if (k > 0) {
			k = k < n - done ? k : n - done;
			memcpy(p + done, f->rbuf + f->rpos, k);
			f->rpos += k;
			done += k;
		} else if (n - done >= FILE_RBUF && f->io.read && (f->flags & FILE_READ)) {
			if ((k = file_read_raw(f, p + done, n - done)) == 0)
				break;
			done += k;
		} else if (!file_fill(f)) {
			break;
		}
	}
	return done;
}

static int file_getc(FILE *f)
{
	f->flags |= FILE_USED;
	if (f->rpos == f->rlen && !file_fill(f))
		return EOF;
	return f->rbuf[f->rpos++];
}

int fgetc(FILE *f)
{
	__libc_lock(&f->lock);
	int c = file_getc(f);
	__libc_unlock(&f->lock);
	return c;
}

int getc(FILE *f)
{
	return fgetc(f);
}

int getchar(void)
{
	return fgetc(stdin);
}

int ungetc(int c, FILE *f)
{
	int r = EOF;

	if (c == EOF)
		return EOF;
	__libc_lock(&f->lock);
	if (!file_rbuf(f)) {
		r = EOF;
	} else if (f->rpos > 0) {
		f->rbuf[--f->rpos] = (unsigned char)c;
		r = (unsigned char)c;
	} else if (f->rlen < FILE_RBUF) {
		memmove(f->rbuf + 1, f->rbuf, f->rlen);
		f->rbuf[0] = (unsigned char)c;
		f->rlen++;
		r = (unsigned char)c;
	}
	if (r != EOF)
		f->flags &= ~(unsigned)FILE_EOF;
	__libc_unlock(&f->lock);
	return r;
}

char *fgets(char *s, int size, FILE *f)
{
	int n = 0;

	if (size <= 0)
		return NULL;
	__libc_lock(&f->lock);
	while (n < size - 1) {
		int c = file_getc(f);
		if (c == EOF)
			break;
		s[n++] = (char)c;
		if (c == '\n')
			break;
	}
	__libc_unlock(&f->lock);
	s[n] = '\0';
	return n > 0 ? s : NULL;
}

size_t fread(void *ptr, size_t size, size_t n, FILE *f)
{
	unsigned char *p = ptr;
	size_t total = size * n, done = 0;

	if (size == 0 || n == 0 || total / n != size)
		return 0;
	__libc_lock(&f->lock);
	done = file_read(f, p, total);
	__libc_unlock(&f->lock);
	return done / size;
}

int feof(FILE *f)
{
	return (f->flags & FILE_EOF) != 0;
}

int ferror(FILE *f)
{
	return (f->flags & FILE_ERR) != 0;
}

void clearerr(FILE *f)
{
	__libc_lock(&f->lock);
	f->flags &= ~(unsigned)(FILE_ERR | FILE_EOF);
	__libc_unlock(&f->lock);
}

/* ---------------------------------------------------------------- streams */

static unsigned mode_flags(const char *mode)
{
	unsigned flags = 0;

	if (mode[0] == 'r')
		flags = FILE_READ;
	else if (mode[0] == 'w' || mode[0] == 'a')
		flags = FILE_WRITE;
	if (strchr(mode, '+'))
		flags |= FILE_READ | FILE_WRITE;
	return flags;
}

FILE *fopencookie(void *cookie, const char *mode, cookie_io_functions_t io)
{
	unsigned flags = mode_flags(mode);

	if (flags == 0) {
		errno = EINVAL;
		return NULL;
	}
	FILE *f = calloc(1, sizeof(*f));
	char *buf = malloc(BUFSIZ);
	if (!f || !buf) {
		free(f);
		free(buf);
		return NULL;
	}
	f->flags = flags | FILE_MALLOCED | FILE_OWN_BUF;
	f->mode = _IOFBF;
	f->cookie = cookie;
	f->io = io;
	f->wbuf = buf;
	f->wsize = BUFSIZ;
	__libc_lock(&open_files_lock);
	f->next = open_files;
	open_files = f;
	__libc_unlock(&open_files_lock);
	return f;
}

int fsetcookie(FILE *f, void *cookie, cookie_io_functions_t io)
{
	__libc_lock(&f->lock);
	int r = __libc_file_flush(f);
	f->cookie = cookie;
	f->io = io;
	f->rpos = f->rlen = 0;
	__libc_unlock(&f->lock);
	return r;
}

FILE *fopen(const char *path, const char *mode)
{
	return __libc_fs_fopen(path, mode);
}

/* Close f's back end (after flushing) and leave f without one. */
static void drop_backend(FILE *f)
{
	__libc_file_flush(f);
	if (f->io.close)
		f->io.close(f->cookie);
	f->io = (cookie_io_functions_t){ 0 };
	f->cookie = NULL;
	f->rpos = f->rlen = 0;
}

/* Give f a newly opened file instead of its own; f or NULL (errno). */
FILE *freopen(const char *path, const char *mode, FILE *f)
{
	if (!path) {                  /* changing the mode only: unsupported */
		errno = EINVAL;
		return NULL;
	}
	__libc_lock(&f->lock);
	drop_backend(f);
	__libc_unlock(&f->lock);
	FILE *g = fopen(path, mode);
	if (!g)
		return NULL;
	__libc_lock(&f->lock);
	f->cookie = g->cookie;
	f->io = g->io;
	f->flags = (f->flags & ~(unsigned)(FILE_READ | FILE_WRITE | FILE_ERR |
					  FILE_EOF | FILE_USED)) |
		(g->flags & (FILE_READ | FILE_WRITE));
	__libc_unlock(&f->lock);
	g->io.close = NULL;           /* f owns the back end now */
	fclose(g);
	return f;
}

static void unlink_file(FILE *f)
{
	__libc_lock(&open_files_lock);
	for (FILE **pp = &open_files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	__libc_unlock(&open_files_lock);
}

int fclose(FILE *f)
{
	unlink_file(f);
	__libc_lock(&f->lock);
	int r = __libc_file_flush(f);
	if (f->io.close && f->io.close(f->cookie) != 0)
		r = EOF;
	if (f->flags & FILE_OWN_BUF)
		free(f->wbuf);
	f->wbuf = NULL;
	f->wsize = f->wpos = 0;
	if (f->flags & FILE_OWN_RBUF) {
		free(f->rbuf);
		f->rbuf = NULL;
		f->flags &= ~(unsigned)FILE_OWN_RBUF;
	}
	__libc_unlock(&f->lock);
	if (f->flags & FILE_MALLOCED)
		free(f);
	return r;
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	int r = -1;

	if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
		return -1;
	__libc_lock(&f->lock);
	if (!(f->flags & FILE_USED)) {
		if (mode != _IONBF && buf && size > 0) {
			if (f->flags & FILE_OWN_BUF)
				free(f->wbuf);
			f->flags &= ~(unsigned)FILE_OWN_BUF;
			f->wbuf = buf;
			f->wsize = size;
		}
		f->mode = mode;
		r = 0;
	}
	__libc_unlock(&f->lock);
	return r;
}

void setbuf(FILE *f, char *buf)
{
	setvbuf(f, buf, buf ? _IOFBF : _IONBF, BUFSIZ);
}
