/* fstest: shared helpers (main.c) and the test groups. */
#ifndef FSTEST_H
#define FSTEST_H

#include <tap.h>
#include <errno.h>
#include <fcntl.h>
#include <fs_proto.h>
#include <ipc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>


/*
 * The file service's FS_M_INFO: bytes used/limit, open handles, initrd,
 * pipes alive.
 */
typedef struct fs_info {
	uint64_t used, limit, handles, initrd, pipes;
} fs_info_t;
errno_t fs_info(fs_info_t *info);
/* Wait (up to 2 s) for the server's open handle count to become n. */
bool wait_handles(uint64_t n);

/* Whole-file helpers over open/read/write; true on success. */
bool write_file(const char *path, const void *buf, size_t n, int flags);
ssize_t read_file(const char *path, void *buf, size_t n);
/* Run "/bin/fstest ARGS..." as a child; its exit status or -1. */
int run_child(const char *const *argv);

void test_files(void);
void test_dirs(void);
void test_errors(void);
void test_big(void);
void test_handles(void);
void test_stdio(void);
void test_raw(void);
void test_spawn(void);
void test_pipe(void);
/*
 * Child helpers: "fstest child-open N" / "fstest child-use" /
 * "fstest child-pipe-read PATH".
 */
int child_open(int n);
int child_use(void);
int child_pipe_read(const char *path);

#endif
