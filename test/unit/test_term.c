/*
 * Unit tests for the terminal grid (lib/term.c).
 * The device it flushes to is a fake screen of cells that counts what is
 * done to it. The reference is a model written here that draws each byte
 * on the screen at once, with a device move per scrolled line (what the
 * console did before the grid): after every write and flush the fake
 * screen must equal the model's, whatever the bytes, however they are cut
 * into writes, and with content on the screen the grid never saw (the
 * kernel's lines on a framebuffer) kept where it was not written over.
 */
#include "tap.h"
#include "rng.h"

#include <string.h>

#include <lib/term.h>

#define ROWS 25
#define COLS 80

/* ------------------------------------------------------- the fake screen */

typedef struct screen {
	uint16_t cell[ROWS][COLS];
	unsigned scrolls, scrolled_lines, drawn;
} screen_t;

static void fake_scroll(void *ctx, unsigned n)
{
	screen_t *s = ctx;

	memmove(s->cell[0], s->cell[n], sizeof(s->cell[0]) * (ROWS - n));
	s->scrolls++;
	s->scrolled_lines += n;
}

static void fake_draw(void *ctx, unsigned row, unsigned c0, unsigned c1, const uint16_t *cells)
{
	screen_t *s = ctx;

	memcpy(&s->cell[row][c0], cells, (c1 - c0) * sizeof(cells[0]));
	s->drawn += c1 - c0;
}

static const term_dev_t fake_dev = { fake_scroll, fake_draw };

/* ------------------------------------------- the model: drawing at once */

typedef struct model {
	uint16_t cell[ROWS][COLS];
	unsigned row, col, esc, nparam, param[4];
	unsigned scrolls;
} model_t;

static void m_put(model_t *m, unsigned c, unsigned r, uint16_t v)
{
	m->cell[r][c] = v;
}

static void m_newline(model_t *m)
{
	m->col = 0;
	if (m->row + 1 < ROWS) {
		m->row++;
		return;
	}
	memmove(m->cell[0], m->cell[1], sizeof(m->cell[0]) * (ROWS - 1));
	for (unsigned c = 0; c < COLS; c++)
		m_put(m, c, ROWS - 1, TERM_BLANK);
	m->scrolls++;
}

static void m_char(model_t *m, unsigned char ch)
{
	if (m->col >= COLS)
		m_newline(m);
	m_put(m, m->col++, m->row, (uint16_t)(0x07 << 8 | ch));
}

static unsigned m_param(const model_t *m, unsigned i, unsigned d)
{
	return i < m->nparam && m->param[i] ? m->param[i] : d;
}

static unsigned m_clamp(unsigned v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void m_csi(model_t *m, char f)
{
	unsigned n = m_param(m, 0, 1);

	if (f == 'A')
		m->row -= n > m->row ? m->row : n;
	else if (f == 'B')
		m->row = m_clamp(m->row + n, 0, ROWS - 1);
	else if (f == 'C')
		m->col = m_clamp(m->col + n, 0, COLS - 1);
	else if (f == 'D')
		m->col -= n > m->col ? m->col : n;
	else if (f == 'H') {
		m->row = m_clamp(m_param(m, 0, 1), 1, ROWS) - 1;
		m->col = m_clamp(m_param(m, 1, 1), 1, COLS) - 1;
	} else if (f == 'J' && m_param(m, 0, 0) == 2) {
		for (unsigned r = 0; r < ROWS; r++)
			for (unsigned c = 0; c < COLS; c++)
				m_put(m, c, r, TERM_BLANK);
	} else if (f == 'K') {
		for (unsigned c = m->col; c < COLS; c++)
			m_put(m, c, m->row, TERM_BLANK);
	}
}

static void m_byte(model_t *m, unsigned char c)
{
	if (m->esc == 1) {
		m->esc = c == '[' ? 2 : 0;
		m->nparam = 0;
		memset(m->param, 0, sizeof(m->param));
	} else if (m->esc == 2) {
		if (c >= '0' && c <= '9') {
			if (!m->nparam)
				m->nparam = 1;
			if (m->nparam <= 4)
				m->param[m->nparam - 1] = m->param[m->nparam - 1] * 10 + (c - '0');
		} else if (c == ';') {
			m->nparam++;
		} else if (c >= 0x40 && c <= 0x7e) {
			m->esc = 0;
			m_csi(m, (char)c);
		}
	} else if (c == 0x1b) {
		m->esc = 1;
	} else if (c == '\n') {
		m_newline(m);
	} else if (c == '\r') {
		m->col = 0;
	} else if (c == '\b') {
		if (m->col)
			m->col--;
	} else if (c == '\t') {
		do
			m_char(m, ' ');
		while (m->col % 8 && m->col < COLS);
	} else if (c >= 0x20) {
		m_char(m, c);
	}
}

/* ------------------------------------------------------------- the runs */

static term_t term;
static screen_t scr;
static model_t model;

/* Fill the screen and the model with content the grid never saw. */
static void start(unsigned row, unsigned col, uint64_t *rng)
{
	memset(&scr, 0, sizeof(scr));
	memset(&model, 0, sizeof(model));
	for (unsigned r = 0; r < ROWS; r++)
		for (unsigned c = 0; c < COLS; c++)
			scr.cell[r][c] = model.cell[r][c] = (uint16_t)(0x1f00 | ('a' + rng_next(rng) % 26));
	model.row = row;
	model.col = col;
	term_init(&term, ROWS, COLS, row, col);
}

/* A random byte: mostly text, newlines, controls, and CSI sequences. */
static size_t random_bytes(char *buf, size_t max, uint64_t *rng)
{
	static const char *const seqs[] = { "\x1b[A", "\x1b[3B", "\x1b[12C", "\x1b[D",
		"\x1b[H", "\x1b[5;70H", "\x1b[2J", "\x1b[K", "\x1b[1;2;3;4;5m", "\x1b[99;99H",
		"\x1b[0J", "\x1bx" };
	size_t n = 0;

	while (n + 16 < max) {
		unsigned k = (unsigned)(rng_next(rng) % 100);
		if (k < 70)
			buf[n++] = (char)(0x20 + rng_next(rng) % 95);
		else if (k < 80)
			buf[n++] = '\n';
		else if (k < 85)
			buf[n++] = "\r\b\t\x01"[rng_next(rng) % 4];
		else if (k < 88)
			buf[n++] = (char)(rng_next(rng) & 0xff);
		else {
			const char *q = seqs[rng_next(rng) % 12];
			memcpy(buf + n, q, strlen(q));
			n += strlen(q);
		}
		if (rng_next(rng) % 200 == 0)
			break;
	}
	return n;
}

/* Write buf to both in pieces, flushing after each; whether they agree. */
static bool run_pieces(const char *buf, size_t n, uint64_t *rng, unsigned *flushes)
{
	size_t at = 0;

	while (at < n) {
		size_t k = 1 + rng_next(rng) % (n - at);
		term_write(&term, buf + at, k);
		for (size_t i = 0; i < k; i++)
			m_byte(&model, (unsigned char)buf[at + i]);
		unsigned before = scr.scrolls;
		term_flush(&term, &fake_dev, &scr);
		(*flushes)++;
		if (scr.scrolls > before + 1 || memcmp(scr.cell, model.cell, sizeof(scr.cell)) ||
		    term.row != model.row || term.col != model.col)
			return false;
		at += k;
	}
	return true;
}

static void test_random(void)
{
	static char buf[8192];
	uint64_t rng = 0x7e57c0de5eedull;
	unsigned flushes = 0, bad = 0, first_bad = 0;

	for (unsigned i = 0; i < 400; i++) {
		start(i % ROWS, (i * 7) % COLS, &rng);
		size_t n = random_bytes(buf, sizeof(buf), &rng);
		if (!run_pieces(buf, n, &rng, &flushes) && !bad++)
			first_bad = i;
	}
	ok(bad == 0, "400 random byte streams cut into %u writes: the screen is the "
	   "model's after each (%u differ, first %u)", flushes, bad, first_bad);
}

/* A write of many lines: one move of the device, cells drawn once each. */
static void test_one_scroll(void)
{
	static char buf[40 * 81];
	uint64_t rng = 5;
	size_t n = 0;

	start(ROWS - 1, 0, &rng);
	for (unsigned l = 0; l < 10; l++) {
		memset(buf + n, 'x' + l % 3, 80);
		n += 80;
		buf[n++] = '\n';
	}
	term_write(&term, buf, n);
	for (size_t i = 0; i < n; i++)
		m_byte(&model, (unsigned char)buf[i]);
	term_flush(&term, &fake_dev, &scr);
	ok(!memcmp(scr.cell, model.cell, sizeof(scr.cell)),
	   "ten full lines at the bottom: the screen is the model's");
	is_int(scr.scrolls, 1, "one device move for the whole write (the model made %u)",
	       model.scrolls);
	is_int(scr.scrolled_lines, 10, "by ten lines");
	is_int(scr.drawn, 11 * COLS, "the ten lines and the blank bottom one drawn, nothing else");
}

/* A write that scrolls every line off redraws all; a small one draws little. */
static void test_full_and_small(void)
{
	static char buf[ROWS * 2];
	uint64_t rng = 9;

	start(3, 0, &rng);
	memset(buf, '\n', sizeof(buf));
	term_write(&term, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		m_byte(&model, '\n');
	term_flush(&term, &fake_dev, &scr);
	ok(!memcmp(scr.cell, model.cell, sizeof(scr.cell)) && scr.scrolls == 0 &&
	   scr.drawn == ROWS * COLS,
	   "every line scrolled off: no device move, every cell drawn blank (%u drawn)",
	   scr.drawn);
	start(10, 70, &rng);
	term_write(&term, "ab\x1b[5Dz", 7);
	term_flush(&term, &fake_dev, &scr);
	ok(scr.drawn == 3 && scr.cell[10][70] == (0x0700 | 'a') &&
	   scr.cell[10][67] == (0x0700 | 'z') && (scr.cell[10][68] & 0xff00) == 0x1f00,
	   "a short write draws its three cells and keeps the unseen ones between");
}

static void test_clamp(void)
{
	term_init(&term, 100000, 100000, 99999, 99999);
	ok(term.cols == TERM_COLS_MAX && term.rows * term.cols <= TERM_CELLS_MAX &&
	   term.rows <= TERM_ROWS_MAX && term.row == term.rows - 1 && term.col == term.cols - 1,
	   "an oversized screen is clamped to the grid's limits (%ux%u)", term.cols, term.rows);
	term_init(&term, 0, 0, 5, 5);
	ok(term.rows == 1 && term.cols == 1 && term.row == 0 && term.col == 0,
	   "an empty one becomes one cell");
}

int main(void)
{
	test_random();
	test_one_scroll();
	test_full_and_small();
	test_clamp();
	return done_testing();
}
