/*
 * fstest: pipes (FS_M_MKPIPE, "/pipe/ID", libc's pipe()). A read of an
 * empty pipe holds libc's file lock, so the threads that share a pipe
 * with the main thread speak the protocol on phones of their own.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <dirent.h>
#include <thread.h>

#include "fstest.h"

#define MS 1000000ull
#define BIG (64 * 1024)

static unsigned pipes_alive(void)
{
	fs_info_t info;

	return fs_info(&info) == EOK ? (unsigned)info.pipes : ~0u;
}

/* Wait (up to 2 s) for *flag to be set. */
static bool wait_flag(volatile bool *flag)
{
	for (int i = 0; i < 200 && !*flag; i++)
		sys_sleep_ns(10 * MS);
	return *flag;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 9));
}

/* ------------------------------------------------------ peers */

/*
 * A thread at the other end of a pipe: it connects, waits delay_ms,
 * opens path (flags), waits delay_ms again, then writes len bytes of buf
 * (O_WRONLY) or reads into buf until end of file (O_RDONLY), and closes.
 */
typedef struct peer {
	const char *path;
	uint32_t flags;
	unsigned char *buf;
	size_t len;
	uint64_t delay_ms;
	size_t moved;              /* bytes written or read */
	errno_t rc;                /* the first error */
	volatile bool done;
} peer_t;

static void peer_transfer(peer_t *p, int phone, uint64_t h)
{
	bool write = p->flags == O_WRONLY;
	size_t got;

	while (p->rc == EOK && (!write || p->moved < p->len)) {
		size_t chunk = write ? p->len - p->moved : BIG - p->moved;
		chunk = chunk < 5000 ? chunk : 5000;
		p->rc = raw_io(phone, write, h, p->buf + p->moved, chunk, &got);
		p->moved += got;
		if (!write && p->rc == EOK && got == 0)
			break;
	}
}

/*
 * Connect and open p's end, trying again after a failure (under fault
 * injection): the main thread may already wait in a read or write that
 * only this end's data or close can end, so giving up would hang it.
 */
static errno_t peer_open(peer_t *p, int *phone, uint64_t *h)
{
	errno_t rc = ENOENT;

	for (int i = 0; i < 50 && rc != EOK; i++) {
		if (*phone < 0)
			*phone = raw_connect();
		rc = *phone < 0 ? ENOENT : raw_open(*phone, p->path, p->flags, h);
	}
	return rc;
}

static long peer_main(void *arg)
{
	peer_t *p = arg;
	int phone = -1;
	uint64_t h;

	sys_sleep_ns(p->delay_ms * MS);
	p->rc = peer_open(p, &phone, &h);
	sys_sleep_ns(p->delay_ms * MS);
	if (p->rc == EOK) {
		peer_transfer(p, phone, h);
		raw_close(phone, h);
	}
	if (phone >= 0)
		sys_ipc_hangup(phone);
	p->done = true;
	return 0;
}

/* Start a peer; false (and a diagnostic) if no thread. */
static bool peer_start(peer_t *p, thread_id_t *tid)
{
	p->moved = 0;
	p->rc = EOK;
	p->done = false;
	if (thread_start(peer_main, p, tid) == EOK)
		return true;
	tap_diag("cannot start a thread");
	return false;
}

/* The peer is done (joined), or still stuck after 2 s (left alone). */
static bool peer_end(peer_t *p, thread_id_t tid)
{
	if (!wait_flag(&p->done)) {
		tap_diag("the peer thread is still waiting");
		return false;
	}
	thread_join(tid, NULL);
	return true;
}

/* ------------------------------------------------------ tests */

static void test_roundtrip(void)
{
	int fd[2] = { -1, -1 };
	char buf[64] = { 0 };

	/* Read only after a write went in: an empty pipe would wait for ever. */
	bool ok = pipe(fd) == 0 && fd[0] >= 3 && fd[1] >= 3 && fd[0] != fd[1];
	ok = ok && write(fd[1], "hello, pipe", 11) == 11;
	ok = ok && read(fd[0], buf, sizeof(buf)) == 11 && !strcmp(buf, "hello, pipe");
	errno = 0;
	ok &= read(fd[1], buf, 1) == -1 && errno == EBADF;
	tap_ok(ok, "pipe: pipe() gives two ends; what is written reads back");
	close(fd[0]);
	close(fd[1]);
}

static void test_eof_epipe(void)
{
	int fd[2] = { -1, -1 };
	char buf[8] = { 0 };

	/* Read only once the write end is closed (else: wait for ever). */
	bool ok = pipe(fd) == 0 && write(fd[1], "abc", 3) == 3;
	ok = close(fd[1]) == 0 && ok;
	ok = ok && read(fd[0], buf, sizeof(buf)) == 3 && !strcmp(buf, "abc");
	ok = ok && read(fd[0], buf, sizeof(buf)) == 0;
	close(fd[0]);
	tap_ok(ok, "pipe: when the write end closes, the rest reads back, then end of file");
	ok = pipe(fd) == 0 && close(fd[0]) == 0;
	errno = 0;
	ok &= write(fd[1], "x", 1) == -1 && errno == EPIPE;
	tap_ok(ok, "pipe: writing when the read end is closed fails with EPIPE");
	close(fd[1]);
}

/* A read of path waits for a peer that opens it 50 ms late (and again). */
static void test_blocking_read(int phone)
{
	static unsigned char wake[] = "wake";
	char path[32], buf[16] = { 0 };
	peer_t p = { .path = path, .flags = O_WRONLY, .buf = wake, .len = 4,
		     .delay_ms = 50 };
	thread_id_t tid;

	if (raw_mkpipe(phone, path) != EOK || !peer_start(&p, &tid))
		return (void)tap_ok(0, "pipe: a read waits for a writer");
	int fd = open(path, O_RDONLY);
	uint64_t t0 = sys_clock_ns(CLOCK_MONOTONIC);
	ssize_t r = read(fd, buf, sizeof(buf));
	uint64_t ms = (sys_clock_ns(CLOCK_MONOTONIC) - t0) / MS;
	bool ok = r == 4 && !strcmp(buf, "wake") && ms >= 50;
	ok &= read(fd, buf, sizeof(buf)) == 0;
	tap_ok(peer_end(&p, tid) && ok && p.rc == EOK,
	       "pipe: a read waits %lu ms for a writer's data, then end of file",
	       (unsigned long)ms);
	close(fd);
	unlink(path);
}

/* A waiting read ends when the only write end closes without writing. */
static void test_waiting_eof(int phone)
{
	char path[32], buf[8];
	peer_t p = { .path = path, .flags = O_WRONLY, .delay_ms = 50 };
	thread_id_t tid;

	if (raw_mkpipe(phone, path) != EOK || !peer_start(&p, &tid))
		return (void)tap_ok(0, "pipe: a waiting read gets end of file");
	int fd = open(path, O_RDONLY);
	ssize_t r = read(fd, buf, sizeof(buf));
	tap_ok(peer_end(&p, tid) && r == 0 && p.rc == EOK,
	       "pipe: a waiting read gets end of file when the write end closes (%ld)",
	       (long)r);
	close(fd);
	unlink(path);
}

/* A writer waits on a full pipe; closing the read end fails it with EPIPE. */
static void test_waiting_epipe(int phone)
{
	unsigned char *data = calloc(1, FS_PIPE_BUF + 100);
	char path[32];
	peer_t p = { .path = path, .flags = O_WRONLY, .buf = data,
		     .len = FS_PIPE_BUF + 100 };
	thread_id_t tid;

	int fd = raw_mkpipe(phone, path) == EOK ? open(path, O_RDONLY) : -1;
	if (fd < 0 || !peer_start(&p, &tid))
		return (void)tap_ok(0, "pipe: a waiting write gets EPIPE");
	sys_sleep_ns(100 * MS);
	bool waiting = !p.done && p.moved == FS_PIPE_BUF;
	close(fd);
	tap_ok(peer_end(&p, tid) && waiting && p.rc == EPIPE &&
	       p.moved == FS_PIPE_BUF,
	       "pipe: a write waits on a full pipe, then gets EPIPE when the "
	       "read end closes (%lu bytes taken)", (unsigned long)p.moved);
	unlink(path);
	free(data);
}

/* 64 KiB from a writer thread to read() in odd chunks. */
static void test_big_to_libc(int phone, unsigned char *out, unsigned char *in)
{
	char path[32];
	peer_t p = { .path = path, .flags = O_WRONLY, .buf = out, .len = BIG };
	thread_id_t tid;
	size_t total = 0;
	ssize_t r = 1;

	int fd = raw_mkpipe(phone, path) == EOK ? open(path, O_RDONLY) : -1;
	if (fd < 0 || !peer_start(&p, &tid))
		return (void)tap_ok(0, "pipe: 64 KiB from a thread to read()");
	while (r > 0 && total < BIG) {
		r = read(fd, in + total, BIG - total < 3001 ? BIG - total : 3001);
		total += r > 0 ? (size_t)r : 0;
	}
	bool ok = peer_end(&p, tid) && read(fd, in, 1) == 0;
	tap_ok(ok && total == BIG && !memcmp(in, out, BIG) && p.rc == EOK,
	       "pipe: 64 KiB from a thread to read(), byte for byte (%lu bytes)",
	       (unsigned long)total);
	close(fd);
	unlink(path);
}

/* 64 KiB in one write() (libc goes on through the server's short answers). */
static void test_big_from_libc(int phone, unsigned char *out, unsigned char *in)
{
	char path[32];
	peer_t p = { .path = path, .flags = O_RDONLY, .buf = in };
	thread_id_t tid;

	int fd = raw_mkpipe(phone, path) == EOK ? open(path, O_WRONLY) : -1;
	if (fd < 0 || !peer_start(&p, &tid))
		return (void)tap_ok(0, "pipe: 64 KiB from write() to a thread");
	ssize_t w = write(fd, out, BIG);
	close(fd);
	tap_ok(peer_end(&p, tid) && w == BIG && p.rc == EOK && p.moved == BIG &&
	       !memcmp(in, out, BIG),
	       "pipe: 64 KiB from one write() to a reader thread, byte for byte");
	unlink(path);
}

static void test_big_pipes(int phone)
{
	unsigned char *out = malloc(BIG), *in = malloc(BIG);

	fill(out, BIG, 3);
	memset(in, 0, BIG);
	test_big_to_libc(phone, out, in);
	fill(out, BIG, 11);
	memset(in, 0, BIG);
	test_big_from_libc(phone, out, in);
	free(out);
	free(in);
}

static void test_open_errors(int phone)
{
	char path[32], new_path[40];
	bool ok = raw_mkpipe(phone, path) == EOK;

	errno = 0;
	tap_ok(open("/pipe/999999", O_RDONLY) == -1 && errno == ENOENT,
	       "pipe: opening a missing /pipe/N gives ENOENT");
	errno = 0;
	ok &= open(path, O_RDWR) == -1 && errno == EINVAL;
	errno = 0;
	ok &= open(path, O_WRONLY | O_TRUNC) == -1 && errno == EINVAL;
	tap_ok(ok, "pipe: O_RDWR and O_TRUNC give EINVAL");
	snprintf(new_path, sizeof(new_path), "%s0", path);
	errno = 0;
	ok = open(new_path, O_WRONLY | O_CREAT, 0644) == -1 && errno == EINVAL;
	errno = 0;
	ok &= mkdir("/pipe/d", 0755) == -1 && errno == EPERM;
	tap_ok(ok, "pipe: O_CREAT in /pipe gives EINVAL, mkdir EPERM");
	unlink(path);
}

/* Reading a write end, writing a read end, truncating: refused. */
static void test_wrong_end(int phone)
{
	char path[32], c = 'c';
	uint64_t hr = 0, hw = 0;
	size_t n;

	bool ok = raw_mkpipe(phone, path) == EOK &&
		raw_open(phone, path, O_RDONLY, &hr) == EOK &&
		raw_open(phone, path, O_WRONLY, &hw) == EOK;
	ok &= raw_io(phone, false, hw, &c, 1, &n) == EPERM;
	ok &= raw_io(phone, true, hr, &c, 1, &n) == EPERM;
	ok &= ipc_call_sync(phone, FS_M_TRUNCATE, hw, 0, 0, 0, 0, NULL) == EINVAL;
	tap_ok(ok, "pipe: reading the write end or writing the read end is EPERM, "
	       "truncating EINVAL");
	raw_close(phone, hr);
	raw_close(phone, hw);
	unlink(path);
}

/* Is name an entry of directory path? */
static bool dir_has(const char *path, const char *name)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strcmp(e->d_name, name);
	if (d)
		closedir(d);
	return found;
}

static void test_stat(int phone)
{
	char path[32], abc[] = "abc";
	fs_stat_t st0, st1;
	struct stat dir;
	uint64_t hw = 0;
	size_t n;

	bool ok = raw_mkpipe(phone, path) == EOK && raw_stat(phone, path, &st0) == EOK;
	ok &= raw_open(phone, path, O_WRONLY, &hw) == EOK &&
		raw_io(phone, true, hw, abc, 3, &n) == EOK && n == 3;
	ok &= raw_stat(phone, path, &st1) == EOK;
	tap_ok(ok && st0.type == FS_TYPE_PIPE && st0.size == 0 && st1.size == 3,
	       "pipe: stat gives FS_TYPE_PIPE and the bytes buffered");
	struct stat ps;
	tap_ok(stat(path, &ps) == 0 && S_ISFIFO(ps.st_mode) && ps.st_size == 3,
	       "pipe: libc's stat says S_IFIFO");
	ok = stat("/pipe", &dir) == 0 && S_ISDIR(dir.st_mode);
	tap_ok(ok && dir_has("/pipe", path + 6),
	       "pipe: /pipe is a directory that lists %s", path + 6);
	raw_close(phone, hw);
	unlink(path);
	tap_ok(!dir_has("/pipe", path + 6), "pipe: unlinked, it is no longer listed");
}

/* Without its name a pipe works through its ends, and goes with them. */
static void test_unlinked(int phone)
{
	char path[32], buf[4] = { 0 };
	unsigned before = pipes_alive();
	struct stat st;

	bool ok = raw_mkpipe(phone, path) == EOK && pipes_alive() == before + 1;
	int rd = open(path, O_RDONLY), wr = open(path, O_WRONLY);
	ok &= rd >= 0 && wr >= 0 && unlink(path) == 0;
	errno = 0;
	ok &= stat(path, &st) == -1 && errno == ENOENT;
	ok &= write(wr, "ok", 2) == 2 && read(rd, buf, 3) == 2 && !strcmp(buf, "ok");
	tap_ok(ok && pipes_alive() == before + 1,
	       "pipe: unlinked, its open ends still work");
	ok = close(wr) == 0 && read(rd, buf, 3) == 0 && pipes_alive() == before + 1;
	ok &= close(rd) == 0 && pipes_alive() == before;
	tap_ok(ok, "pipe: freed once its name and its ends are gone (%u alive)",
	       pipes_alive());
}

/*
 * An end whose other side never opened waits while the name is there;
 * unlinking the name ends a waiting read (EOF) and a write (EPIPE).
 */
static void test_unlink_wakes(int phone)
{
	static char buf[FS_PIPE_BUF];
	char path[32], rpath[32];
	ipc_callid_t rid, wid;
	uint64_t hr = 0, hw = 0;
	ipc_msg_t ra = { 0 }, wa;
	size_t n;

	bool ok = raw_mkpipe(phone, rpath) == EOK && raw_mkpipe(phone, path) == EOK &&
		raw_open(phone, rpath, O_RDONLY, &hr) == EOK &&
		raw_open(phone, path, O_WRONLY, &hw) == EOK &&
		raw_io(phone, true, hw, buf, sizeof(buf), &n) == EOK && n == sizeof(buf);
	ok &= ipc_call_async(phone, IPC_M_DATA_READ, (uintptr_t)buf, 1, FS_DR_FILE,
			     hr, 0, &rid) == EOK;
	ok &= ipc_call_async(phone, IPC_M_DATA_WRITE, (uintptr_t)buf, 1, FS_DW_FILE,
			     hw, 0, &wid) == EOK;
	ok &= ipc_wait_answer(rid, 50 * MS, &ra) == ETIMEOUT &&
		ipc_wait_answer(wid, 1 * MS, &wa) == ETIMEOUT;
	ok &= unlink(rpath) == 0 && unlink(path) == 0;
	ok &= ipc_wait_answer(rid, 2000 * MS, &ra) == EOK && ra.args[1] == 0;
	ok &= ipc_wait_answer(wid, 2000 * MS, &wa) == EPIPE;
	tap_ok(ok, "pipe: with no other end yet, unlinking the name ends a waiting "
	       "read (end of file) and write (EPIPE)");
	raw_close(phone, hr);
	raw_close(phone, hw);
}

/* A read of handle h on phone, waiting at most 2 s; bytes or -error. */
static long read_within(int phone, uint64_t h, char *buf, size_t n)
{
	ipc_callid_t id;
	ipc_msg_t ans;
	errno_t rc = ipc_call_async(phone, IPC_M_DATA_READ, (uintptr_t)buf, n,
				    FS_DR_FILE, h, 0, &id);

	if (rc == EOK)
		rc = ipc_wait_answer(id, 2000 * MS, &ans);
	return rc == EOK ? (long)ans.args[1] : -(long)rc;
}

/* The name goes when its maker hangs up; a lone reader then sees EOF. */
static void test_maker_hangup(int phone)
{
	char path[32], c;
	unsigned before = pipes_alive();
	int maker = raw_connect();
	uint64_t h = 0;
	struct stat st;

	bool ok = maker >= 0 && raw_mkpipe(maker, path) == EOK &&
		raw_open(phone, path, O_RDONLY, &h) == EOK;
	sys_ipc_hangup(maker);
	for (int i = 0; i < 200 && stat(path, &st) == 0; i++)
		sys_sleep_ns(10 * MS);
	errno = 0;
	ok &= stat(path, &st) == -1 && errno == ENOENT;
	long r = read_within(phone, h, &c, 1);
	ok &= pipes_alive() == before + 1;
	ok &= raw_close(phone, h) == EOK && pipes_alive() == before;
	tap_ok(ok && r == 0, "pipe: the name goes when its maker hangs up; a reader "
	       "that never had a writer then gets end of file (%ld)", r);
}

/* FS_PIPE_WAITING reads wait and are answered in order; one more: ELIMIT. */
static void test_queue(int phone)
{
	static char got[FS_PIPE_WAITING + 1];
	ipc_callid_t id[FS_PIPE_WAITING + 1];
	char path[32], data[FS_PIPE_WAITING];
	uint64_t hr = 0, hw = 0;
	ipc_msg_t ans;
	size_t n;

	bool ok = raw_mkpipe(phone, path) == EOK &&
		raw_open(phone, path, O_RDONLY, &hr) == EOK &&
		raw_open(phone, path, O_WRONLY, &hw) == EOK;
	for (int i = 0; ok && i <= FS_PIPE_WAITING; i++)
		ok &= ipc_call_async(phone, IPC_M_DATA_READ, (uintptr_t)&got[i], 1,
				     FS_DR_FILE, hr, 0, &id[i]) == EOK;
	ok &= ok && ipc_wait_answer(id[FS_PIPE_WAITING], 2000 * MS, &ans) == ELIMIT;
	for (int i = 0; i < FS_PIPE_WAITING; i++)
		data[i] = (char)('a' + i);
	ok &= ok && raw_io(phone, true, hw, data, sizeof(data), &n) == EOK;
	for (int i = 0; ok && i < FS_PIPE_WAITING; i++)
		ok &= ipc_wait_answer(id[i], 2000 * MS, &ans) == EOK &&
			ans.args[1] == 1 && got[i] == data[i];
	tap_ok(ok, "pipe: %d waiting reads are answered in order, one more gets ELIMIT",
	       FS_PIPE_WAITING);
	raw_close(phone, hr);
	raw_close(phone, hw);
	unlink(path);
}

/* ------------------------------------------------------ hanging up */

typedef struct reader {
	int phone;
	uint64_t h;
	errno_t rc;
	volatile bool done;
} reader_t;

static long reader_main(void *arg)
{
	reader_t *r = arg;
	char c;
	size_t n;

	r->rc = raw_io(r->phone, false, r->h, &c, 1, &n);
	r->done = true;
	return 0;
}

/* A thread waits in a read on a phone that the main thread hangs up. */
static void test_hangup_waiting(void)
{
	char path[32];
	fs_info_t before;
	reader_t r = { .phone = raw_connect() };
	thread_id_t tid;

	bool ok = fs_info(&before) == EOK && r.phone >= 0 &&
		raw_mkpipe(r.phone, path) == EOK &&
		raw_open(r.phone, path, O_RDONLY, &r.h) == EOK;
	if (!ok || thread_start(reader_main, &r, &tid) != EOK)
		return (void)tap_ok(0, "pipe: hanging up with a read waiting");
	sys_sleep_ns(50 * MS);
	ok = !r.done;
	sys_ipc_hangup(r.phone);
	ok &= wait_flag(&r.done) && r.rc == EHANGUP;
	if (r.done)
		thread_join(tid, NULL);
	tap_ok(ok && wait_handles(before.handles) && pipes_alive() == before.pipes,
	       "pipe: hanging up ends a waiting read (EHANGUP) and frees the pipe");
}

/* A child dies with a read waiting; the data written later is intact. */
static void test_child_dies(int phone)
{
	char path[32], buf[8] = { 0 };
	const char *argv[] = { "fstest", "child-pipe-read", path, NULL };
	fs_info_t before;

	bool ok = fs_info(&before) == EOK && raw_mkpipe(phone, path) == EOK;
	int wr = ok ? open(path, O_WRONLY) : -1;
	int st = run_child(argv);
	tap_ok(st == 0, "pipe: a child exited with a read waiting (status %d)", st);
	ok &= wait_handles(before.handles + 1);
	int rd = open(path, O_RDONLY);
	ok &= write(wr, "after", 5) == 5 && read(rd, buf, 8) == 5 &&
		!strcmp(buf, "after");
	tap_ok(ok, "pipe: the server dropped the dead child's read, data goes on");
	close(rd);
	close(wr);
	unlink(path);
}

static long child_reader(void *arg)
{
	char buf[8];

	return read(*(int *)arg, buf, sizeof(buf));
}

int child_pipe_read(const char *path)
{
	static int fd;
	thread_id_t tid;

	fd = open(path, O_RDONLY);
	if (fd < 0 || thread_start(child_reader, &fd, &tid) != EOK)
		return 1;
	sys_sleep_ns(50 * MS);
	return 0;                       /* exit with the read waiting */
}

void test_pipe(void)
{
	int phone = raw_connect();

	if (!tap_ok(phone >= 0, "pipe: connect to \"fs\""))
		return;
	test_roundtrip();
	test_eof_epipe();
	test_blocking_read(phone);
	test_waiting_eof(phone);
	test_waiting_epipe(phone);
	test_big_pipes(phone);
	test_open_errors(phone);
	test_wrong_end(phone);
	test_stat(phone);
	test_unlinked(phone);
	test_unlink_wakes(phone);
	test_maker_hangup(phone);
	test_queue(phone);
	test_hangup_waiting();
	test_child_dies(phone);
	sys_ipc_hangup(phone);
}
