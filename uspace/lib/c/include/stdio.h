/*
 * Standard I/O. Streams are buffered in user space and write through a
 * replaceable back end (a cookie and cookie_io_functions_t, as in glibc's
 * fopencookie): stdout and stderr go to the kernel console with
 * SYS_CONSOLE_WRITE until a console/file service exists; fsetcookie()
 * swaps the back end of an open stream. stdout is line buffered (flushed
 * at each newline, when full, by fflush and at exit), stderr unbuffered
 * (each call is still written with a single system call). stdin has no
 * source yet: every read reports end of file.
 *
 * Every stream has a lock, so each call is atomic with respect to other
 * threads using the same stream. fopen() opens files of the file service
 * (src/fs_stdio.c).
 */
#ifndef _STDIO_H
#define _STDIO_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

#define EOF (-1)
#define BUFSIZ 1024
#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define FILENAME_MAX 256
#define FOPEN_MAX 64
#define L_tmpnam 32
#define TMP_MAX 1000000

typedef struct _FILE FILE;

extern FILE *stdin;
extern FILE *stdout;
extern FILE *stderr;
#define stdin stdin
#define stdout stdout
#define stderr stderr

/* A stream's back end; a NULL function fails (read: end of file). */
typedef ssize_t cookie_read_function_t(void *cookie, char *buf, size_t size);
typedef ssize_t cookie_write_function_t(void *cookie, const char *buf,
					size_t size);
typedef int cookie_seek_function_t(void *cookie, off_t *offset, int whence);
typedef int cookie_close_function_t(void *cookie);
typedef struct {
	cookie_read_function_t *read;    /* bytes read, 0 at EOF, -1 error */
	cookie_write_function_t *write;  /* bytes written (> 0), or -1 */
	cookie_seek_function_t *seek;    /* unused for now */
	cookie_close_function_t *close;  /* called by fclose */
} cookie_io_functions_t;

/*
 * A fully buffered stream over io (mode "r", "w", "a", "r+"...: only
 * whether it reads and/or writes matters). NULL with errno on failure.
 */
FILE *fopencookie(void *cookie, const char *mode, cookie_io_functions_t io);
/* Vernier: flush f, then make it use cookie and io. Returns 0 or EOF. */
int fsetcookie(FILE *f, void *cookie, cookie_io_functions_t io);
/*
 * Open the file path (see <fcntl.h>) as a fully buffered stream; mode
 * "r", "w", "a", with "+", "b" (ignored), "x" (exclusive). NULL with errno.
 */
FILE *fopen(const char *path, const char *mode);
/*
 * Position f (whence SEEK_SET/CUR/END): output is flushed, buffered input
 * dropped, the end-of-file indicator cleared. 0, or -1 with errno.
 */
int fseek(FILE *f, long off, int whence);
/* f's position, or -1 with errno; rewind: fseek to 0 and clearerr. */
long ftell(FILE *f);
void rewind(FILE *f);
/* Move the file from to to (<unistd.h> has unlink); 0, or -1 with errno. */
int rename(const char *from, const char *to);
/* Remove the file or empty directory path: 0, or -1 with errno. */
int remove(const char *path);
/*
 * Close f's file (errors ignored) and open path with mode on f instead
 * (stdin/stdout/stderr may be redirected so); f, or NULL with errno (f is
 * then left without a file). path NULL (change the mode): NULL, EINVAL.
 */
FILE *freopen(const char *path, const char *mode, FILE *f);
/*
 * A name in /tmp no file has ("/tmp/tmp.TASK.N"), in s (L_tmpnam bytes)
 * or, if s is NULL, a static buffer (not thread-safe); NULL after TMP_MAX
 * names.
 */
char *tmpnam(char *s);
/*
 * A new file in /tmp opened "w+", already unlinked (it goes away when
 * closed, or when the task ends); NULL with errno on failure.
 */
FILE *tmpfile(void);
/* Flush, call the close function, free the stream. 0, or EOF on error. */
int fclose(FILE *f);
/*
 * Set the buffering mode (_IOFBF, _IOLBF, _IONBF) before any I/O on f;
 * buf of size bytes, or NULL for an internal buffer. 0, or -1 if refused.
 */
int setvbuf(FILE *f, char *buf, int mode, size_t size);
/* setvbuf(f, buf, buf ? _IOFBF : _IONBF, BUFSIZ). */
void setbuf(FILE *f, char *buf);

/* Write pending output of f (every stream if f is NULL); 0 or EOF. */
int fflush(FILE *f);
/* Write (unsigned char)c; returns it, or EOF on error. */
int fputc(int c, FILE *f);
/* fputc(c, f) and fputc(c, stdout). */
int putc(int c, FILE *f);
int putchar(int c);
/* Write s (no newline added); >= 0, or EOF on error. */
int fputs(const char *s, FILE *f);
/* Write s and a newline to stdout; >= 0, or EOF on error. */
int puts(const char *s);
/* Write n items of size bytes; returns the number of complete items. */
size_t fwrite(const void *ptr, size_t size, size_t n, FILE *f);

/* Next byte as an unsigned char, or EOF (end of file or error). */
int fgetc(FILE *f);
/* fgetc(f) and fgetc(stdin). */
int getc(FILE *f);
int getchar(void);
/* Push c back so the next read returns it (one byte guaranteed). */
int ungetc(int c, FILE *f);
/* Read a line (up to size-1 bytes, with its newline); NULL at EOF. */
char *fgets(char *s, int size, FILE *f);
/* Read up to n items of size bytes; returns the number of complete items. */
size_t fread(void *ptr, size_t size, size_t n, FILE *f);
/* The end-of-file and error indicators of f; clearerr resets both. */
int feof(FILE *f);
int ferror(FILE *f);
void clearerr(FILE *f);

/*
 * Formatted output (conversions: see <lib/fmt.h>; floating point in
 * lib/fmt_float.c, matching glibc). Return the number of bytes produced,
 * or a negative value on a write error. snprintf/vsnprintf write at most
 * size bytes including the NUL and return the untruncated length.
 */
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fprintf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sprintf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int vfprintf(FILE *f, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int vsprintf(char *buf, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Format into a malloc'd string stored in *out; length or -1 (ENOMEM). */
int asprintf(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int vasprintf(char **out, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Print "s: strerror(errno)\n" (just the message if s is NULL or ""). */
void perror(const char *s);

#endif
