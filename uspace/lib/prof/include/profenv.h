/*
 * The profiler tools' hosted environment (uspace/lib/prof/profenv.c):
 * the one prof_env_t of every tool that has a C library, on the host
 * (vprof, kprof, cprofalyze) and in the guest (profile, sprofile,
 * sprofdiff, kprof, cprofalyze). Memory is malloc and free, text goes to
 * a stdio FILE, binaries are read whole with stdio unless the tool has
 * its own loader (vprof and cprofalyze look them up under a root).
 */
#ifndef PROFENV_H
#define PROFENV_H

#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What prof_env_stdio builds an environment from (it must outlive it). */
typedef struct prof_stdio {
	void *ctx;                      /* the loader's */
	/* NULL: prof_env_read_file. */
	errno_t (*load)(void *ctx, const char *path, void **data, size_t *size);
	FILE *out;                      /* env.out's file; NULL: stdout */
} prof_stdio_t;

/* The environment of s: malloc, free, s's loader, fwrite to s's file. */
prof_env_t prof_env_stdio(const prof_stdio_t *s);

/* malloc(size) (ctx unused): an allocator for prof_env_t and profsym_mem_t. */
void *prof_env_malloc(void *ctx, size_t size);

/* free(p) (ctx unused). */
void prof_env_free(void *ctx, void *p);

/* fwrite of len bytes of s to the FILE file: a text sink (fmt_sink_t). */
void prof_env_fwrite(void *file, const char *s, size_t len);

/* fwrite of len bytes of data to the FILE file: a byte sink (exports). */
void prof_env_write(void *file, const void *data, size_t len);

/*
 * Read the whole file path into malloc'd memory (*data, *size bytes).
 * EOK; ENOENT when it cannot be opened, ENOMEM, or EIO on a read error
 * (then nothing is kept).
 */
errno_t prof_env_read_file(const char *path, void **data, size_t *size);

#endif
