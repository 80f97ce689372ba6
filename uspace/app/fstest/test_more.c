/* fstest: big files, the space limit, handles, stdio and bad clients. */
#include <stdlib.h>

#include "fstest.h"

#define MIB (1024 * 1024)

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed + (i >> 12));
}

static void test_mib(void)
{
	unsigned char *a = malloc(MIB), *b = malloc(MIB);

	fill(a, MIB, 7);
	memset(b, 0, MIB);
	uint64_t t0 = sys_clock_ns(CLOCK_MONOTONIC);
	bool w = write_file("/tmp/big", a, MIB, O_TRUNC);
	ssize_t r = read_file("/tmp/big", b, MIB);
	uint64_t ms = (sys_clock_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	tap_ok(w && r == MIB && !memcmp(a, b, MIB),
	       "big: 1 MiB file round trip (%lu ms)", (unsigned long)ms);
	tap_ok(unlink("/tmp/big") == 0, "big: unlink the 1 MiB file");
	free(a);
	free(b);
}

/* Write chunk after chunk to fd until an error; bytes written. */
static size_t write_until_error(int fd, const void *chunk, size_t n, int *err)
{
	size_t total = 0;

	for (;;) {
		errno = 0;
		ssize_t w = write(fd, chunk, n);
		if (w <= 0) {
			*err = errno;
			return total;
		}
		total += (size_t)w;        /* a short write: the next one fails */
	}
}

static void test_enospc(void)
{
	fs_info_t before, full, after;
	int err = 0;
	void *chunk = calloc(1, 64 * 1024);

	if (!tap_ok(fs_info(&before) == EOK, "space: FS_M_INFO answers"))
		return;
	tap_diag("tmpfs: %lu of %lu bytes used", (unsigned long)before.used,
		 (unsigned long)before.limit);
	int fd = open("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t total = write_until_error(fd, chunk, 64 * 1024, &err);
	fs_info(&full);
	tap_ok(err == ENOSPC && total + before.used + 4096 >= before.limit &&
	       full.used <= full.limit,
	       "space: writing past the limit gives ENOSPC after %lu bytes",
	       (unsigned long)total);
	errno = 0;
	tap_ok(open("/tmp/more", O_WRONLY | O_CREAT, 0644) == -1 || errno == 0,
	       "space: creating a file when full fails or fits");
	unlink("/tmp/more");
	close(fd);
	bool ok = unlink("/tmp/fill") == 0 && fs_info(&after) == EOK;
	tap_ok(ok && after.used == before.used,
	       "space: unlink gives the space back (%lu bytes used)",
	       (unsigned long)after.used);
	free(chunk);
}

void test_big(void)
{
	test_mib();
	test_enospc();
}

static void test_many(void)
{
	enum { N = 100 };
	int fds[N];
	fs_info_t before;
	bool ok = fs_info(&before) == EOK;

	for (int i = 0; i < N; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/tmp/h%d", i % 10);
		fds[i] = open(path, O_RDWR | O_CREAT, 0644);
		ok &= fds[i] >= 3;
	}
	ok &= pwrite(fds[N - 1], "z", 1, 0) == 1;
	tap_ok(ok && wait_handles(before.handles + N),
	       "handles: %d open at once", N);
	for (int i = 0; i < N; i++)
		ok &= close(fds[i]) == 0;
	tap_ok(ok && wait_handles(before.handles), "handles: all closed again");
	for (int i = 0; i < 10; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/tmp/h%d", i);
		unlink(path);
	}
}

static void test_dying_client(void)
{
	fs_info_t before;
	const char *open_argv[] = { "fstest", "child-open", "20", NULL };
	const char *use_argv[] = { "fstest", "child-use", NULL };

	fs_info(&before);
	int st = run_child(open_argv);
	tap_ok(st == 0, "handles: a child opened 20 files and exited (status %d)", st);
	tap_ok(wait_handles(before.handles),
	       "handles: the server closed the dead child's handles");
	st = run_child(use_argv);
	tap_ok(st == 0, "handles: a later client works (status %d)", st);
}

void test_handles(void)
{
	test_many();
	test_dying_client();
}

int child_open(int n)
{
	for (int i = 0; i < n; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/tmp/child%d", i % 4);
		if (open(path, O_RDWR | O_CREAT, 0644) < 0)
			return 1;
	}
	return 0;                       /* exit with them open */
}

int child_use(void)
{
	char buf[8] = { 0 };

	if (!write_file("/tmp/child-use", "alive", 5, O_TRUNC))
		return 1;
	if (read_file("/tmp/child-use", buf, sizeof(buf)) != 5)
		return 2;
	return unlink("/tmp/child-use") == 0 && !strcmp(buf, "alive") ? 0 : 3;
}

static void test_fopen(void)
{
	char line[64];
	FILE *f = fopen("/tmp/s.txt", "w");

	bool ok = f && fprintf(f, "line %d\nsecond %s\n", 1, "two") == 18;
	ok &= f && fclose(f) == 0;
	tap_ok(ok, "stdio: fopen \"w\", fprintf, fclose");
	f = fopen("/tmp/s.txt", "r");
	ok = f && fgets(line, sizeof(line), f) && !strcmp(line, "line 1\n");
	ok &= f && fgets(line, sizeof(line), f) && !strcmp(line, "second two\n");
	ok &= f && !fgets(line, sizeof(line), f) && feof(f);
	tap_ok(ok, "stdio: fopen \"r\" and fgets read the lines back, then EOF");
	ok = f && fseek(f, 5, SEEK_SET) == 0 && ftell(f) == 5 && fgetc(f) == '1';
	ok &= f && fseek(f, -4, SEEK_END) == 0 && fread(line, 1, 10, f) == 4 &&
		!memcmp(line, "two\n", 4);
	tap_ok(ok, "stdio: fseek, ftell, fread");
	if (f)
		fclose(f);
}

static void test_fopen_modes(void)
{
	char buf[32] = { 0 };
	FILE *f = fopen("/tmp/s.txt", "a");

	bool ok = f && fputs("more\n", f) >= 0 && fclose(f) == 0;
	f = fopen("/tmp/s.txt", "r+");
	ok &= f && fread(buf, 1, sizeof(buf) - 1, f) == 23 &&
		!strcmp(buf + 18, "more\n");
	if (f)
		fclose(f);
	tap_ok(ok, "stdio: fopen \"a\" appends");
	errno = 0;
	f = fopen("/tmp/none", "r");
	tap_ok(!f && errno == ENOENT, "stdio: fopen of a missing file is ENOENT");
	unlink("/tmp/s.txt");
}

void test_stdio(void)
{
	test_fopen();
	test_fopen_modes();
}

/* Calls a careless or hostile client might make; returns them all. */
static bool raw_abuse(int phone)
{
	static char buf[64];
	bool ok = true;

	ok &= ipc_call_sync(phone, FS_M_OPEN, O_RDONLY, 0, 0, 0, 0, NULL) == EINVAL;
	ok &= ipc_call_sync(phone, FS_M_CLOSE, 12345, 0, 0, 0, 0, NULL) == EINVAL;
	ok &= ipc_call_sync(phone, IPC_M_DATA_READ, (uintptr_t)buf, 64,
			    FS_DR_FILE, 7, 0, NULL) == EINVAL;
	ok &= ipc_call_sync(phone, IPC_M_DATA_WRITE, (uintptr_t)buf, 8, 99, 0,
			    0, NULL) == EINVAL;
	ok &= ipc_call_sync(phone, IPC_M_DATA_WRITE, 16, 8, FS_DW_PATH, 0, 0,
			    NULL) == EFAULT;
	ok &= ipc_call_sync(phone, FS_M_BASE + 99, 0, 0, 0, 0, 0, NULL) == ENOTSUP;
	ok &= ipc_call_sync(phone, IPC_M_DATA_READ, (uintptr_t)buf, 64,
			    FS_DR_READDIR, FS_STAGED, 0, NULL) == EINVAL;
	return ok;
}

/* Stage path as it is (no libc resolution) and open it; the result. */
static errno_t stage_open(int phone, const char *path)
{
	errno_t rc = ipc_call_sync(phone, IPC_M_DATA_WRITE, (uintptr_t)path,
				   strlen(path), FS_DW_PATH, 0, 0, NULL);
	return rc == EOK ? ipc_call_sync(phone, FS_M_OPEN, O_RDONLY, 0, 0, 0,
					 0, NULL) : rc;
}

void test_raw(void)
{
	int phone;
	char buf[8] = { 0 };

	if (!tap_ok(service_connect(FS_SERVICE, &phone) == EOK,
		    "raw: connect to \"fs\""))
		return;
	tap_ok(raw_abuse(phone), "raw: bad handles, tags, buffers and methods are refused");
	tap_ok(stage_open(phone, "tmp/a.txt") == EINVAL &&
	       stage_open(phone, "/tmp/../etc/motd") == EINVAL &&
	       stage_open(phone, "/tmp/./x") == EINVAL,
	       "raw: the server refuses relative, \"..\" and \".\" paths");
	sys_ipc_hangup(phone);
	write_file("/tmp/after", "ok", 2, O_TRUNC);
	tap_ok(read_file("/tmp/after", buf, sizeof(buf)) == 2 && !strcmp(buf, "ok"),
	       "raw: the server still works");
	unlink("/tmp/after");
}
