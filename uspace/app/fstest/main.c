/*
 * fstest: tests of the file service (/bin/fs) and libc's file calls.
 * Prints TAP on stdout (the plan "1..N" at the end) and exits 0 iff every
 * test passed. test/fs.t boots it as "-- fstest" on 1 and 2 CPUs.
 *
 *   fstest                   run every test
 *   fstest child-open N      helper: open N files in /tmp, then exit
 *                            without closing them
 *   fstest child-use         helper: write and read a file, exit 0 if ok
 *   fstest child-pipe-read PATH
 *                            helper: open the pipe PATH, start a read of
 *                            it in a thread, exit while it waits
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fstest.h"

errno_t fs_info(fs_info_t *info)
{
	static int phone = -1;
	ipc_msg_t ans;

	if (phone < 0 && service_connect(FS_SERVICE, &phone) != EOK) {
		phone = -1;
		return ENOENT;
	}
	errno_t rc = ipc_call_sync(phone, FS_M_INFO, 0, 0, 0, 0, 0, &ans);
	if (rc == EOK)
		*info = (fs_info_t){ ans.args[0], ans.args[1], ans.args[2],
				     ans.args[3], ans.args[4] };
	return rc;
}

bool wait_handles(uint64_t n)
{
	fs_info_t info;

	for (int i = 0; i < 1000; i++) {
		if (fs_info(&info) == EOK && info.handles == n)
			return true;
		sys_sleep_ns(10 * 1000000ull);
	}
	tap_diag("server has %lu handles open, expected %lu",
		 (unsigned long)info.handles, (unsigned long)n);
	return false;
}

bool write_file(const char *path, const void *buf, size_t n, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);

	if (fd < 0)
		return false;
	ssize_t w = write(fd, buf, n);
	return close(fd) == 0 && w == (ssize_t)n;
}

ssize_t read_file(const char *path, void *buf, size_t n)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, n);
	close(fd);
	return r;
}

int run_child(const char *const *argv)
{
	task_id_t id, waited;
	int status = -1;

	if (sys_spawn("/bin/fstest", argv, 0, &id) != EOK)
		return -1;
	if (sys_wait(id, &status, 0, &waited) != EOK)
		return -1;
	return status;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: fstest [-h] [child-open N | child-use | "
		"child-pipe-read PATH]\n"
		"  tests of the file service and libc's file calls (TAP)\n");
}

/*
 * The groups and the tests each reports (the plan is their sum, printed
 * first, so a test that silently does not run fails the run).
 */
typedef struct group {
	const char *name;
	void (*run)(void);
	int tests;
} group_t;

static const group_t groups[] = {
	{ "files", test_files, 8 }, { "dirs", test_dirs, 12 },
	{ "errors", test_errors, 16 }, { "big", test_big, 6 },
	{ "handles", test_handles, 5 }, { "stdio", test_stdio, 5 },
	{ "raw", test_raw, 4 }, { "pipe", test_pipe, 25 },
	{ "spawn", test_spawn, 9 }, { "probe", test_probe, 11 },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

/* ------------------------------------------------------ leftovers */

/*
 * Under fault injection a test's own clean-up can fail and leave files in
 * /tmp, whose memory (the server's) would then differ between two runs
 * (vfuzz -r's leak check). So fstest notes what /tmp held when it started
 * and at its end removes whatever else is there, trying each step again
 * after a passing failure.
 */
#define TMP_NAMES 256
#define TRIES 8

typedef char name_t[FS_NAME_MAX + 1];
static name_t tmp_start[TMP_NAMES];
static int ntmp_start = -1;           /* -1: not known, remove nothing */

/* The names in dir into names (up to TMP_NAMES); how many, or -1. */
static int list_dir(const char *dir, name_t *names)
{
	for (int t = 0; t < TRIES; t++) {
		DIR *d = opendir(dir);
		struct dirent *e;
		int n = 0;
		if (!d)
			continue;
		errno = 0;
		while (n < TMP_NAMES && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
		bool whole = errno == 0;
		closedir(d);
		if (whole)
			return n;
	}
	return -1;
}

/* Remove path and, a directory, what is in it; true if it is gone. */
static bool remove_tree(const char *path, int depth)
{
	static name_t names[4][TMP_NAMES];
	struct stat st;
	char sub[FS_PATH_MAX];

	for (int t = 0; t < TRIES; t++) {
		errno = 0;
		if (stat(path, &st) != 0) {
			if (errno == ENOENT)
				return true;
			continue;
		}
		int n = S_ISDIR(st.st_mode) && depth < 4 ? list_dir(path, names[depth]) : 0;
		for (int i = 0; i < n; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[depth][i]);
			remove_tree(sub, depth + 1);
		}
		if ((S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path)) == 0)
			return true;
	}
	return false;
}

static void tmp_note(void)
{
	ntmp_start = list_dir("/tmp", tmp_start);
}

static void tmp_sweep(void)
{
	static name_t now[TMP_NAMES];
	char path[FS_PATH_MAX];
	int n = ntmp_start < 0 ? -1 : list_dir("/tmp", now);

	for (int i = 0; i < n; i++) {
		bool old = false;
		for (int j = 0; j < ntmp_start && !old; j++)
			old = !strcmp(now[i], tmp_start[j]);
		snprintf(path, sizeof(path), "/tmp/%s", now[i]);
		if (!old && !remove_tree(path, 0))
			tap_diag("cannot remove the leftover %s", path);
	}
}

static void run_groups(void)
{
	int plan = 0;

	for (size_t i = 0; i < NGROUPS; i++)
		plan += groups[i].tests;
	tap_plan(plan);
	for (size_t i = 0; i < NGROUPS; i++) {
		int before = tap_tests();
		groups[i].run();
		tap_group_done(groups[i].name, before, groups[i].tests);
	}
}

/* "fstest probe-..." (test_probe.c); -1 if argv names none. */
static int run_probe(int argc, char **argv)
{
	const char *m = argv[1];

	if (argc == 2 && !strcmp(m, "probe-write"))
		return probe_write();
	if (argc == 2 && !strcmp(m, "probe-handles"))
		return probe_handles(true);
	if (argc == 2 && !strcmp(m, "probe-hold"))
		return probe_handles(false);
	if (argc == 2 && !strcmp(m, "probe-orphan"))
		return probe_orphan();
	if (argc == 2 && !strcmp(m, "probe-orphan-kid"))
		return probe_orphan_kid();
	if (argc == 2 && !strcmp(m, "probe-pipe"))
		return probe_pipe();
	if (argc == 4 && !strcmp(m, "probe-pipe-open"))
		return probe_pipe_open(argv[2], argv[3]);
	return -1;
}

int main(int argc, char **argv)
{
	int probe = argc > 1 ? run_probe(argc, argv) : -1;

	if (probe >= 0)
		return probe;
	if (argc == 3 && !strcmp(argv[1], "child-open"))
		return child_open(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "child-use"))
		return child_use();
	if (argc == 3 && !strcmp(argv[1], "child-pipe-read"))
		return child_pipe_read(argv[2]);
	if (argc > 1) {
		bool help = !strcmp(argv[1], "-h");
		usage(help ? stdout : stderr);
		return 2;
	}
	tmp_note();
	run_groups();
	tmp_sweep();
	if (tap_failures())
		tap_diag("%d of %d tests failed", tap_failures(), tap_tests());
	return tap_end();
}
