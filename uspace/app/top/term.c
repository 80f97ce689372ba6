/*
 * top: the console for the full-screen mode: raw mode and the keys typed
 * (libc's console_keys, whose reader stops after q or Ctrl-C, the keys
 * that quit), the screen's size, clearing it on the way in and out.
 */
#include <console.h>
#include <stdio.h>
#include <stdlib.h>

#include "top.h"

#define QUIT_KEYS "q\x03"

struct top_term {
	int phone;                /* the standard streams': size */
	console_keys_t *keys;
};

top_term_t *top_term_open(errno_t *rc)
{
	top_term_t *t = calloc(1, sizeof(*t));

	*rc = t ? EOK : ENOMEM;
	if (t) {
		t->phone = console_stdio_phone();
		*rc = t->phone < 0 ? ENOTTY : console_keys_open(QUIT_KEYS, &t->keys);
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
	console_size_or_default(t->phone, 2, rows, cols);
}

size_t top_term_keys(top_term_t *t, char *buf, size_t n)
{
	return console_keys_take(t->keys, buf, n);
}

void top_term_close(top_term_t *t)
{
	fputs("\x1b[H\x1b[2J", stdout);
	fflush(stdout);
	console_keys_close(t->keys);
	free(t);
}
