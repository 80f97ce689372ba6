/*
 * Unit tests for libc's stdio: buffering modes of stdout/stderr as seen at
 * the (fake) console, write errors and partial writes, cookie streams,
 * stdin at end of file, exit()'s flushing and atexit order, and the
 * printf family's return values.
 */
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include "libc_host.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

static void test_line_buffered_stdout(void)
{
	fake_reset();
	is_int(vl_printf("abc %d", 42), 6, "printf returns the length");
	is_str(fake_console(), "", "no newline: nothing written yet");
	vl_printf("|def\n");
	is_str(fake_console(), "abc 42|def\n", "newline flushes the line");
	is_int((int)fake.console_writes, 1, "in a single console write");
	fake_console_clear();
	vl_printf("one\ntwo");
	is_str(fake_console(), "one\ntwo", "a newline flushes everything buffered");
	fake_console_clear();
	vl_printf("tail");
	is_int(vl_fflush(vl_stdout), 0, "fflush returns 0");
	is_str(fake_console(), "tail", "fflush writes the partial line");
	fake_console_clear();
	vl_printf("%*s", 3000, "x");
	ok(fake.console_len == 2048, "a full buffer is written (%zu so far)",
	   fake.console_len);
	vl_fflush(NULL);
	is_int((int)fake.console_len, 3000, "fflush(NULL) writes the rest");
}

static void test_simple_output(void)
{
	fake_reset();
	is_int(vl_puts("line"), 0, "puts returns >= 0");
	is_str(fake_console(), "line\n", "puts adds a newline");
	is_int((int)fake.console_writes, 1, "one write for puts");
	fake_console_clear();
	is_int(vl_putchar('A'), 'A', "putchar returns the char");
	is_int(vl_fputc(0x1c8, vl_stdout), 0xc8, "fputc returns it as unsigned char");
	is_int((int)vl_fwrite("xyz", 1, 3, vl_stdout), 3, "fwrite returns items");
	is_int((int)vl_fwrite("abcdef", 2, 3, vl_stdout), 3, "fwrite of 2-byte items");
	is_int((int)vl_fwrite("abc", 0, 3, vl_stdout), 0, "fwrite of size 0");
	is_int(vl_fputs("!\n", vl_stdout), 0, "fputs returns >= 0");
	is_str(fake_console(), "A\xc8xyzabcdef!\n", "all of it arrives in order");
}

static void test_unbuffered_stderr(void)
{
	char big[2000];

	fake_reset();
	vl_fprintf(vl_stderr, "err %d %s", 7, "partial");
	is_str(fake_console(), "err 7 partial", "stderr is written at once");
	is_int((int)fake.console_writes, 1, "one write for a whole fprintf");
	fake_console_clear();
	memset(big, 'e', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	vl_fprintf(vl_stderr, "%s", big);
	is_int((int)fake.console_len, 1999, "long stderr output complete");
	ok(fake.console_writes <= 4, "in a few writes (%lu)", fake.console_writes);
	fake_console_clear();
	vl_fputc('c', vl_stderr);
	vl_fputs("s", vl_stderr);
	is_str(fake_console(), "cs", "fputc/fputs on stderr unbuffered");
	fake_console_clear();
	vl_errno = ENOENT;
	vl_perror("open");
	is_str(fake_console(), "open: No such file or directory\n", "perror");
}

static void test_write_errors(void)
{
	fake_reset();
	fake_force(SYS_CONSOLE_WRITE, -EIO);
	is_int(vl_printf("doomed\n"), -1, "printf reports a failed write");
	ok(vl_ferror(vl_stdout), "error indicator set");
	is_int(vl_puts("x"), VL_EOF, "puts reports it");
	is_int(vl_fputc('x', vl_stderr), VL_EOF, "fputc on stderr reports it");
	vl_clearerr(vl_stdout);
	vl_clearerr(vl_stderr);
	ok(!vl_ferror(vl_stdout), "clearerr");
	fake_reset();
	fake.console_chunk = 3;
	vl_printf("abcdefghij\n");
	is_str(fake_console(), "abcdefghij\n", "partial console writes are resumed");
	is_int((int)fake.console_writes, 4, "in 4 pieces of at most 3");
	fake_reset();
	fake_force(SYS_CONSOLE_WRITE, 0);
	is_int(vl_fprintf(vl_stderr, "zero"), -1, "a write of 0 bytes is an error");
	fake_reset();
	vl_clearerr(vl_stderr);
}

/* ---------------------------------------------------------------- cookies */

typedef struct membuf {
	char data[4096];
	size_t len;
	int writes;
	int closed;
	const char *src;   /* for reading */
	size_t pos;
} membuf_t;

static ssize_t mem_write(void *c, const char *buf, size_t n)
{
	membuf_t *m = c;

	memcpy(m->data + m->len, buf, n);
	m->len += n;
	m->data[m->len] = '\0';
	m->writes++;
	return (ssize_t)n;
}

static ssize_t mem_read(void *c, char *buf, size_t n)
{
	membuf_t *m = c;
	size_t left = strlen(m->src) - m->pos;
	size_t k = n < left ? n : left;

	if (k > 5)
		k = 5;   /* short reads */
	memcpy(buf, m->src + m->pos, k);
	m->pos += k;
	return (ssize_t)k;
}

static int mem_close(void *c)
{
	((membuf_t *)c)->closed++;
	return 0;
}

static void test_cookie_write(void)
{
	static membuf_t m;
	vl_cookie_io_t io = { .write = mem_write, .close = mem_close };

	memset(&m, 0, sizeof(m));
	vl_FILE *f = vl_fopencookie(&m, "w", io);
	ok(f != NULL, "fopencookie");
	vl_fprintf(f, "a=%d\n", 1);
	vl_fputs("b\n", f);
	is_int((int)m.len, 0, "cookie streams are fully buffered");
	vl_fflush(f);
	is_str(m.data, "a=1\nb\n", "fflush delivers");
	is_int(m.writes, 1, "in one write");
	is_int(vl_fgetc(f), VL_EOF, "reading a write-only stream fails");
	vl_fprintf(f, "c");
	is_int(vl_fclose(f), 0, "fclose");
	is_str(m.data, "a=1\nb\nc", "fclose flushes");
	is_int(m.closed, 1, "and calls close");

	memset(&m, 0, sizeof(m));
	f = vl_fopencookie(&m, "w", io);
	is_int(vl_setvbuf(f, NULL, VL_IONBF, 0), 0, "setvbuf before I/O");
	vl_fputs("x", f);
	is_str(m.data, "x", "unbuffered cookie stream writes at once");
	is_int(vl_setvbuf(f, NULL, VL_IOFBF, 0), -1, "setvbuf after I/O refused");
	vl_fclose(f);

	memset(&m, 0, sizeof(m));
	f = vl_fopencookie(&m, "w", io);
	static char lbuf[64];
	vl_setvbuf(f, lbuf, VL_IOLBF, sizeof(lbuf));
	vl_fputs("ab", f);
	is_int((int)m.len, 0, "line buffered: held");
	vl_fputs("c\nd", f);
	is_str(m.data, "abc\nd", "line buffered: newline flushes");
	vl_fclose(f);
	ok(vl_fopencookie(&m, "q", io) == NULL && vl_errno == EINVAL, "bad mode");
}

static void test_redirect_stdout(void)
{
	static membuf_t m;
	vl_cookie_io_t io = { .write = mem_write };

	memset(&m, 0, sizeof(m));
	fake_reset();
	vl_printf("before ");
	vl_fsetcookie(vl_stdout, &m, io);
	is_str(fake_console(), "before ", "fsetcookie flushes to the old back end");
	vl_printf("to memory\n");
	is_str(m.data, "to memory\n", "stdout now writes to the cookie");
}

static ssize_t console_via_write(void *c, const char *buf, size_t n)
{
	return vl_write(1, buf, n);
}

/* Put stdout back on the console, through write(1). */
static void restore_stdout(void)
{
	vl_cookie_io_t io = { .write = console_via_write };

	vl_fsetcookie(vl_stdout, NULL, io);
	fake_reset();
	vl_printf("back\n");
	is_str(fake_console(), "back\n", "stdout back on the console");
}

static void test_cookie_read(void)
{
	static membuf_t m;
	vl_cookie_io_t io = { .read = mem_read };
	char line[32];

	memset(&m, 0, sizeof(m));
	m.src = "first line\nsecond\nlast";
	vl_FILE *f = vl_fopencookie(&m, "r", io);
	ok(vl_fgets(line, sizeof(line), f) && strcmp(line, "first line\n") == 0,
	   "fgets reads a line across short reads");
	is_int(vl_fgetc(f), 's', "fgetc");
	is_int(vl_ungetc('S', f), 'S', "ungetc");
	ok(vl_fgets(line, 4, f) && strcmp(line, "Sec") == 0, "fgets honours size");
	char rest[32] = { 0 };
	is_int((int)vl_fread(rest, 1, sizeof(rest), f), 8, "fread the rest");
	is_str(rest, "ond\nlast", "fread data");
	ok(vl_feof(f), "end of file indicator");
	ok(vl_fgets(line, sizeof(line), f) == NULL, "fgets at EOF");
	vl_fclose(f);
}

typedef struct bigsrc {
	size_t left;       /* bytes still to give */
	int reads;         /* read calls */
	size_t widest;     /* the largest n asked for */
} bigsrc_t;

static ssize_t big_read(void *c, char *buf, size_t n)
{
	bigsrc_t *b = c;
	size_t k = n < b->left ? n : b->left;

	memset(buf, 'x', k);
	b->left -= k;
	b->reads++;
	b->widest = n > b->widest ? n : b->widest;
	return (ssize_t)k;
}

/* getc over a big stream asks the back end for a page at a time (a
 * 128-byte buffer made 5,800 file-service calls of a 740 KB file), fread
 * of much reads straight into the caller's buffer, and
 * a write-only stream refuses ungetc instead of writing a buffer it has
 * not got. */
static void test_read_buffer(void)
{
	bigsrc_t b = { .left = 100000 };
	vl_cookie_io_t io = { .read = big_read };
	vl_FILE *f = vl_fopencookie(&b, "r", io);
	size_t got = 0;

	while (vl_fgetc(f) != VL_EOF)
		got++;
	is_int((int)got, 100000, "getc reads all of a 100,000-byte stream");
	ok(b.widest >= 4096, "reads ask for 4 KiB at a time (asked for %zu)", b.widest);
	ok(b.reads <= 100000 / 4096 + 2, "%d read calls for 100,000 bytes", b.reads);
	vl_fclose(f);
	static char whole[100001];
	bigsrc_t w = { .left = 100000 };
	f = vl_fopencookie(&w, "r", io);
	is_int((int)vl_fread(whole, 1, 3, f), 3, "fread 3 bytes");
	is_int((int)vl_fread(whole, 1, sizeof(whole), f), 99997, "fread the rest whole");
	ok(w.reads <= 3 && whole[99996] == 'x', "fread of 100,000 bytes in %d read calls", w.reads);
	vl_fclose(f);
	static membuf_t m;
	vl_cookie_io_t wio = { .write = mem_write };
	memset(&m, 0, sizeof(m));
	f = vl_fopencookie(&m, "w", wio);
	is_int(vl_ungetc('z', f), VL_EOF, "ungetc on a write-only stream is EOF");
	vl_fclose(f);
	is_int(vl_ungetc('z', vl_stdout), VL_EOF, "ungetc on stdout is EOF");
}

static void test_stdin(void)
{
	char line[16];

	is_int(vl_getchar(), VL_EOF, "stdin is at end of file");
	ok(vl_feof(vl_stdin), "feof(stdin)");
	ok(vl_fgets(line, sizeof(line), vl_stdin) == NULL, "fgets(stdin) NULL");
	is_int((int)vl_fread(line, 1, 4, vl_stdin), 0, "fread(stdin) 0");
	is_int(vl_ungetc('q', vl_stdin), 'q', "ungetc on stdin");
	is_int(vl_getchar(), 'q', "reads the pushed-back char");
	is_int(vl_getchar(), VL_EOF, "then EOF again");
	is_int((int)vl_read(0, line, 4), 0, "read(0) returns 0");
	vl_errno = 0;
	ok(vl_read(3, line, 4) == -1 && vl_errno == VL_EBADF, "read(3) EBADF");
	ok(vl_write(7, "x", 1) == -1 && vl_errno == VL_EBADF, "write(7) EBADF");
	fake_reset();
	is_int((int)vl_write(2, "raw", 3), 3, "write(2)");
	is_str(fake_console(), "raw", "write goes straight to the console");
	ok(vl_fopen("/etc/motd", "r") == NULL && vl_errno == ENOSYS,
	   "fopen: ENOSYS for now");
}

static void test_strings(void)
{
	char buf[64], exp[64];
	char *s = NULL;

	is_int(vl_sprintf(buf, "%s-%05d", "n", 42), 7, "sprintf length");
	is_str(buf, "n-00042", "sprintf output");
	int rg = vl_snprintf(buf, 5, "%d", 123456789);
	int re = snprintf(exp, 5, "%d", 123456789);
	ok(rg == re && strcmp(buf, exp) == 0, "snprintf truncation like the host");
	is_int(vl_asprintf(&s, "%s=%lld", "v", -9000000000LL), 13, "asprintf length");
	is_str(s, "v=-9000000000", "asprintf output");
	vl_free(s);
}

/* ---------------------------------------------------------------- exit */

static int order[4], norder;

static void at1(void)
{
	order[norder++] = 1;
	vl_printf("at1\n");
}

static void at2(void)
{
	order[norder++] = 2;
}

static void test_exit(void)
{
	jmp_buf jb;

	fake_reset();
	fake.exit_jmp = &jb;
	is_int(vl_atexit(at1), 0, "atexit");
	is_int(vl_atexit(at2), 0, "atexit again");
	vl_printf("pending");
	if (setjmp(jb) == 0)
		vl_exit(3);
	is_int(fake.exit_status, 3, "exit status reaches SYS_EXIT");
	ok(norder == 2 && order[0] == 2 && order[1] == 1,
	   "handlers ran in reverse order");
	is_str(fake_console(), "pendingat1\n", "exit flushed stdout after handlers");

	fake_reset();
	fake.exit_jmp = &jb;
	vl_printf("unflushed");
	if (setjmp(jb) == 0)
		vl_abort();
	is_int(fake.exit_status, 134, "abort exits with 134");
	is_str(fake_console(), "", "abort does not flush");
	if (setjmp(jb) == 0)
		vl__Exit(9);
	is_int(fake.exit_status, 9, "_Exit");
	is_int(norder, 2, "no handlers for abort/_Exit");
	fake.exit_jmp = NULL;
	vl_fflush(vl_stdout);
	int full = 0;
	for (int i = 0; i < 40; i++)
		full += vl_atexit(at2) != 0;
	is_int(full, 8, "at most 32 handlers");
}

int main(void)
{
	test_line_buffered_stdout();
	test_simple_output();
	test_unbuffered_stderr();
	test_write_errors();
	test_cookie_write();
	test_redirect_stdout();
	restore_stdout();
	test_cookie_read();
	test_read_buffer();
	test_stdin();
	test_strings();
	test_exit();
	return done_testing();
}
