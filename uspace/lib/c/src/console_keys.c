/*
 * Keys typed on the terminal, without blocking (see <console.h>). The
 * terminal goes to raw mode (keys arrive unechoed, without Enter);
 * console_read blocks until something is typed, so a reader thread does
 * it on its own connection and queues the keys in a ring the caller
 * empties. The reader stops after a stop key, so it can be joined.
 */
#include <console.h>
#include <ipc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <thread.h>

#define KEYS_RING 256
#define KEYS_READ_MAX 32
#define KEYS_STOP_MAX 8

struct console_keys {
	int phone;                /* the standard streams': the mode */
	int in_phone;             /* the reader's */
	unsigned old_mode;
	thread_id_t reader;
	char stop[KEYS_STOP_MAX + 1];
	char ring[KEYS_RING];
	uint64_t head;            /* written by the reader only */
	uint64_t tail;            /* written by console_keys_take only */
	bool stopped;             /* the reader queued a stop key (reader only) */
};

static bool is_stop(const console_keys_t *k, char c)
{
	return c != '\0' && strchr(k->stop, c) != NULL;
}

/* Queue keys (those that do not fit are lost); true after a stop key. */
static bool ring_push(console_keys_t *k, const char *keys, size_t n)
{
	uint64_t head = k->head;
	bool stop = false;

	for (size_t i = 0; i < n && !stop; i++) {
		if (head - __atomic_load_n(&k->tail, __ATOMIC_ACQUIRE) < KEYS_RING)
			k->ring[head++ % KEYS_RING] = keys[i];
		stop = is_stop(k, keys[i]);
	}
	if (stop)
		__atomic_store_n(&k->stopped, true, __ATOMIC_RELEASE);
	__atomic_store_n(&k->head, head, __ATOMIC_RELEASE);
	return stop;
}

static long reader_main(void *arg)
{
	console_keys_t *k = arg;
	char keys[KEYS_READ_MAX];
	size_t got;

	do {
		got = 0;
		if (console_read(k->in_phone, keys, sizeof(keys), &got) != EOK ||
		    got == 0) {
			ring_push(k, k->stop, 1);   /* no more keys: stop */
			break;
		}
	} while (!ring_push(k, keys, got));
	return 0;
}

/* Raw mode and the reader thread (on a connection of its own if it can). */
static errno_t keys_start(console_keys_t *k)
{
	errno_t rc = console_set_mode(k->phone, CONSOLE_MODE_RAW, &k->old_mode);

	if (rc != EOK)
		return rc;
	if (console_connect(&k->in_phone) != EOK)
		k->in_phone = k->phone;
	rc = thread_start(reader_main, k, &k->reader);
	if (rc != EOK) {
		console_set_mode(k->phone, k->old_mode, NULL);
		if (k->in_phone != k->phone)
			sys_ipc_hangup(k->in_phone);
	}
	return rc;
}

errno_t console_keys_open(const char *stop, console_keys_t **out)
{
	console_keys_t *k;
	errno_t rc;

	if (!stop || !stop[0] || strlen(stop) > KEYS_STOP_MAX)
		return EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return ENOMEM;
	strcpy(k->stop, stop);
	k->phone = console_stdio_phone();
	rc = k->phone < 0 ? ENOTTY : keys_start(k);
	if (rc != EOK) {
		free(k);
		return rc;
	}
	*out = k;
	return EOK;
}

size_t console_keys_take(console_keys_t *k, char *buf, size_t n)
{
	uint64_t head = __atomic_load_n(&k->head, __ATOMIC_ACQUIRE);
	size_t got = 0;

	for (; k->tail + got < head && got < n; got++)
		buf[got] = k->ring[(k->tail + got) % KEYS_RING];
	__atomic_store_n(&k->tail, k->tail + got, __ATOMIC_RELEASE);
	return got;
}

void console_keys_close(console_keys_t *k)
{
	console_set_mode(k->phone, k->old_mode, NULL);
	if (!__atomic_load_n(&k->stopped, __ATOMIC_ACQUIRE))
		return;
	thread_join(k->reader, NULL);
	if (k->in_phone != k->phone)
		sys_ipc_hangup(k->in_phone);
	free(k);
}
