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
/* Wait (up to 10 s) for the server's open handle count to become n. */
bool wait_handles(uint64_t n);

/* Whole-file helpers over open/read/write; true on success. */
bool write_file(const char *path, const void *buf, size_t n, int flags);
ssize_t read_file(const char *path, void *buf, size_t n);
/* Run "/bin/fstest ARGS..." as a child; its exit status or -1. */
int run_child(const char *const *argv);

/*
 * raw.c: the protocol on a phone of one's own. raw_connect: a new
 * connection to "fs" (-1 if none); raw_open stages path and opens it
 * (the handle to *h); raw_mkpipe: a new pipe's name into path (32 bytes);
 * raw_io: one DATA_READ/DATA_WRITE at offset 0, raw_write_at: a write at
 * off (bytes moved to *moved); raw_usage: FS_DR_USAGE from the first tree
 * on a connection made for it. Each returns the server's answer.
 */
int raw_connect(void);
errno_t raw_stage(int phone, const char *path);
errno_t raw_open(int phone, const char *path, uint32_t flags, uint64_t *h);
errno_t raw_close(int phone, uint64_t h);
errno_t raw_mkpipe(int phone, char *path);
errno_t raw_io(int phone, bool write, uint64_t h, void *buf, size_t n,
	       size_t *moved);
errno_t raw_write_at(int phone, uint64_t h, const void *buf, size_t n,
		     uint64_t off, size_t *moved);
errno_t raw_stat(int phone, const char *path, fs_stat_t *st);
errno_t raw_usage(fs_usage_t *u);

void test_files(void);
void test_dirs(void);
void test_errors(void);
void test_big(void);
void test_handles(void);
void test_stdio(void);
void test_raw(void);
void test_spawn(void);
void test_pipe(void);
void test_probe(void);
/*
 * Child helpers: "fstest child-open N" / "fstest child-use" /
 * "fstest child-pipe-read PATH".
 */
int child_open(int n);
int child_use(void);
int child_pipe_read(const char *path);
/*
 * The probes test_probe runs under restrict (test_probe.c): "fstest
 * probe-write", "probe-handles" (its child: "probe-hold"), "probe-orphan"
 * (its child: "probe-orphan-kid"), "probe-pipe" and "probe-pipe-open PATH
 * ok|eperm". Exit status 0 if all went as it should.
 */
int probe_write(void);
int probe_handles(bool first);
int probe_orphan(void);
int probe_orphan_kid(void);
int probe_pipe(void);
int probe_pipe_open(const char *path, const char *expect);

#endif
