/*
 * top: the console for the full-screen mode. The terminal goes to raw
 * mode (keys arrive unechoed, without Enter); console_read blocks until
 * something is typed, so a reader thread does it on its own connection
 * and queues the keys in a ring the refresh loop empties. The reader
 * stops after a key that quits (q or Ctrl-C), so it can be joined.
 */
#include <console.h>
#include <ipc.h>
#include <stdio.h>
#include <stdlib.h>
#include <thread.h>

#include "top.h"

#define RING 256
#define ROWS_DEFAULT 25
#define COLS_DEFAULT 80
#define READ_MAX 32

struct top_term {
	int phone;                /* the standard streams': mode, size */
	int in_phone;             /* the reader's */
	unsigned old_mode;
	thread_id_t reader;
	char ring[RING];
	uint64_t head;            /* written by the reader only */
	uint64_t tail;            /* written by the refresh loop only */
	bool quit_taken;          /* a quitting key was handed out */
};

/* Queue keys (those that do not fit are lost); true after one that quits. */
static bool ring_push(top_term_t *t, const char *keys, size_t n)
{
	uint64_t head = t->head;
	bool quit = false;

	for (size_t i = 0; i < n && !quit; i++) {
		if (head - __atomic_load_n(&t->tail, __ATOMIC_ACQUIRE) < RING)
			t->ring[head++ % RING] = keys[i];
		quit = top_key_quits(keys[i]);
	}
	__atomic_store_n(&t->head, head, __ATOMIC_RELEASE);
	return quit;
}

static long reader_main(void *arg)
{
	static const char quit = 'q';
	top_term_t *t = arg;
	char keys[READ_MAX];
	size_t got;

	do {
		got = 0;
		if (console_read(t->in_phone, keys, sizeof(keys), &got) != EOK ||
		    got == 0) {
			ring_push(t, &quit, 1);   /* no more keys: end top */
			break;
		}
	} while (!ring_push(t, keys, got));
	return 0;
}

/* Raw mode and the reader thread (on a connection of its own if it can). */
static errno_t term_start(top_term_t *t)
{
	errno_t rc = console_set_mode(t->phone, CONSOLE_MODE_RAW, &t->old_mode);

	if (rc != EOK)
		return rc;
	if (console_connect(&t->in_phone) != EOK)
		t->in_phone = t->phone;
	rc = thread_start(reader_main, t, &t->reader);
	if (rc != EOK)
		console_set_mode(t->phone, t->old_mode, NULL);
	return rc;
}

top_term_t *top_term_open(errno_t *rc)
{
	top_term_t *t = calloc(1, sizeof(*t));

	*rc = t ? EOK : ENOMEM;
	if (t) {
		t->phone = console_stdio_phone();
		*rc = t->phone < 0 ? ENOTTY : term_start(t);
	}
	if (*rc != EOK) {
		free(t);
		return NULL;
	}
	fputs("\x1b[H\x1b[2J", stdout);
	fflush(stdout);
	return t;
}

void top_term_size(top_term_t *t, unsigned *rows, unsigned *cols)
{
	if (console_size(t->phone, rows, cols) != EOK || *rows < 2 || *cols < 2) {
		*rows = ROWS_DEFAULT;
		*cols = COLS_DEFAULT;
	}
}

size_t top_term_keys(top_term_t *t, char *buf, size_t n)
{
	uint64_t head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	size_t got = 0;

	for (; t->tail + got < head && got < n; got++) {
		buf[got] = t->ring[(t->tail + got) % RING];
		t->quit_taken |= top_key_quits(buf[got]);
	}
	__atomic_store_n(&t->tail, t->tail + got, __ATOMIC_RELEASE);
	return got;
}

/*
 * The reader is joined when it stops (after a quitting key); one still
 * waiting for a key (top ended by -n) ends with the task.
 */
void top_term_close(top_term_t *t)
{
	fputs("\x1b[H\x1b[2J", stdout);
	fflush(stdout);
	console_set_mode(t->phone, t->old_mode, NULL);
	if (!t->quit_taken)
		return;
	thread_join(t->reader, NULL);
	if (t->in_phone != t->phone)
		sys_ipc_hangup(t->in_phone);
	free(t);
}
