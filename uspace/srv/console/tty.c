/*
 * The line discipline: raw mode queues every byte; cooked mode edits a
 * line (echo, backspace, left/right/home/end, Ctrl-U) and queues it on
 * Enter, turns Ctrl-D on an empty line into end of file and Ctrl-C into
 * killing the foreground job (fg.c). Runs on the IPC thread only.
 */
#include <console.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "console.h"

#define LINE_MAX 256
#define IN_SIZE 4096
#define EOF_MARKS 16

static unsigned tty_mode = CONSOLE_MODE_COOKED;

static char line[LINE_MAX];
static unsigned line_len, line_cur;
static int esc_state;            /* 0, 1 after ESC, 2 in CSI */
static unsigned esc_param;
static bool last_cr;

static unsigned char inq[IN_SIZE];
static uint64_t in_head, in_tail;
static uint64_t eof_marks[EOF_MARKS];
static unsigned eof_count;

unsigned tty_set_mode(unsigned mode)
{
	unsigned old = tty_mode;

	tty_mode = mode;
	return old;
}

/* ---------------------------------------------------------------- queue */

static void in_put(const char *s, size_t n)
{
	for (size_t i = 0; i < n && in_head - in_tail < IN_SIZE; i++)
		inq[in_head++ % IN_SIZE] = (unsigned char)s[i];
}

static void in_eof(void)
{
	if (eof_count < EOF_MARKS)
		eof_marks[eof_count++] = in_head;
}

bool tty_readable(void)
{
	return in_head != in_tail || eof_count > 0;
}

size_t tty_peek(char *buf, size_t len, bool *eof)
{
	uint64_t end = eof_count ? eof_marks[0] : in_head;
	size_t n = 0;

	*eof = eof_count > 0 && eof_marks[0] == in_tail;
	while (n < len && in_tail + n < end) {
		buf[n] = (char)inq[(in_tail + n) % IN_SIZE];
		if (buf[n++] == '\n' && tty_mode == CONSOLE_MODE_COOKED)
			break;
	}
	return n;
}

void tty_consume(size_t n, bool eof)
{
	in_tail += n;
	if (eof && eof_count > 0) {
		memmove(eof_marks, eof_marks + 1, --eof_count * sizeof(eof_marks[0]));
	}
}

/* ---------------------------------------------------------------- editing */

static void echo_n(const char *s, size_t n)
{
	pthread_mutex_lock(&out_lock);
	out_write(s, n);
	pthread_mutex_unlock(&out_lock);
}

/* Move the terminal's cursor n cells left (n > 0) or right (n < 0). */
static void echo_move(int n)
{
	char seq[16];

	if (n != 0) {
		snprintf(seq, sizeof(seq), "\x1b[%d%c", n > 0 ? n : -n,
			 n > 0 ? 'D' : 'C');
		out_puts(seq);
	}
}

static void line_reset(void)
{
	line_len = line_cur = 0;
}

static void line_insert(char c)
{
	if (line_len >= LINE_MAX - 1)
		return;
	memmove(line + line_cur + 1, line + line_cur, line_len - line_cur);
	line[line_cur] = c;
	line_len++;
	echo_n(line + line_cur, line_len - line_cur);
	line_cur++;
	echo_move((int)(line_len - line_cur));
}

static void line_backspace(void)
{
	if (line_cur == 0)
		return;
	memmove(line + line_cur - 1, line + line_cur, line_len - line_cur);
	line_cur--;
	line_len--;
	out_puts("\b");
	echo_n(line + line_cur, line_len - line_cur);
	out_puts(" ");
	echo_move((int)(line_len - line_cur + 1));
}

/* Move the edit position to pos, echoing the cursor motion. */
static void line_goto(unsigned pos)
{
	echo_move((int)line_cur - (int)pos);
	line_cur = pos;
}

static void line_enter(void)
{
	in_put(line, line_len);
	in_put("\n", 1);
	out_puts("\n");
	line_reset();
}

static void line_kill(void)
{
	line_goto(0);
	out_puts("\x1b[K");
	line_reset();
}

static void ctrl_c(void)
{
	out_puts("^C\n");
	line_reset();
	fg_interrupt();
}

static void ctrl_d(void)
{
	if (line_len == 0) {
		in_eof();
		return;
	}
	in_put(line, line_len);
	line_reset();
}

/* The end of an escape sequence typed in cooked mode. */
static void cooked_csi(unsigned char c)
{
	switch (c) {
	case 'C': if (line_cur < line_len) line_goto(line_cur + 1); break;
	case 'D': if (line_cur > 0) line_goto(line_cur - 1); break;
	case 'H': line_goto(0); break;
	case 'F': line_goto(line_len); break;
	case '~':
		if (esc_param == 3 && line_cur < line_len) {
			line_goto(line_cur + 1);
			line_backspace();
		}
		break;
	default: break;
	}
}

static void cooked_esc(unsigned char c)
{
	if (esc_state == 1) {
		esc_state = c == '[' || c == 'O' ? 2 : 0;
		esc_param = 0;
	} else if (c >= '0' && c <= '9') {
		esc_param = esc_param * 10 + (c - '0');
	} else if (c >= 0x40 && c <= 0x7e) {
		esc_state = 0;
		cooked_csi(c);
	}
}

static void cooked_input(unsigned char c)
{
	switch (c) {
	case 0x1b: esc_state = 1; break;
	case 0x03: ctrl_c(); break;
	case 0x04: ctrl_d(); break;
	case 0x15: line_kill(); break;
	case '\r': line_enter(); break;
	case '\n': if (!last_cr) line_enter(); break;
	case 0x08: case 0x7f: line_backspace(); break;
	default:
		if (c >= 0x20 || c == '\t')
			line_insert((char)c);
		break;
	}
}

void tty_input(unsigned char c)
{
	if (tty_mode == CONSOLE_MODE_RAW) {
		in_put((const char *)&c, 1);
		return;
	}
	if (esc_state)
		cooked_esc(c);
	else
		cooked_input(c);
	last_cr = c == '\r';
}
