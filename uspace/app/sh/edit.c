/*
 * sh: the line editor. The console runs in raw mode while a line is
 * typed; we echo and redraw ourselves: printable characters insert,
 * Backspace/Delete erase, Left/Right/Home/End (and Ctrl-A/Ctrl-E) move,
 * Up/Down walk the history, Ctrl-U erases the line, Ctrl-C abandons it,
 * Ctrl-D on an empty line ends the input, Enter takes it.
 */
#include <console.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

#define HIST_MAX 32

typedef struct editor {
	char *buf;
	size_t size, len, cur;
	const char *prompt;
	int esc;                     /* 0, 1 after ESC, 2 in CSI */
	int esc_param;
} editor_t;

static char history[HIST_MAX][SH_LINE_MAX];
static int hist_count;           /* lines kept, newest last */
static int hist_pos;             /* while browsing: index, hist_count = new */
static char hist_scratch[SH_LINE_MAX];

static void out(const char *s, size_t n)
{
	write(STDOUT_FILENO, s, n);
}

static void out_str(const char *s)
{
	out(s, strlen(s));
}

/* Draw the prompt and line again and put the cursor in place. */
static void ed_redraw(editor_t *e)
{
	char move[16];

	out_str("\r");
	out_str(e->prompt);
	out(e->buf, e->len);
	out_str("\x1b[K");
	if (e->cur < e->len) {
		snprintf(move, sizeof(move), "\x1b[%zuD", e->len - e->cur);
		out_str(move);
	}
}

static void ed_set(editor_t *e, const char *s)
{
	e->len = strnlen(s, e->size - 1);
	memcpy(e->buf, s, e->len);
	e->cur = e->len;
	ed_redraw(e);
}

static void ed_insert(editor_t *e, char c)
{
	if (e->len + 1 >= e->size)
		return;
	memmove(e->buf + e->cur + 1, e->buf + e->cur, e->len - e->cur);
	e->buf[e->cur++] = c;
	e->len++;
	if (e->cur == e->len)
		out(&c, 1);              /* typing at the end: no redraw */
	else
		ed_redraw(e);
}

/* Erase the character before the cursor (after it if forward). */
static void ed_erase(editor_t *e, bool forward)
{
	if (forward ? e->cur >= e->len : e->cur == 0)
		return;
	if (!forward)
		e->cur--;
	memmove(e->buf + e->cur, e->buf + e->cur + 1, e->len - e->cur - 1);
	e->len--;
	ed_redraw(e);
}

static void ed_move(editor_t *e, size_t to)
{
	e->cur = to > e->len ? e->len : to;
	ed_redraw(e);
}

/* Up (dir -1) or down (+1) in the history. */
static void ed_history(editor_t *e, int dir)
{
	int to = hist_pos + dir;

	if (to < 0 || to > hist_count)
		return;
	if (hist_pos == hist_count) {   /* leaving the new line: keep it */
		memcpy(hist_scratch, e->buf, e->len);
		hist_scratch[e->len] = '\0';
	}
	hist_pos = to;
	ed_set(e, to == hist_count ? hist_scratch : history[to]);
}

static void hist_add(const char *line)
{
	if (!line[0] || (hist_count && !strcmp(history[hist_count - 1], line)))
		return;
	if (hist_count == HIST_MAX) {
		memmove(history[0], history[1], sizeof(history[0]) * (HIST_MAX - 1));
		hist_count--;
	}
	strcpy(history[hist_count++], line);
}

/* The final byte of an escape sequence. */
static void ed_csi(editor_t *e, char c)
{
	switch (c) {
	case 'A': ed_history(e, -1); break;
	case 'B': ed_history(e, 1); break;
	case 'C': if (e->cur < e->len) ed_move(e, e->cur + 1); break;
	case 'D': if (e->cur > 0) ed_move(e, e->cur - 1); break;
	case 'H': ed_move(e, 0); break;
	case 'F': ed_move(e, e->len); break;
	case '~':
		if (e->esc_param == 3)
			ed_erase(e, true);
		else if (e->esc_param == 1 || e->esc_param == 7)
			ed_move(e, 0);
		else if (e->esc_param == 4 || e->esc_param == 8)
			ed_move(e, e->len);
		break;
	default: break;
	}
}

static void ed_escape(editor_t *e, char c)
{
	if (e->esc == 1) {
		e->esc = c == '[' || c == 'O' ? 2 : 0;
		e->esc_param = 0;
	} else if (c >= '0' && c <= '9') {
		e->esc_param = e->esc_param * 10 + (c - '0');
	} else if (c >= 0x40 && c <= 0x7e) {
		e->esc = 0;
		ed_csi(e, c);
	}
}

/* Feed byte c; 1 when the line is done, -1 at end of input, 0 to go on. */
static int ed_key(editor_t *e, char c)
{
	if (e->esc) {
		ed_escape(e, c);
		return 0;
	}
	switch (c) {
	case 0x1b: e->esc = 1; break;
	case '\r': case '\n': out_str("\r\n"); return 1;
	case 0x03: out_str("^C\r\n"); e->len = 0; return 1;
	case 0x04:
		if (e->len == 0)
			return -1;
		ed_erase(e, true);
		break;
	case 0x01: ed_move(e, 0); break;
	case 0x05: ed_move(e, e->len); break;
	case 0x15: ed_set(e, ""); break;
	case 0x08: case 0x7f: ed_erase(e, false); break;
	default:
		if ((unsigned char)c >= 0x20 || c == '\t')
			ed_insert(e, c == '\t' ? ' ' : c);
		break;
	}
	return 0;
}

/* Read keys until the line is done; its length or -1. */
static int ed_loop(sh_t *sh, editor_t *e)
{
	static char keys[64];
	static size_t nkeys, at;    /* typed ahead of the last line */

	for (;;) {
		if (at == nkeys) {
			size_t got = 0;
			if (console_read(sh->console_phone, keys, sizeof(keys), &got) != EOK)
				return -1;
			nkeys = got;
			at = 0;
		}
		while (at < nkeys) {
			int r = ed_key(e, keys[at++]);
			if (r)
				return r < 0 ? -1 : (int)e->len;
		}
	}
}

int sh_edit_line(sh_t *sh, const char *prompt, char *buf, size_t size)
{
	editor_t e = { .buf = buf, .size = size, .prompt = prompt };
	unsigned old;

	if (sh->console_phone < 0 ||
	    console_set_mode(sh->console_phone, CONSOLE_MODE_RAW, &old) != EOK)
		return -1;
	out_str(prompt);
	hist_pos = hist_count;
	int n = ed_loop(sh, &e);
	if (n >= 0) {
		buf[n] = '\0';
		hist_add(buf);
	}
	return n;
}
