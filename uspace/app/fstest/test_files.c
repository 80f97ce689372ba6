/* fstest: files, directories and the errors of the name space. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fstest.h"

static void test_roundtrip(void)
{
	char buf[64] = { 0 };
	const char *text = "hello, file service\n";

	bool w = write_file("/tmp/a.txt", text, strlen(text), O_TRUNC);
	ssize_t r = read_file("/tmp/a.txt", buf, sizeof(buf));
	tap_ok(w && r == (ssize_t)strlen(text) && !strcmp(buf, text),
	       "files: write /tmp/a.txt and read it back (%ld bytes)", (long)r);
}

static void test_append(void)
{
	char buf[64] = { 0 };

	write_file("/tmp/b.txt", "one\n", 4, O_TRUNC);
	bool w = write_file("/tmp/b.txt", "two\n", 4, O_APPEND);
	ssize_t r = read_file("/tmp/b.txt", buf, sizeof(buf));
	tap_ok(w && r == 8 && !strcmp(buf, "one\ntwo\n"),
	       "files: O_APPEND adds at the end");
}

static void test_lseek(void)
{
	char buf[16] = { 0 };
	int fd = open("/tmp/c.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);

	write(fd, "0123456789", 10);
	bool ok = lseek(fd, 3, SEEK_SET) == 3 && read(fd, buf, 2) == 2 &&
		!memcmp(buf, "34", 2);
	ok &= lseek(fd, 1, SEEK_CUR) == 6 && read(fd, buf, 1) == 1 &&
		buf[0] == '6';
	ok &= lseek(fd, -2, SEEK_END) == 8 && read(fd, buf, 5) == 2 &&
		!memcmp(buf, "89", 2);
	ok &= read(fd, buf, 5) == 0;
	tap_ok(ok, "files: lseek SEEK_SET, SEEK_CUR, SEEK_END; read at end is 0");
	ok = lseek(fd, 20, SEEK_SET) == 20 && write(fd, "X", 1) == 1 &&
		pread(fd, buf, 11, 10) == 11 && buf[0] == 0 && buf[9] == 0 &&
		buf[10] == 'X';
	tap_ok(ok, "files: writing past the end leaves zeros in the gap");
	errno = 0;
	tap_ok(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL,
	       "files: lseek to a negative position is EINVAL");
	close(fd);
}

static void test_stat(void)
{
	struct stat st, fst;
	int fd = open("/tmp/c.bin", O_RDONLY);

	bool ok = stat("/tmp/c.bin", &st) == 0 && fstat(fd, &fst) == 0;
	tap_ok(ok && st.st_size == 21 && fst.st_size == 21 && S_ISREG(st.st_mode) &&
	       st.st_ino == fst.st_ino, "stat: size 21, a regular file (stat, fstat)");
	close(fd);
	ok = stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode);
	tap_ok(ok, "stat: /tmp is a directory");
	fd = open("/tmp/c.bin", O_WRONLY);
	ok = fd >= 0 && ftruncate(fd, 5) == 0 && fstat(fd, &st) == 0 &&
		st.st_size == 5;
	close(fd);
	tap_ok(ok, "stat: ftruncate to 5 bytes");
}

/* Read directory path: a "name/" for directories, comma separated. */
static int list_dir(const char *path, char *out, size_t size)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	out[0] = '\0';
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s%s%s", n ? "," : "", e->d_name,
			 e->d_type == DT_DIR ? "/" : "");
		n++;
	}
	closedir(d);
	return n;
}

void test_files(void)
{
	test_roundtrip();
	test_append();
	test_lseek();
	test_stat();
}

static void test_listing(void)
{
	char list[256];

	bool ok = mkdir("/tmp/d", 0755) == 0 && mkdir("/tmp/d/sub", 0755) == 0;
	ok &= write_file("/tmp/d/x", "x", 1, 0) && write_file("/tmp/d/y", "", 0, 0);
	tap_ok(ok, "dirs: mkdir /tmp/d, /tmp/d/sub and files in it");
	int n = list_dir("/tmp/d", list, sizeof(list));
	tap_ok(n == 3 && !strcmp(list, "sub/,x,y"), "dirs: readdir /tmp/d: %s", list);
	errno = 0;
	tap_ok(mkdir("/tmp/d", 0755) == -1 && errno == EEXIST,
	       "dirs: mkdir of an existing name is EEXIST");
	errno = 0;
	tap_ok(rmdir("/tmp/d") == -1 && errno == EEXIST,
	       "dirs: rmdir of a non-empty directory is EEXIST");
}

static void test_unlink(void)
{
	struct stat st;

	bool ok = unlink("/tmp/d/x") == 0;
	errno = 0;
	ok &= open("/tmp/d/x", O_RDONLY) == -1 && errno == ENOENT;
	errno = 0;
	ok &= stat("/tmp/d/x", &st) == -1 && errno == ENOENT;
	tap_ok(ok, "dirs: unlink, then open and stat give ENOENT");
	ok = rename("/tmp/d/y", "/tmp/d/sub/z") == 0 &&
		stat("/tmp/d/sub/z", &st) == 0 && stat("/tmp/d/y", &st) == -1;
	tap_ok(ok, "dirs: rename /tmp/d/y to /tmp/d/sub/z");
	ok = unlink("/tmp/d/sub/z") == 0 && rmdir("/tmp/d/sub") == 0 &&
		rmdir("/tmp/d") == 0 && stat("/tmp/d", &st) == -1;
	tap_ok(ok, "dirs: rmdir empties /tmp/d away");
}

/* An open file stays readable after it is unlinked. */
static void test_unlinked_open(void)
{
	char buf[8] = { 0 };

	write_file("/tmp/u", "kept", 4, O_TRUNC);
	int fd = open("/tmp/u", O_RDONLY);
	bool ok = unlink("/tmp/u") == 0 && read(fd, buf, 8) == 4 &&
		!strcmp(buf, "kept");
	tap_ok(close(fd) == 0 && ok, "dirs: an unlinked open file is still readable");
}

static void test_initrd(void)
{
	fs_info_t info;
	char buf[64] = { 0 }, list[256];

	if (fs_info(&info) != EOK || !info.initrd) {
		tap_diag("fs has no initrd (SYS_INITRD_MAP failed)");
		tap_skip("initrd: /etc/motd reads \"Welcome to Vernier.\"", "no initrd");
		tap_skip("initrd: readdir / lists bin, etc and tmp", "no initrd");
		return;
	}
	ssize_t r = read_file("/etc/motd", buf, sizeof(buf) - 1);
	tap_ok(r == 20 && !strcmp(buf, "Welcome to Vernier.\n"),
	       "initrd: /etc/motd reads \"Welcome to Vernier.\"");
	list_dir("/", list, sizeof(list));
	tap_ok(strstr(list, "bin/") && strstr(list, "etc/") && strstr(list, "tmp/"),
	       "initrd: readdir / lists bin, etc and tmp: %s", list);
}

static int no_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* scandir: every entry or the filtered ones, sorted; errors. */
static void test_scandir(void)
{
	struct dirent **list;
	const char *names[] = { "/tmp/sd/b", "/tmp/sd/.h", "/tmp/sd/a" };

	mkdir("/tmp/sd", 0755);
	for (int i = 0; i < 3; i++)
		write_file(names[i], "x", 1, O_TRUNC);
	int n = scandir("/tmp/sd", &list, NULL, alphasort);
	bool ok = n == 3 && !strcmp(list[0]->d_name, ".h") &&
		  !strcmp(list[1]->d_name, "a") && !strcmp(list[2]->d_name, "b");
	for (int i = 0; i < n; i++)
		free(list[i]);
	if (n >= 0)
		free(list);
	n = scandir("/tmp/sd", &list, no_dot, alphasort);
	ok &= n == 2 && !strcmp(list[0]->d_name, "a") && !strcmp(list[1]->d_name, "b");
	for (int i = 0; i < n; i++)
		free(list[i]);
	if (n >= 0)
		free(list);
	tap_ok(ok, "dirs: scandir sorts with alphasort and filters");
	tap_ok(scandir("/tmp/nothing", &list, NULL, NULL) == -1 && errno == ENOENT &&
	       scandir("/etc/motd", &list, NULL, NULL) == -1 && errno == ENOTDIR,
	       "dirs: scandir of nothing is ENOENT, of a file ENOTDIR");
	for (int i = 0; i < 3; i++)
		unlink(names[i]);
	rmdir("/tmp/sd");
}

void test_dirs(void)
{
	test_scandir();
	test_listing();
	test_unlink();
	test_unlinked_open();
	test_initrd();
}

/* open(path, flags) fails with err. */
static bool open_fails(const char *path, int flags, int err)
{
	errno = 0;
	int fd = open(path, flags, 0644);
	if (fd >= 0)
		close(fd);
	return fd == -1 && errno == err;
}

static void test_readonly(void)
{
	bool ok = open_fails("/new", O_WRONLY | O_CREAT, EPERM) &&
		open_fails("/etc/motd2", O_RDWR | O_CREAT, EPERM);
	errno = 0;
	ok &= mkdir("/newdir", 0755) == -1 && errno == EPERM;
	errno = 0;
	ok &= rmdir("/tmp") == -1 && errno == EPERM;
	tap_ok(ok, "errors: creating under / (outside /tmp) is EPERM");
	fs_info_t info;
	if (fs_info(&info) == EOK && info.initrd) {
		ok = open_fails("/etc/motd", O_WRONLY, EPERM);
		errno = 0;
		ok &= unlink("/etc/motd") == -1 && errno == EPERM;
		tap_ok(ok, "errors: writing or unlinking /etc/motd is EPERM");
	}
}

static void test_bad_paths(void)
{
	char longp[300], longc[80];

	memset(longp, 'a', sizeof(longp));
	memcpy(longp, "/tmp/", 5);
	longp[sizeof(longp) - 1] = '\0';
	memset(longc, 'b', sizeof(longc));
	memcpy(longc, "/tmp/", 5);
	longc[sizeof(longc) - 1] = '\0';
	bool ok = open_fails("", O_RDONLY, ENOENT) &&
		open_fails(longp, O_RDONLY, ENAMETOOLONG) &&
		open_fails(longc, O_CREAT | O_WRONLY, EINVAL);
	tap_ok(ok, "errors: empty paths are ENOENT, too long ENAMETOOLONG, too long names EINVAL");
	struct stat st;
	tap_ok(stat("//tmp//a.txt/", &st) == 0 && st.st_size == 20,
	       "errors: repeated and trailing slashes are ignored");
}

/* Relative paths, "." and "..", resolved by libc against the working directory. */
static void test_cwd(void)
{
	char buf[FS_PATH_MAX], small[4];

	tap_ok(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"), "cwd: starts at /");
	tap_ok(chdir("/etc/motd") == -1 && errno == ENOTDIR &&
	       chdir("/nope") == -1 && errno == ENOENT,
	       "cwd: chdir to a file is ENOTDIR, to nothing ENOENT");
	tap_ok(chdir("tmp") == 0 && getcwd(buf, sizeof(buf)) &&
	       !strcmp(buf, "/tmp"), "cwd: chdir tmp from / gives /tmp");
	tap_ok(getcwd(small, sizeof(small)) == NULL && errno == ERANGE,
	       "cwd: getcwd into a small buffer is ERANGE");
	write_file("rel.txt", "rel", 3, O_TRUNC);
	tap_ok(read_file("/tmp/rel.txt", buf, sizeof(buf)) == 3 &&
	       read_file("../tmp/./rel.txt", buf, sizeof(buf)) == 3 &&
	       read_file("./rel.txt", buf, sizeof(buf)) == 3,
	       "cwd: relative, \".\" and \"..\" paths resolve against it");
	unlink("rel.txt");
	tap_ok(chdir("..") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/") &&
	       chdir("..") == 0 && getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"),
	       "cwd: .. of / is /");
}

static void test_kinds(void)
{
	write_file("/tmp/f", "f", 1, O_TRUNC);
	tap_ok(open_fails("/tmp", O_WRONLY, EISDIR), "errors: opening /tmp for writing is EISDIR");
	tap_ok(open_fails("/tmp/f/x", O_RDONLY, ENOTDIR) &&
	       open_fails("/tmp/f", O_RDONLY | O_DIRECTORY, ENOTDIR),
	       "errors: a file used as a directory is ENOTDIR");
	tap_ok(open_fails("/tmp/f", O_WRONLY | O_CREAT | O_EXCL, EEXIST),
	       "errors: O_CREAT | O_EXCL on an existing file is EEXIST");
	tap_ok(open_fails("/tmp/nope", O_RDONLY, ENOENT) &&
	       open_fails("/tmp/nodir/x", O_WRONLY | O_CREAT, ENOENT),
	       "errors: missing files and directories are ENOENT");
	errno = 0;
	bool ok = unlink("/tmp") == -1 && errno == EISDIR;
	tap_ok(ok, "errors: unlink of a directory is EISDIR");
}

static void test_bad_fds(void)
{
	char c;
	int fd = open("/tmp/f", O_RDONLY);

	errno = 0;
	bool ok = write(fd, "x", 1) == -1 && errno == EBADF;
	close(fd);
	errno = 0;
	ok &= read(fd, &c, 1) == -1 && errno == EBADF;
	errno = 0;
	ok &= close(99) == -1 && errno == EBADF;
	errno = 0;
	ok &= lseek(1000, 0, SEEK_SET) == -1 && errno == EBADF;
	tap_ok(ok, "errors: closed, unknown or read-only descriptors give EBADF");
}

void test_errors(void)
{
	test_readonly();
	test_bad_paths();
	test_cwd();
	test_kinds();
	test_bad_fds();
}
