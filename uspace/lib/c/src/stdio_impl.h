/* The FILE structure and the unlocked stream primitives (src/stdio.c). */
#ifndef LIBC_STDIO_IMPL_H
#define LIBC_STDIO_IMPL_H

#include <stdio.h>

#include "libc.h"

/* A read stream's buffer: one fs call a 4 KiB page (128 bytes took 5,800
 * calls for a 740 KB file: 12 s under the call-profiled file service). */
#define FILE_RBUF 4096

enum {
	FILE_READ = 1 << 0,      /* opened for reading */
	FILE_WRITE = 1 << 1,     /* opened for writing */
	FILE_ERR = 1 << 2,       /* error indicator */
	FILE_EOF = 1 << 3,       /* end-of-file indicator */
	FILE_OWN_BUF = 1 << 4,   /* wbuf was malloc'd by us */
	FILE_MALLOCED = 1 << 5,  /* the FILE itself was malloc'd */
	FILE_USED = 1 << 6,      /* I/O happened: setvbuf refused */
	FILE_OWN_RBUF = 1 << 7,  /* rbuf was malloc'd by us */
};

struct _FILE {
	libc_lock_t lock;
	unsigned flags;
	int mode;                  /* _IOFBF, _IOLBF or _IONBF */
	void *cookie;
	cookie_io_functions_t io;
	char *wbuf;                /* output buffer (NULL: unbuffered) */
	size_t wsize;
	size_t wpos;               /* bytes pending in wbuf */
	unsigned char *rbuf;       /* input buffer, FILE_RBUF bytes (made at first read) */
	size_t rpos, rlen;         /* unread bytes: rbuf[rpos..rlen) */
	struct _FILE *next;        /* the list of open streams */
};

/*
 * Unlocked primitives: the caller holds f->lock. file_write buffers (or
 * writes through) n bytes and returns how many were accepted (n unless
 * an error occurred); file_flush writes the buffer out (0 or EOF).
 */
size_t __libc_file_write(FILE *f, const char *s, size_t n);
int __libc_file_flush(FILE *f);

/*
 * Output of one call on an unbuffered stream is collected in a temporary
 * buffer (tmp, size bytes) between batch_begin and batch_end, so that it
 * reaches the back end in as few writes as possible (one if it fits).
 * Both are no-ops on buffered streams. batch_end returns 0 or EOF.
 */
typedef struct file_batch {
	bool active;
	int mode;
	char *wbuf;
	size_t wsize;
} file_batch_t;

void __libc_file_batch_begin(FILE *f, file_batch_t *b, char *tmp,
			     size_t size);
int __libc_file_batch_end(FILE *f, file_batch_t *b);

#endif
