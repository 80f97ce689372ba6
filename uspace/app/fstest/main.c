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
#include <stdarg.h>
#include <stdlib.h>

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

	for (int i = 0; i < 200; i++) {
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
	{ "spawn", test_spawn, 9 },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

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

int main(int argc, char **argv)
{
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
	run_groups();
	if (tap_failures())
		tap_diag("%d of %d tests failed", tap_failures(), tap_tests());
	return tap_end();
}
