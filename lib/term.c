/*
 * The terminal grid (lib/term.h): bytes are applied to cells kept
 * in memory, each written cell is marked, scrolls are counted; a flush
 * then moves the device's lines once and draws the marked cells in runs.
 * The result on the device is what drawing each byte at once would give.
 */
#include <lib/string.h>
#include <lib/term.h>
#include <stdbool.h>

static unsigned term_min(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

void term_init(term_t *t, unsigned rows, unsigned cols, unsigned row, unsigned col)
{
	t->cols = term_min(cols ? cols : 1, TERM_COLS_MAX);
	t->rows = term_min(term_min(rows ? rows : 1, TERM_ROWS_MAX), TERM_CELLS_MAX / t->cols);
	t->row = term_min(row, t->rows - 1);
	t->col = term_min(col, t->cols - 1);
	t->scrolls = 0;
	t->esc = 0;
	t->nparam = 0;
	for (unsigned i = 0; i < t->rows * t->cols; i++)
		t->cells[i] = TERM_BLANK;
	memset(t->dirty, 0, t->rows * t->cols);
	memset(t->row_dirty, 0, t->rows);
}

static void term_put(term_t *t, unsigned col, unsigned row, uint16_t v)
{
	unsigned i = row * t->cols + col;

	t->cells[i] = v;
	t->dirty[i] = 1;
	t->row_dirty[row] = 1;
}

static void term_clear(term_t *t, unsigned row, unsigned from, unsigned to)
{
	for (unsigned c = from; c < to; c++)
		term_put(t, c, row, TERM_BLANK);
}

/* One line up: in memory, the marks with it; the device's move waits. */
static void term_scroll(term_t *t)
{
	size_t keep = (size_t)(t->rows - 1) * t->cols;

	memmove(t->cells, t->cells + t->cols, keep * sizeof(t->cells[0]));
	memmove(t->dirty, t->dirty + t->cols, keep);
	memmove(t->row_dirty, t->row_dirty + 1, t->rows - 1);
	t->row_dirty[t->rows - 1] = 0;
	term_clear(t, t->rows - 1, 0, t->cols);
	if (t->scrolls < t->rows)
		t->scrolls++;
}

static void term_newline(term_t *t)
{
	t->col = 0;
	if (t->row + 1 < t->rows)
		t->row++;
	else
		term_scroll(t);
}

static void term_char(term_t *t, unsigned char c)
{
	if (t->col >= t->cols)
		term_newline(t);
	term_put(t, t->col++, t->row, (uint16_t)(0x07 << 8 | c));
}

/* ---------------------------------------------------------------- ANSI */

static unsigned term_param(const term_t *t, unsigned i, unsigned dflt)
{
	return i < t->nparam && i < TERM_CSI_PARAMS && t->param[i] ? t->param[i] : dflt;
}

static unsigned term_clamp(unsigned v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void term_csi(term_t *t, char f)
{
	unsigned n = term_param(t, 0, 1);

	switch (f) {
	case 'A': t->row -= n > t->row ? t->row : n; break;
	case 'B': t->row = term_clamp(t->row + n, 0, t->rows - 1); break;
	case 'C': t->col = term_clamp(t->col + n, 0, t->cols - 1); break;
	case 'D': t->col -= n > t->col ? t->col : n; break;
	case 'H':
		t->row = term_clamp(term_param(t, 0, 1), 1, t->rows) - 1;
		t->col = term_clamp(term_param(t, 1, 1), 1, t->cols) - 1;
		break;
	case 'J':
		if (term_param(t, 0, 0) == 2)
			for (unsigned r = 0; r < t->rows; r++)
				term_clear(t, r, 0, t->cols);
		break;
	case 'K':
		if (t->col < t->cols)
			term_clear(t, t->row, t->col, t->cols);
		break;
	default:
		break;
	}
}

/* A byte inside an escape sequence. */
static void term_esc(term_t *t, unsigned char c)
{
	if (t->esc == 1) {
		t->esc = c == '[' ? 2 : 0;
		t->nparam = 0;
		memset(t->param, 0, sizeof(t->param));
		return;
	}
	if (c >= '0' && c <= '9') {
		if (t->nparam == 0)
			t->nparam = 1;
		if (t->nparam <= TERM_CSI_PARAMS)
			t->param[t->nparam - 1] = t->param[t->nparam - 1] * 10 + (c - '0');
	} else if (c == ';') {
		t->nparam++;
	} else if (c >= 0x40 && c <= 0x7e) {
		t->esc = 0;
		term_csi(t, (char)c);
	}
}

static void term_byte(term_t *t, unsigned char c)
{
	if (t->esc) {
		term_esc(t, c);
		return;
	}
	switch (c) {
	case 0x1b: t->esc = 1; break;
	case '\n': term_newline(t); break;
	case '\r': t->col = 0; break;
	case '\b': if (t->col > 0) t->col--; break;
	case '\t':
		do
			term_char(t, ' ');
		while (t->col % 8 && t->col < t->cols);
		break;
	default:
		if (c >= 0x20)
			term_char(t, c);
		break;
	}
}

void term_write(term_t *t, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		term_byte(t, (unsigned char)s[i]);
}

/* Draw the marked runs of row (all of it if every line scrolled off). */
static void term_flush_row(term_t *t, unsigned row, bool all, const term_dev_t *dev, void *ctx)
{
	uint16_t *cells = t->cells + row * t->cols;
	uint8_t *dirty = t->dirty + row * t->cols;

	for (unsigned c = 0; c < t->cols;) {
		if (!all && !dirty[c]) {
			c++;
			continue;
		}
		unsigned end = c + 1;
		while (end < t->cols && (all || dirty[end]))
			end++;
		dev->draw(ctx, row, c, end, cells + c);
		memset(dirty + c, 0, end - c);
		c = end;
	}
	t->row_dirty[row] = 0;
}

void term_flush(term_t *t, const term_dev_t *dev, void *ctx)
{
	bool all = t->scrolls >= t->rows;

	if (t->scrolls && !all)
		dev->scroll(ctx, t->scrolls);
	t->scrolls = 0;
	for (unsigned r = 0; r < t->rows; r++)
		if (all || t->row_dirty[r])
			term_flush_row(t, r, all, dev, ctx);
}
