/*
 * lib/term.h - a terminal: a grid of cells kept in memory, the small ANSI
 * subset the consoles understand, and what changed since the last flush.
 * Pure logic (lib/term.c), unit-tested on the host (test/unit/test_term.c);
 * the kernel's text console (kernel/textcon.c, on VGA text or a
 * framebuffer) and the console server's screen (uspace/srv/console/
 * screen.c) write bytes into one and then flush: one move of the device's
 * lines for all the scrolls of a write, then only the cells that changed,
 * instead of a device memmove per line (each access to VGA memory is
 * slow, under emulation above all).
 */
#ifndef LIB_TERM_H
#define LIB_TERM_H

#include <stddef.h>
#include <stdint.h>

#define TERM_ROWS_MAX 256
#define TERM_COLS_MAX 512
#define TERM_CELLS_MAX (64 * 1024)
#define TERM_BLANK ((uint16_t)(0x07 << 8 | ' '))   /* attribute 7, a space */
#define TERM_CSI_PARAMS 4

typedef struct term {
	unsigned rows, cols, row, col;
	unsigned scrolls;                  /* lines scrolled since the flush */
	int esc;                           /* 0 plain, 1 after ESC, 2 in CSI */
	unsigned param[TERM_CSI_PARAMS], nparam;
	uint16_t cells[TERM_CELLS_MAX];    /* attribute << 8 | character */
	uint8_t dirty[TERM_CELLS_MAX];     /* written since the flush */
	uint8_t row_dirty[TERM_ROWS_MAX];  /* a cell of the row is */
} term_t;

/* What a flush does to the device (ctx is the caller's). */
typedef struct term_dev {
	/* Move the device's lines up by n (n < rows); the n last are redrawn. */
	void (*scroll)(void *ctx, unsigned n);
	/* Draw cells [c0, c1) of row from cells (cells[0] is column c0). */
	void (*draw)(void *ctx, unsigned row, unsigned c0, unsigned c1, const uint16_t *cells);
} term_dev_t;

/*
 * Set t up for rows x cols (clamped to the limits above), the cursor at
 * (row, col), every cell blank and nothing changed. The device keeps what
 * it shows (the kernel's lines on a framebuffer, say) until a cell is
 * written over or scrolled off: a flush draws only cells written since the
 * last one, and all of them only when every line was scrolled off.
 */
void term_init(term_t *t, unsigned rows, unsigned cols, unsigned row, unsigned col);
/* Write n bytes (\r \n \b \t, CSI A B C D H J K; other CSI ignored). */
void term_write(term_t *t, const char *s, size_t n);
/* Bring the device up to date: at most one scroll, then the changed cells. */
void term_flush(term_t *t, const term_dev_t *dev, void *ctx);

#endif
