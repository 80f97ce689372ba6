/*
 * Files: POSIX-style descriptors over the file service (/bin/fs, protocol
 * in <fs_proto.h>), connected lazily by name. Descriptors 0, 1 and 2 are
 * the console's (src/unistd.c) unless the program was started with them
 * redirected (src/stdfd.c opens them here); 3 and up name fs handles. One
 * lock serialises the calls, so a staged path is always used by its own
 * call. Relative paths are resolved against the working directory
 * (src/cwd.c) before they are sent.
 *
 * When the file service dies (init starts it again), the call in flight
 * fails with EHANGUP and the phone is dropped; the next call connects to
 * the new server, waiting up to FS_RECONNECT_NS for it to register (so
 * does a program's first call, which may come during a restart). The
 * new server knows none of the old handles, so every descriptor opened
 * before is stale: using it gives EBADF (and frees it). A path call
 * (open, stat, mkdir, unlink...) that finds the server gone when it
 * stages its path is made to the new server instead (stage()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <ipc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vernier.h>

#include "fs_client.h"
#include "libc.h"

#define FS_RECONNECT_NS (2 * 1000000000ull)

typedef struct fdesc {
	bool used;
	unsigned gen;              /* fs_gen when it was opened */
	int flags;                 /* O_* given to open */
	uint64_t handle;           /* the server's */
	off_t pos;
} fdesc_t;

struct _DIR {
	int fd;
	uint64_t index;
	struct dirent ent;
};

static fdesc_t fds[__LIBC_FS_FD_MAX];
static libc_lock_t fs_lock = LIBC_LOCK_INIT;
static int fs_phone = -1;
static unsigned fs_gen;            /* connections made so far */

/* ------------------------------------------------------ helpers */

static int fail(errno_t e)
{
	errno = e;
	return -1;
}

/*
 * Make sure there is a phone to fs (lock held), waiting a little for a
 * server that is being started again to register.
 */
static errno_t fs_connect_locked(void)
{
	if (fs_phone >= 0)
		return EOK;
	errno_t rc = service_connect_wait(FS_SERVICE, FS_RECONNECT_NS, &fs_phone);
	if (rc != EOK)
		fs_phone = -1;
	else
		fs_gen++;
	return rc;
}

/* Take the lock and make sure there is a phone to fs. */
static errno_t fs_enter(void)
{
	__libc_lock(&fs_lock);
	errno_t rc = fs_connect_locked();
	if (rc != EOK)
		__libc_unlock(&fs_lock);
	return rc;
}

/*
 * A call to fs (lock held); EHANGUP means the server is gone: the phone
 * is dropped, so that the next fs_enter connects to its successor.
 */
static errno_t fs_sync(uint64_t method, uint64_t a0, uint64_t a1, uint64_t a2,
		       uint64_t a3, uint64_t a4, ipc_msg_t *ans)
{
	errno_t rc = ipc_call_sync(fs_phone, method, a0, a1, a2, a3, a4, ans);

	if (rc == EHANGUP && fs_phone >= 0) {
		sys_ipc_hangup(fs_phone);
		fs_phone = -1;
	}
	return rc;
}

static void fs_leave(void)
{
	__libc_unlock(&fs_lock);
}

/* The open descriptor fd (lock held), or NULL. */
static fdesc_t *fd_get(int fd)
{
	if (fd < 0 || fd >= __LIBC_FS_FD_MAX || !fds[fd].used)
		return NULL;
	if (fds[fd].gen != fs_gen) {       /* a handle of a server now gone */
		fds[fd].used = false;
		return NULL;
	}
	return &fds[fd];
}

static int fd_alloc(void)
{
	for (int fd = __LIBC_FS_FD_FIRST; fd < __LIBC_FS_FD_MAX; fd++)
		if (!fds[fd].used || fds[fd].gen != fs_gen)
			return fd;
	return -1;
}

/*
 * Stage path (second: rename's target) with the server (lock held). It is
 * the first message of every path call, so a server found gone here is
 * replaced by its successor and the path staged there (descriptors opened
 * before are stale from then on).
 */
static errno_t stage(const char *path, bool second)
{
	char abs[FS_PATH_MAX];
	errno_t rc = __libc_path_resolve(path, abs);

	for (int i = 0; rc == EOK; i++) {
		rc = fs_sync(IPC_M_DATA_WRITE, (uintptr_t)abs, strlen(abs),
			     second ? FS_DW_PATH2 : FS_DW_PATH, 0, 0, NULL);
		if (rc != EHANGUP || i > 0)
			break;
		rc = fs_connect_locked();
	}
	return rc;
}

/* Stage path, then make call method(a0, a1); the answer goes to *ans. */
static errno_t path_call(const char *path, uint64_t method, uint64_t a0,
			 uint64_t a1, ipc_msg_t *ans)
{
	errno_t rc = fs_enter();

	if (rc != EOK)
		return rc;
	rc = stage(path, false);
	if (rc == EOK)
		rc = fs_sync(method, a0, a1, 0, 0, 0, ans);
	fs_leave();
	return rc;
}

static int result(errno_t rc)
{
	return rc == EOK ? 0 : fail(rc);
}

/* ------------------------------------------------------ open, close */

/* Open path with flags into descriptor fd, or a new one if fd < 0 (lock held). */
static int open_locked(const char *path, int flags, int fd)
{
	ipc_msg_t ans;

	if (fd < 0 && (fd = fd_alloc()) < 0)
		return fail(ELIMIT);
	errno_t rc = stage(path, false);
	if (rc == EOK)
		rc = fs_sync(FS_M_OPEN, (uint64_t)flags, 0, 0, 0, 0, &ans);
	if (rc != EOK)
		return fail(rc);
	fds[fd] = (fdesc_t){ .used = true, .gen = fs_gen, .flags = flags,
			     .handle = ans.args[0], .pos = 0 };
	return fd;
}

/* Open path (see <fcntl.h>); a descriptor or -1 with errno. */
int open(const char *path, int flags, ...)
{
	errno_t rc = fs_enter();

	if (rc != EOK)
		return fail(rc);
	int fd = open_locked(path, flags, -1);
	fs_leave();
	return fd;
}

int __libc_fs_open_at(int fd, const char *path, int flags)
{
	if (fd < 0 || fd >= __LIBC_FS_FD_FIRST)
		return fail(EBADF);
	errno_t rc = fs_enter();
	if (rc != EOK)
		return fail(rc);
	int r = fds[fd].used ? fail(EBUSY) : open_locked(path, flags, fd);
	fs_leave();
	return r;
}

bool __libc_fs_fd_open(int fd)
{
	return fd >= 0 && fd < __LIBC_FS_FD_MAX &&
	       __atomic_load_n(&fds[fd].used, __ATOMIC_RELAXED);
}

/* Create path for writing, truncated. */
int creat(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

#define FS_TRIES 8       /* sends of a clean-up call that failed in passing */

/*
 * Did a call fail in passing (EFAULT, ENOMEM, ELIMIT: it was not sent, or
 * its answer was not read), so that sending it again may work?
 */
static bool fs_passing(errno_t rc)
{
	return rc == EFAULT || rc == ENOMEM || rc == ELIMIT;
}

/*
 * Close handle h at the server (lock held). The descriptor goes whatever
 * happens, so a close that failed in passing is sent again, a few times:
 * a handle left open would keep a pipe's end open, and its reader waiting
 * for end of file, as long as this task lives.
 */
static errno_t close_handle(uint64_t h)
{
	errno_t rc = EFAULT;

	for (int i = 0; i < FS_TRIES && fs_passing(rc); i++) {
		if (i > 0)
			sys_sleep_ns(1000000ull);
		rc = fs_sync(FS_M_CLOSE, h, 0, 0, 0, 0, NULL);
	}
	return rc;
}

/* Close descriptor fd (a file); 0, or -1 with errno (EBADF). */
int close(int fd)
{
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	errno_t rc = d ? close_handle(d->handle) : EBADF;
	if (d)
		d->used = false;           /* gone even if the server failed */
	fs_leave();
	return result(rc == EHANGUP ? EOK : rc);
}

/* ------------------------------------------------------ data */

/* Read up to n bytes at off through d (lock held); bytes or -errno. */
static ssize_t pread_locked(fdesc_t *d, void *buf, size_t n, off_t off)
{
	size_t done = 0;

	while (done < n) {
		size_t chunk = n - done < IPC_DATA_MAX ? n - done : IPC_DATA_MAX;
		ipc_msg_t ans;
		errno_t rc = fs_sync(IPC_M_DATA_READ,
				     (uintptr_t)buf + done, chunk, FS_DR_FILE,
				     d->handle, (uint64_t)off + done, &ans);
		if (rc != EOK)
			return done > 0 ? (ssize_t)done : -(ssize_t)rc;
		done += ans.args[1];
		if (ans.args[1] < chunk)
			break;
	}
	return (ssize_t)done;
}

/*
 * Write n bytes at *off (append: at the end) through d (lock held);
 * *off moves past them. Bytes written or -errno.
 */
static ssize_t pwrite_locked(fdesc_t *d, const void *buf, size_t n,
			     off_t *off, bool append)
{
	size_t done = 0;

	while (done < n) {
		size_t chunk = n - done < IPC_DATA_MAX ? n - done : IPC_DATA_MAX;
		ipc_msg_t ans;
		uint64_t at = append ? FS_OFF_APPEND : (uint64_t)*off;
		errno_t rc = fs_sync(IPC_M_DATA_WRITE,
				     (uintptr_t)buf + done, chunk, FS_DW_FILE,
				     d->handle, at, &ans);
		if (rc != EOK)
			return done > 0 ? (ssize_t)done : -(ssize_t)rc;
		done += ans.args[1];
		*off = (off_t)ans.args[2];
		if (ans.args[1] == 0)     /* full: the next call would fail */
			break;
	}
	return (ssize_t)done;
}

static bool readable(const fdesc_t *d)
{
	return (d->flags & O_ACCMODE) != O_WRONLY;
}

static bool writable(const fdesc_t *d)
{
	return (d->flags & O_ACCMODE) != O_RDONLY;
}

/* A result of the *_locked calls as a POSIX one. */
static ssize_t io_result(ssize_t r)
{
	if (r >= 0)
		return r;
	errno = (int)-r == EINVAL ? EBADF : (int)-r;
	return -1;
}

ssize_t __libc_fs_read(int fd, void *buf, size_t n)
{
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	ssize_t r = d && readable(d) ? pread_locked(d, buf, n, d->pos) : -EBADF;
	if (r > 0)
		d->pos += r;
	fs_leave();
	return io_result(r);
}

ssize_t __libc_fs_write(int fd, const void *buf, size_t n)
{
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	ssize_t r = -EBADF;
	if (d && writable(d))
		r = pwrite_locked(d, buf, n, &d->pos, (d->flags & O_APPEND) != 0);
	fs_leave();
	return io_result(r);
}

/* Read up to n bytes at off without moving the file position. */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (off < 0)
		return fail(EINVAL);
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	ssize_t r = d && readable(d) ? pread_locked(d, buf, n, off) : -EBADF;
	fs_leave();
	return io_result(r);
}

/* Write n bytes at off without moving the file position. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (off < 0)
		return fail(EINVAL);
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	ssize_t r = d && writable(d) ? pwrite_locked(d, buf, n, &off, false)
				     : -EBADF;
	fs_leave();
	return io_result(r);
}

/* ------------------------------------------------------ status */

static void stat_from(const fs_stat_t *fst, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = fst->ino;
	st->st_mode = (fst->type == FS_TYPE_DIR ? S_IFDIR
		       : fst->type == FS_TYPE_PIPE ? S_IFIFO : S_IFREG) |
		      (fst->mode & 07777);
	st->st_nlink = fst->nlink;
	st->st_size = (off_t)fst->size;
}

/* The status of handle (or FS_STAGED) into *fst (lock held). */
static errno_t stat_locked(uint64_t handle, fs_stat_t *fst)
{
	return fs_sync(IPC_M_DATA_READ, (uintptr_t)fst,
		       sizeof(*fst), FS_DR_STAT, handle, 0, NULL);
}

/* Status of path. */
int stat(const char *path, struct stat *st)
{
	fs_stat_t fst;
	errno_t rc = fs_enter();

	if (rc != EOK)
		return fail(rc);
	rc = stage(path, false);
	if (rc == EOK)
		rc = stat_locked(FS_STAGED, &fst);
	fs_leave();
	if (rc == EOK)
		stat_from(&fst, st);
	return result(rc);
}

/* Status of descriptor fd. */
int fstat(int fd, struct stat *st)
{
	fs_stat_t fst;

	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	errno_t rc = d ? stat_locked(d->handle, &fst) : EBADF;
	fs_leave();
	if (rc == EOK)
		stat_from(&fst, st);
	return result(rc);
}

/* Move the file position of fd; the new position, or -1 with errno. */
off_t lseek(int fd, off_t off, int whence)
{
	fs_stat_t fst;
	off_t base = 0;

	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	errno_t rc = d ? EOK : EBADF;
	if (rc == EOK && whence == SEEK_CUR)
		base = d->pos;
	else if (rc == EOK && whence == SEEK_END &&
		 (rc = stat_locked(d->handle, &fst)) == EOK)
		base = (off_t)fst.size;
	else if (rc == EOK && whence != SEEK_SET)
		rc = EINVAL;
	if (rc == EOK && base + off < 0)
		rc = EINVAL;
	if (rc == EOK)
		d->pos = base + off;
	off_t r = rc == EOK ? d->pos : fail(rc);
	fs_leave();
	return r;
}

/* Set the size of the file open for writing as fd. */
int ftruncate(int fd, off_t size)
{
	if (size < 0)
		return fail(EINVAL);
	if (fs_enter() != EOK)
		return fail(EBADF);
	fdesc_t *d = fd_get(fd);
	errno_t rc = !d ? EBADF : !writable(d) ? EINVAL
		: fs_sync(FS_M_TRUNCATE, d->handle,
			  (uint64_t)size, 0, 0, 0, NULL);
	fs_leave();
	return result(rc);
}

/* ------------------------------------------------------ names */

/* Create directory path. */
int mkdir(const char *path, mode_t mode)
{
	(void)mode;
	return result(path_call(path, FS_M_MKDIR, 0, 0, NULL));
}

/* Remove file path. */
int unlink(const char *path)
{
	return result(path_call(path, FS_M_UNLINK, 0, 0, NULL));
}

/* Remove the empty directory path. */
int rmdir(const char *path)
{
	return result(path_call(path, FS_M_RMDIR, 0, 0, NULL));
}

/* Move from to to (replacing a file, or an empty directory, there). */
int rename(const char *from, const char *to)
{
	errno_t rc = fs_enter();

	if (rc != EOK)
		return fail(rc);
	rc = stage(to, true);
	if (rc == EOK)
		rc = stage(from, false);
	if (rc == EOK)
		rc = fs_sync(FS_M_RENAME, 0, 0, 0, 0, 0, NULL);
	fs_leave();
	return result(rc);
}

/* ------------------------------------------------------ directories */

/* Open directory path for readdir. */
DIR *opendir(const char *path)
{
	DIR *dir = calloc(1, sizeof(*dir));

	if (!dir)
		return NULL;
	dir->fd = open(path, O_RDONLY | O_DIRECTORY);
	if (dir->fd < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* Entry index of directory descriptor fd into *de (lock taken here). */
static errno_t readdir_at(int fd, uint64_t index, fs_dirent_t *de)
{
	if (fs_enter() != EOK)
		return EBADF;
	fdesc_t *d = fd_get(fd);
	errno_t rc = d ? fs_sync(IPC_M_DATA_READ, (uintptr_t)de,
				 sizeof(*de), FS_DR_READDIR, d->handle,
				 index, NULL) : EBADF;
	fs_leave();
	return rc;
}

/* The next entry of dir, or NULL at the end (errno kept) or on error. */
struct dirent *readdir(DIR *dir)
{
	fs_dirent_t de;
	errno_t rc = readdir_at(dir->fd, dir->index, &de);

	if (rc == ENOENT)
		return NULL;
	if (rc != EOK) {
		errno = rc;
		return NULL;
	}
	dir->index++;
	dir->ent.d_ino = de.ino;
	dir->ent.d_type = de.type == FS_TYPE_DIR ? DT_DIR
			  : de.type == FS_TYPE_PIPE ? DT_FIFO : DT_REG;
	de.name[FS_NAME_MAX] = '\0';
	strcpy(dir->ent.d_name, de.name);
	return &dir->ent;
}

/* Back to the first entry of dir. */
void rewinddir(DIR *dir)
{
	dir->index = 0;
}

/* Close dir and free it. */
int closedir(DIR *dir)
{
	int r = close(dir->fd);

	free(dir);
	return r;
}

/* ------------------------------------------------------ pipes */

/* Close descriptor fd, opened just now (lock held). */
static void pipe_undo(int fd)
{
	close_handle(fds[fd].handle);
	fds[fd].used = false;
}

/* Unlink the new pipe's name, again after a passing failure (lock held). */
static void pipe_unlink(const char *path)
{
	errno_t rc = EFAULT;

	for (int i = 0; i < FS_TRIES && fs_passing(rc); i++) {
		rc = stage(path, false);
		if (rc == EOK)
			rc = fs_sync(FS_M_UNLINK, 0, 0, 0, 0, 0, NULL);
	}
}

/*
 * Make a pipe (FS_M_MKPIPE), open its ends into ends[0] (read) and
 * ends[1] (write) and unlink its name, so that it lasts as long as the
 * ends do (lock held). EOK or the error.
 */
static errno_t pipe_locked(int ends[2])
{
	char path[32];
	ipc_msg_t ans;
	errno_t rc = fs_sync(FS_M_MKPIPE, 0, 0, 0, 0, 0, &ans);

	if (rc != EOK)
		return rc;
	snprintf(path, sizeof(path), FS_PIPE_DIR "/%lu", (unsigned long)ans.args[0]);
	ends[0] = open_locked(path, O_RDONLY, -1);
	ends[1] = ends[0] >= 0 ? open_locked(path, O_WRONLY, -1) : -1;
	rc = ends[1] >= 0 ? EOK : errno;
	if (ends[0] >= 0 && ends[1] < 0)
		pipe_undo(ends[0]);
	pipe_unlink(path);
	return rc;
}

/*
 * An anonymous pipe: ends[0] reads what ends[1] writes. 0, or -1 with
 * errno. A read of an empty pipe waits for a writer, holding the lock of
 * every file call of this task meanwhile: a thread must not wait on a
 * pipe that another thread of the same task is to fill with read/write.
 */
int pipe(int ends[2])
{
	errno_t rc = fs_enter();

	if (rc == EOK) {
		rc = pipe_locked(ends);
		fs_leave();
	}
	return result(rc);
}

/* Append a copy of e to *list (n entries, room for *cap); 0 or ENOMEM. */
static int scandir_push(struct dirent ***list, size_t n, size_t *cap,
			const struct dirent *e)
{
	if (n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct dirent **v = reallocarray(*list, ncap, sizeof(*v));
		if (!v)
			return ENOMEM;
		*list = v;
		*cap = ncap;
	}
	if (!((*list)[n] = malloc(sizeof(*e))))
		return ENOMEM;
	memcpy((*list)[n], e, sizeof(*e));
	return 0;
}

static void scandir_free(struct dirent **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

typedef int (*scandir_compar_t)(const struct dirent **, const struct dirent **);

static int scandir_cmp(const void *a, const void *b, void *compar)
{
	return ((scandir_compar_t)compar)((const struct dirent **)a,
					  (const struct dirent **)b);
}

int scandir(const char *path, struct dirent ***list,
	    int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **))
{
	struct dirent **v = NULL, *e;
	size_t n = 0, cap = 0;
	int err = 0;
	DIR *dir = opendir(path);

	if (!dir)
		return -1;
	while (!err) {
		errno = 0;
		if (!(e = readdir(dir))) {
			err = errno;        /* 0 at the end */
			break;
		}
		if (filter && !filter(e))
			continue;
		err = scandir_push(&v, n, &cap, e);
		n += !err;
	}
	closedir(dir);
	if (err) {
		scandir_free(v, n);
		return fail(err);
	}
	if (compar)
		qsort_r(v, n, sizeof(*v), scandir_cmp, (void *)compar);
	*list = v;
	return (int)n;
}

int alphasort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

errno_t file_read_all(const char *path, size_t max, void **data, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno;
	errno_t rc = fstat(fd, &st) ? errno : S_ISDIR(st.st_mode) ? EISDIR
		: (size_t)st.st_size > max ? E2BIG : EOK;
	char *buf = rc == EOK ? malloc((size_t)st.st_size + 1) : NULL;
	if (rc == EOK && !buf)
		rc = ENOMEM;
	if (rc == EOK && (errno = 0, pread(fd, buf, (size_t)st.st_size, 0)) != st.st_size)
		rc = errno ? errno : EIO;     /* an error, or the file shrank */
	close(fd);
	if (rc != EOK) {
		free(buf);
		return rc;
	}
	*data = buf;
	*size = (size_t)st.st_size;
	return EOK;
}
