/*
 * fstest probe: what an unprivileged client can do to the file service
 * (issue 27). Each attack runs as "restrict fstest probe-...", so with no
 * permissions and in a task tree of its own, as an attacker's program
 * would; fstest (another tree) then checks that the server and the other
 * trees are fine. A probe's exit status has one bit per check that failed.
 */
#include <dirent.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fstest.h"

#define MS 1000000ull
#define PROBE_FILE "/tmp/probe.zw"
#define PROBE_FILL "/tmp/probe.fill"
#define PROBE_GAP "/tmp/probe.gap"
#define PROBE_GO "/tmp/probe.go"     /* exists: holding probes may end */
#define PROBE_READY "/tmp/probe.ready"  /* a byte per probe that is full */
#define GAP (128 * 1024)
#define PROBE_CONNS 12                /* more than FS_TASK_CONNS */
#define PIPES_MAX 64                  /* more than a tree may name */

/* ------------------------------------------------------ helpers */

/* Start "restrict /bin/fstest ARGS..." (args: NULL-terminated, <= 4). */
static bool restricted_start(const char *const *args, task_id_t *id)
{
	const char *argv[8] = { "restrict", "/bin/fstest" };
	task_info_t self;
	int n = 2;

	while (*args && n < 7)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (sys_task_info(0, &self) != EOK)
		return false;
	return sys_spawn("/bin/restrict", argv, self.perms, id) == EOK;
}

/* Wait for task id; its exit status, or -1. */
static int wait_status(task_id_t id)
{
	task_id_t waited;
	int status = -1;

	return sys_wait(id, &status, 0, &waited) == EOK ? status : -1;
}

/* Run "restrict /bin/fstest ARGS..." to its end; its exit status or -1. */
static int run_restricted(const char *const *args)
{
	task_id_t id;

	return restricted_start(args, &id) ? wait_status(id) : -1;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* A holding probe: wait (up to 20 s) until fstest creates PROBE_GO. */
static void wait_go(void)
{
	for (int i = 0; i < 2000 && !exists(PROBE_GO); i++)
		sys_sleep_ns(10 * MS);
}

/* The usage record of the tree with the most handles, or NULL. */
static const fs_usage_tree_t *fullest_tree(const fs_usage_t *u)
{
	const fs_usage_tree_t *best = NULL;

	for (uint32_t i = 0; i < u->count; i++)
		if (!best || u->tree[i].handles > best->handles)
			best = &u->tree[i];
	return best;
}

/* Does the file service still open and read /etc/motd? */
static bool fs_serves(void)
{
	char buf[8] = { 0 };

	return read_file("/etc/motd", buf, 7) == 7 && !strcmp(buf, "Welcome");
}

/* ------------------------------------------------------ hole 1: writes */

/* Fill the tmpfs so that about GAP bytes stay free; true if it worked. */
static bool fill_but_gap(void)
{
	static char chunk[64 * 1024];
	bool ok = write_file(PROBE_GAP, chunk, GAP, O_TRUNC);
	int fd = open(PROBE_FILL, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	while (fd >= 0 && write(fd, chunk, sizeof(chunk)) > 0)
		;
	ok &= fd >= 0 && errno == ENOSPC;
	close(fd);
	return ok && unlink(PROBE_GAP) == 0;
}

/* The size of PROBE_FILE as the server says, or UINT64_MAX. */
static uint64_t probe_size(int phone)
{
	fs_stat_t st;

	return raw_stat(phone, PROBE_FILE, &st) == EOK ? st.size : UINT64_MAX;
}

/* Writes at and past the tmpfs limit to the 1-byte file (bits 0-3). */
static int probe_limit(int phone, uint64_t h, uint64_t limit)
{
	size_t n = 99, m = 99;
	int bad = 0;

	if (raw_write_at(phone, h, "", 0, limit, &n) != EOK || n != 0 ||
	    raw_write_at(phone, h, "", 0, UINT64_MAX - 1, &m) != EOK || m != 0)
		bad |= 1;                  /* 0 bytes at or past the limit: nothing */
	if (raw_write_at(phone, h, "y", 1, limit, &n) != ENOSPC)
		bad |= 2;                  /* a byte at the limit: no room */
	if (raw_write_at(phone, h, "y", 1, UINT64_MAX - 1, &n) != ENOSPC)
		bad |= 4;
	if (probe_size(phone) != 1)
		bad |= 8;                  /* none of them changed the size */
	return bad;
}

/* Writes with the tmpfs nearly full (bits 4-6). */
static int probe_near_full(int phone, uint64_t h)
{
	fs_info_t info;
	size_t n = 99;
	int bad = 0;

	if (!fill_but_gap() || fs_info(&info) != EOK)
		return 16;
	uint64_t free_now = info.limit - info.used;
	if (raw_write_at(phone, h, "", 0, free_now + 8192, &n) != EOK || n != 0 ||
	    probe_size(phone) != 1)
		bad |= 32;                 /* past what the file can hold: nothing */
	if (raw_write_at(phone, h, "0123456789", 10, free_now, &n) != EOK ||
	    n != 10 || probe_size(phone) != free_now + 10 ||
	    fs_info(&info) != EOK || info.used > info.limit)
		bad |= 64;                 /* what fits is written */
	return bad;
}

/* "probe-write": the zero-length and limit writes of hole 1. */
int probe_write(void)
{
	fs_info_t info;
	uint64_t h = 0;
	size_t n;
	int phone = raw_connect();

	if (phone < 0 || fs_info(&info) != EOK ||
	    raw_open(phone, PROBE_FILE, O_RDWR | O_CREAT, &h) != EOK ||
	    raw_write_at(phone, h, "x", 1, 0, &n) != EOK)
		return 128;
	int bad = probe_limit(phone, h, info.limit);
	bad |= probe_near_full(phone, h);
	unlink(PROBE_FILL);
	return bad;
}

static void test_write_holes(void)
{
	const char *args[] = { "probe-write", NULL };
	fs_info_t before, after;
	struct stat st = { 0 };

	fs_info(&before);
	int status = run_restricted(args);
	tap_ok(status == 0, "probe: unprivileged writes of 0 bytes at and past "
	       "the tmpfs limit and near full are refused or change nothing "
	       "(status %d)", status);
	errno = 0;
	int sr = stat(PROBE_FILE, &st);
	bool sane = sr == 0 && st.st_size > 10 && (uint64_t)st.st_size <
		before.limit && fs_info(&after) == EOK && after.used <= after.limit;
	tap_ok(fs_serves() && sane, "probe: fs still serves opens after them, "
	       "the file's size is sane (%ld bytes)", (long)st.st_size);
	unlink(PROBE_FILE);
	unlink(PROBE_FILL);
}

/* ------------------------------------------------------ hole 6: handles */

/* Open /etc/motd on phone until an error; how many opened. */
static unsigned open_until_error(int phone, errno_t *rc)
{
	unsigned got = 0;
	uint64_t h;

	while ((*rc = raw_open(phone, "/etc/motd", O_RDONLY, &h)) == EOK)
		got++;
	return got;
}

/* Open handles on many connections until ELIMIT; *refused: a connection was. */
static unsigned take_handles(bool *refused, errno_t *last)
{
	unsigned got = 0;

	*refused = false;
	for (int i = 0; i < PROBE_CONNS; i++) {
		int phone = raw_connect();
		errno_t rc = phone < 0 ? ENOENT : raw_stage(phone, "/etc/motd");
		if (rc == ELIMIT) {
			*refused = true;
			sys_ipc_hangup(phone);     /* no state: nothing held */
			continue;
		}
		if (rc == EOK)
			got += open_until_error(phone, last);
	}
	return got;
}

/*
 * "probe-handles" (the first task of the tree) and "probe-hold" (its
 * child): take all the handles they may (one of them is the handle they
 * tell PROBE_READY through), hold them until PROBE_GO.
 */
int probe_handles(bool first)
{
	const char *argv[] = { "fstest", "probe-hold", NULL };
	unsigned want = first ? FS_TASK_HANDLES - 1
			      : FS_TREE_HANDLES - FS_TASK_HANDLES - 1;
	task_id_t kid = 0;
	bool refused;
	errno_t last = EOK;
	int ready = open(PROBE_READY, O_WRONLY | O_APPEND);
	unsigned got = take_handles(&refused, &last);
	int bad = ready < 0 ? 16 : 0;

	if (got != want)
		bad |= 1;                  /* the task's bound, then the tree's */
	if (last != ELIMIT || (first && !refused))
		bad |= 2;
	if (first && sys_spawn("/bin/fstest", argv, 0, &kid) != EOK)
		bad |= 4;
	if (write(ready, "x", 1) != 1)
		bad |= 16;
	wait_go();
	if (kid && wait_status(kid) != 0)
		bad |= 8;
	return bad;
}

/* Wait (up to 20 s) until n probes said they are full. */
static bool wait_ready(long n)
{
	struct stat st;

	for (int i = 0; i < 2000; i++) {
		if (stat(PROBE_READY, &st) == 0 && st.st_size >= n)
			return st.st_size == n;
		sys_sleep_ns(10 * MS);
	}
	return false;
}

/* Does /bin/fsstat list a tree holding n handles (under its header)? */
static bool fsstat_lists(unsigned n)
{
	static char buf[4096];
	char *argv[] = { "fsstat", NULL }, want[16];
	spawn_opts_t o = { .stdio = { "n:", "w:/tmp/probe.fsstat", NULL } };
	task_id_t id;

	write_file("/tmp/probe.fsstat", "", 0, O_TRUNC);
	bool ran = spawn("/bin/fsstat", argv, &o, &id) == EOK && wait_status(id) == 0;
	ssize_t len = read_file("/tmp/probe.fsstat", buf, sizeof(buf) - 1);
	unlink("/tmp/probe.fsstat");
	buf[len > 0 ? len : 0] = '\0';
	char *rows = strstr(buf, "TREE  TASKS");
	snprintf(want, sizeof(want), " %u ", n);
	return ran && strstr(buf, "handles: ") && rows && strstr(rows, want);
}

/* Another tree: open a file, spawn through fs, read the usage. */
static void check_others(void)
{
	const char *use_argv[] = { "fstest", "child-use", NULL };
	char *hello[] = { "hello", NULL };
	spawn_opts_t quiet = { .stdio = { "n:", "n:", "n:" } };
	fs_usage_t u;
	task_id_t id;

	int st = run_child(use_argv);
	bool spawned = spawn("/bin/hello", hello, &quiet, &id) == EOK &&
		wait_status(id) == 0;
	tap_ok(fs_serves() && st == 0 && spawned, "probe: meanwhile this "
	       "task opens files, an unrelated unprivileged task too (status "
	       "%d), and spawning through fs works", st);
	const fs_usage_tree_t *t = raw_usage(&u) == EOK ? fullest_tree(&u) : NULL;
	tap_ok(t && t->handles == FS_TREE_HANDLES && t->tasks == 2 &&
	       t->refused > 0 && u.tree_handles_max == FS_TREE_HANDLES &&
	       u.handles >= FS_TREE_HANDLES, "probe: FS_DR_USAGE shows the "
	       "probe's tree at its bound (%u handles, %u tasks, %u refused)",
	       t ? t->handles : 0, t ? t->tasks : 0, t ? t->refused : 0);
	tap_ok(fsstat_lists(FS_TREE_HANDLES), "probe: fsstat lists the tree "
	       "with its %d handles", FS_TREE_HANDLES);
}

static void test_handle_quota(void)
{
	const char *args[] = { "probe-handles", NULL };
	fs_info_t before;
	task_id_t id;

	unlink(PROBE_GO);
	write_file(PROBE_READY, "", 0, O_TRUNC);
	fs_info(&before);
	bool started = restricted_start(args, &id);
	bool full = started && wait_ready(2) &&
		wait_handles(before.handles + FS_TREE_HANDLES);
	tap_ok(full, "probe: an unprivileged tree took %d handles on many "
	       "connections, then got ELIMIT", FS_TREE_HANDLES);
	check_others();
	write_file(PROBE_GO, "", 0, O_TRUNC);
	int status = started ? wait_status(id) : -1;
	tap_ok(status == 0 && wait_handles(before.handles),
	       "probe: its task's bound was %d, its tree's %d, connections "
	       "were bounded; all came back (status %d)", FS_TASK_HANDLES,
	       FS_TREE_HANDLES, status);
	unlink(PROBE_GO);
	unlink(PROBE_READY);
}

/* ------------------------------------------------------ orphans */

/* "probe-orphan": leave a child behind that opens files as an orphan. */
int probe_orphan(void)
{
	const char *argv[] = { "fstest", "probe-orphan-kid", NULL };
	task_id_t kid;

	return sys_spawn("/bin/fstest", argv, 0, &kid) == EOK ? 0 : 1;
}

/* The orphan: wait until its parent is gone, open, hold until PROBE_GO. */
int probe_orphan_kid(void)
{
	task_info_t self = { .parent = 1 };
	uint64_t h;

	for (int i = 0; i < 500; i++) {
		if (sys_task_info(0, &self) != EOK || self.parent == 0)
			break;
		sys_sleep_ns(10 * MS);
	}
	int phone = raw_connect();
	if (phone < 0 || self.parent != 0 ||
	    raw_open(phone, "/etc/motd", O_RDONLY, &h) != EOK)
		return 1;
	wait_go();
	return 0;
}

/* Is there an orphans' tree holding handles handles? */
static bool orphans_hold(uint64_t handles)
{
	fs_usage_t u;

	for (int i = 0; i < 300; i++) {
		if (raw_usage(&u) != EOK)
			return false;
		for (uint32_t j = 0; j < u.count; j++)
			if (u.tree[j].root == FS_TREE_ORPHANS &&
			    u.tree[j].handles == handles)
				return true;
		sys_sleep_ns(10 * MS);
	}
	return false;
}

static void test_orphans(void)
{
	const char *args[] = { "probe-orphan", NULL };
	fs_info_t before;

	unlink(PROBE_GO);
	fs_info(&before);
	int status = run_restricted(args);
	bool held = status == 0 && orphans_hold(1);
	write_file(PROBE_GO, "", 0, O_TRUNC);
	tap_ok(held && wait_handles(before.handles), "probe: a child left "
	       "behind by an unprivileged task is charged to the orphans' "
	       "tree, not a tree of its own (status %d)", status);
	unlink(PROBE_GO);
}

/* ------------------------------------------------------ pipes */

/* Name pipes until an error; how many, all unlinked again. */
static int make_pipes(int phone, errno_t *rc)
{
	static char names[PIPES_MAX][32];
	int n = 0;

	while (n < PIPES_MAX && (*rc = raw_mkpipe(phone, names[n])) == EOK)
		n++;
	for (int i = 0; i < n; i++)
		unlink(names[i]);
	return n;
}

/*
 * "probe-pipe": make a pipe holding "secret", let a child of ours read
 * it, hold it until PROBE_GO; then count the pipes the tree may name.
 */
int probe_pipe(void)
{
	char path[32];
	const char *argv[] = { "fstest", "probe-pipe-open", path, "ok", NULL };
	uint64_t hw = 0;
	size_t n;
	errno_t rc;
	int phone = raw_connect(), bad = 0;
	task_id_t kid;

	if (phone < 0 || raw_mkpipe(phone, path) != EOK ||
	    raw_open(phone, path, O_WRONLY, &hw) != EOK ||
	    raw_io(phone, true, hw, "secret", 6, &n) != EOK)
		return 1;
	if (sys_spawn("/bin/fstest", argv, 0, &kid) != EOK || wait_status(kid) != 0)
		bad |= 2;                  /* our tree may */
	wait_go();
	if (make_pipes(phone, &rc) != FS_TREE_PIPES - 1 || rc != ELIMIT)
		bad |= 4;
	return bad;
}

/* "probe-pipe-open PATH ok|eperm": open and unlink PATH as expected. */
int probe_pipe_open(const char *path, const char *expect)
{
	char buf[8] = { 0 };
	uint64_t h = 0;
	size_t n = 0;
	int phone = raw_connect();

	if (phone < 0)
		return 1;
	errno_t rc = raw_open(phone, path, O_RDONLY, &h);
	if (!strcmp(expect, "eperm"))
		return rc == EPERM && unlink(path) == -1 && errno == EPERM ? 0 : 2;
	if (rc != EOK || raw_io(phone, false, h, buf, 6, &n) != EOK)
		return 3;
	return n == 6 && !strcmp(buf, "secret") ? 0 : 4;
}

/* The newest pipe's name (the highest id) into path; false if none. */
static bool newest_pipe(char *path)
{
	unsigned long best = 0;
	DIR *d = opendir(FS_PIPE_DIR);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strtoul(e->d_name, NULL, 10) > best)
			best = strtoul(e->d_name, NULL, 10);
	if (d)
		closedir(d);
	snprintf(path, 32, FS_PIPE_DIR "/%lu", best);
	return best > 0;
}

/* Wait until a pipe newer than old_path exists; its name into path. */
static bool wait_new_pipe(const char *old_path, char *path)
{
	for (int i = 0; i < 500; i++) {
		if (newest_pipe(path) && strcmp(path, old_path))
			return true;
		sys_sleep_ns(10 * MS);
	}
	return false;
}

static void test_pipe_owner(void)
{
	char old[32] = "", path[32] = "";
	const char *args[] = { "probe-pipe", NULL };
	const char *other[] = { "probe-pipe-open", path, "eperm", NULL };
	uint64_t h;
	task_id_t id;
	int phone = raw_connect();

	unlink(PROBE_GO);
	newest_pipe(old);
	bool started = restricted_start(args, &id);
	bool made = started && wait_new_pipe(old, path);
	errno_t rc = made ? raw_open(phone, path, O_RDONLY, &h) : EOK;
	errno = 0;
	bool kept = made && unlink(path) == -1 && errno == EPERM && exists(path);
	tap_ok(made && rc == EPERM && kept, "probe: a pipe made by another tree "
	       "cannot be opened (%d) or unlinked here", rc);
	int st = made ? run_restricted(other) : -1;
	tap_ok(st == 0, "probe: nor by an unprivileged task of a third tree "
	       "(status %d)", st);
	write_file(PROBE_GO, "", 0, O_TRUNC);
	int status = started ? wait_status(id) : -1;
	tap_ok(status == 0, "probe: the maker's own child reads it; a tree names "
	       "at most %d pipes, then ELIMIT (status %d)", FS_TREE_PIPES, status);
	sys_ipc_hangup(phone);
	unlink(PROBE_GO);
}

void test_probe(void)
{
	test_write_holes();
	test_handle_quota();
	test_orphans();
	test_pipe_owner();
}
